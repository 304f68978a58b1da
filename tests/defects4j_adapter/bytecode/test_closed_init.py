"""Closed static initialisers (``closed_init.py``, ``Statics.java``): which classes qualify, read from class files
javac made; and, on a real JVM of each installed test Java with the runner's own classes, that a job's loader given
the rewritten class sees the same static values as the class path's own initialiser makes, each loader its own
copy, that a class of the candidate's file is never rewritten, and that nothing unprepared is handed out."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.bytecode import closed_init
from defects4j_adapter.bytecode.classfile import parse
from tests.helpers.javac import JDKS, build, compile_java, javac, runner_build, runner_check

TABLE = """package p;
public final class Table {
    static final int SIZE = 64;
    private static final double[] EXP = new double[SIZE];
    private static final double[][] SPLIT = new double[SIZE][2];
    static final String NAME = "table";
    static String label = NAME + SIZE;
    static long bits;
    static {
        for (int i = 0; i < SIZE; i++) {
            EXP[i] = slow(i / 8.0);
            split(EXP[i], SPLIT[i]);
            bits += Double.doubleToRawLongBits(EXP[i]) & 0xff;
        }
    }
    private static double slow(double x) {
        double sum = 1, term = 1;
        for (int k = 1; k < 30; k++) { term *= x / k; sum += term; }
        return Math.max(sum, StrictMath.exp(x) * 0.0);
    }
    private static void split(double d, double[] into) { into[0] = (float) d; into[1] = d - into[0]; }
    public static double exp(int i) { return EXP[i] + SPLIT[i][1] * 0; }
    public static double[] table() { return EXP; }
}
"""

LOOP = "for (int i = 0; i < 4; i++) "
OPEN = {
    "Clock": "static final long[] T = new long[4]; static { " + LOOP + "T[i] = System.nanoTime(); }",
    "Random": "static final double[] T = new double[4]; static { " + LOOP + "T[i] = Math.random(); }",
    "Other": "static final int[] T = new int[4]; static { " + LOOP + "T[i] = Table.SIZE + Table.label.length(); }",
    "Objects": "static final Object[] T = new Object[4]; static { " + LOOP + "T[i] = new Object(); }",
    "Locked": "static final int[] T = new int[4]; static { synchronized (Locked.class) { " + LOOP + "T[i] = i; } }",
    "NoLoop": "static final int[] T = {1, 2, 3};",
}
"""Initialisers that are not closed (a clock, a random number, another class's static state, objects, a lock) or
that do no work worth skipping (no loop)."""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    sources = {"p/Table.java": TABLE}
    for name, body in OPEN.items():
        sources[f"p/{name}.java"] = f"package p;\npublic final class {name} {{ {body} }}\n"
    return compile_java(sources, tmp_path_factory.mktemp("closed"), "--release", "8", "-g")


def test_only_a_closed_initialiser_that_loops_is_rewritten(project):
    found = closed_init.classes(project)
    assert sorted(found) == ["p.Table"]
    made = parse(found["p.Table"])
    assert made.name == "p/Table" and made.fields == parse((project / "p/Table.class").read_bytes()).fields
    assert closed_init.RUNNER.replace("/", ".") in {c.replace("/", ".") for c in made.references.classes}


def test_the_switch_turns_it_off(project, monkeypatch):
    monkeypatch.setenv(closed_init.SWITCH, "0")
    assert closed_init.classes(project) == {}


CHECK = """package nl2fix.runner;

import java.net.URL;
import java.nio.file.*;
import java.util.*;

public final class ClosedCheck {
    static Object field(Class<?> c, String name) throws Exception {
        java.lang.reflect.Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(null);
    }

    public static void main(String[] args) throws Exception {
        Path project = Paths.get(args[0]), rewritten = Paths.get(args[1]);
        List<String> classPath = List.of(project.toString());
        Map<String, byte[]> made = Main.classFiles(rewritten);
        System.out.println("candidate's " + Statics.prepare(made, classPath, Set.of("p.Table")).keySet());
        Map<String, byte[]> used = Statics.prepare(made, classPath, Set.of("p.Other"));
        System.out.println("used " + used.keySet());
        double[][] seen = new double[2][];
        for (int job = 0; job < 2; job++) {
            URL[] urls = {project.toUri().toURL()};
            ClassLoader parent = ClosedCheck.class.getClassLoader();
            // the job's loader, then a probe's twin
            nl2fix.loader.JobLoader loader = job == 0 ? JobClasses.loader(urls, parent, used)
                    : JobClasses.twin(urls, parent, used);
            // only the loader's own findClass is handed the replacement
            System.out.println("job " + job + " handed to another " + loader.defined().replacement(loader, "p.Table"));
            Class<?> table = Class.forName("p.Table", true, loader);
            byte[] read = loader.getResourceAsStream("p/Table.class").readAllBytes();
            URL from = table.getProtectionDomain().getCodeSource().getLocation();
            System.out.println("job " + job + " reads the class path's class file "
                    + Arrays.equals(read, Files.readAllBytes(project.resolve("p/Table.class")))
                    + " from " + project.toUri().equals(from.toURI()) + " own " + JobClasses.own(table));
            seen[job] = (double[]) table.getMethod("table").invoke(null);
            System.out.println("job " + job + " exp5 " + table.getMethod("exp", int.class).invoke(null, 5)
                    + " label " + field(table, "label") + " bits " + field(table, "bits"));
            seen[job][5] = -1;
        }
        System.out.println("own copies " + (seen[0] != seen[1]));
        try (java.net.URLClassLoader plain = new java.net.URLClassLoader(new URL[] {project.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> table = Class.forName("p.Table", true, plain);
            System.out.println("plain exp5 " + table.getMethod("exp", int.class).invoke(null, 5)
                    + " label " + field(table, "label") + " bits " + field(table, "bits"));
            try {
                Statics.get(Class.forName("p.Clock", false, plain), "T");
            } catch (IllegalStateException e) {
                System.out.println("unprepared " + e.getMessage());
            }
        }
    }
}
"""


@pytest.fixture(scope="module")
def checked(project, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("closed-check")
    src = root / "src" / "nl2fix" / "runner"
    src.mkdir(parents=True)
    (src / "ClosedCheck.java").write_text(CHECK, encoding="utf-8")
    classes = root / "classes"
    build(runner_build(src / "ClosedCheck.java", classes))
    javac()
    return classes


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_each_job_gets_its_own_copy_of_what_the_initialiser_computes(project, checked, java, tmp_path):
    rewritten = tmp_path / "rewritten"
    for name, data in closed_init.classes(project).items():
        path = rewritten / (name.replace(".", "/") + ".class")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    done = subprocess.run(
        runner_check(java, checked, "ClosedCheck", str(project), str(rewritten)), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "candidate's []"
    assert lines[1] == "used [p.Table]"
    # the class is the project's in all but its initialiser: its class file and code source are the class path's
    assert "job 0 reads the class path's class file true from true own true" in lines
    assert "job 1 reads the class path's class file true from true own false" in lines
    assert "job 0 handed to another null" in lines and "job 1 handed to another null" in lines
    plain = next(line for line in lines if line.startswith("plain "))
    jobs = [line for line in lines if line.startswith("job ") and " exp5 " in line]
    assert len(jobs) == 2
    # the same values as the class path's own initialiser, in both jobs, though the first job changed its table
    assert all(line.split(" ", 2)[2] == plain.split(" ", 1)[1] for line in jobs), lines
    assert "label table64" in plain and " bits 0" not in plain
    assert "own copies true" in lines
    assert lines[-1] == "unprepared nl2fix: no prepared value of p.Clock.T"
