#!/usr/bin/env python3
"""Where a wrong answer's cost in a warm JVM goes: loading the project's libraries again for each candidate.

A warm JVM runs each candidate's tests in a fresh class loader over the bug's whole class path (the runner's
``JobClasses``), so that no static state of the code under test outlives the candidate: the project's own classes
and every library jar on the path (Jackson's databind under JacksonXml) are read, verified and linked again each
time. This runs one trigger test of each bug in a plain JVM (JDK 11, the quick JIT compiler only, as warm JVMs run)
again and again in a new loader each time, three ways, and prints the thread's CPU per run once the JIT has
settled (median of the second half):

- ``a loader per candidate``: today's, the whole class path in each new loader;
- ``libraries shared``: the jars in one loader made once, under each run's loader of the project's own classes
  (UniAPR's reuse, for the libraries alone: their static state would then survive from one candidate to the
  next, which is why nl2fix does not do it);
- ``a loader per candidate, unverified``: today's with ``-XX:-BytecodeVerificationRemote``, to show what of the
  cost is the bytecode verifier (never safe: a candidate may define classes of its own making).

Nothing is judged; the test's outcome is printed, the same in each way.

    python3 scripts/bench_library_layer.py --bugs JacksonXml-1,JxPath-5,Codec-2 --rounds 12
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.jvm.runner import junit_jars
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.processes import run_command

MAIN = """
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class LibraryLayer {
    /** args: shared|whole, rounds, own class path file, library class path file, test class, test method. */
    public static void main(String[] a) throws Exception {
        boolean shared = a[0].equals("shared");
        List<URL> own = urls(a[2]), libs = urls(a[3]);
        ClassLoader parent = LibraryLayer.class.getClassLoader();
        ClassLoader layer = shared ? new URLClassLoader(libs.toArray(new URL[0]), parent) : null;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        Class<?> core = parent.loadClass("org.junit.runner.JUnitCore");
        Class<?> request = parent.loadClass("org.junit.runner.Request");
        for (int i = 0, n = Integer.parseInt(a[1]); i < n; i++) {
            long start = cpu.getCurrentThreadCpuTime();
            List<URL> path = new ArrayList<>(own);
            if (!shared) {
                path.addAll(libs);
            }
            ClassLoader loader = new URLClassLoader(path.toArray(new URL[0]), shared ? layer : parent);
            Object made = request.getMethod("method", Class.class, String.class)
                    .invoke(null, loader.loadClass(a[4]), a[5]);
            Object result = core.getMethod("run", request).invoke(core.getConstructor().newInstance(), made);
            long used = cpu.getCurrentThreadCpuTime() - start;
            boolean ok = (Boolean) result.getClass().getMethod("wasSuccessful").invoke(result);
            System.out.println(used + " " + (ok ? "pass" : "fail"));
        }
    }

    private static List<URL> urls(String file) throws Exception {
        List<URL> out = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file))) {
            if (!line.isEmpty()) {
                out.add(new File(line).toURI().toURL());
            }
        }
        return out;
    }
}
"""
WAYS = {
    "a loader per candidate": ("whole", ()),
    "libraries shared": ("shared", ()),
    "a loader per candidate, unverified": ("whole", ("-XX:-BytecodeVerificationRemote",)),
}


def split(classpath: list[Path]) -> tuple[list[Path], list[Path]]:
    """The project's own entries (folders: its classes and its tests') and its libraries (jars), JUnit left out: the
    JVM's own class path holds it, as the runner's parent loader does."""
    junit = {p.resolve() for p in junit_jars()}
    entries = [p for p in classpath if p.resolve() not in junit and "junit" not in p.name and "hamcrest" not in p.name]
    return [p for p in entries if p.is_dir()], [p for p in entries if not p.is_dir()]


def measure(own: list[Path], libs: list[Path], test: str, rounds: int, work: Path) -> dict[str, tuple[float, str]]:
    """Each way's median CPU milliseconds a run over the second half of ``rounds``, and the test's outcomes."""
    jdk = reference_java.current().jdk
    work.mkdir(parents=True, exist_ok=True)
    (work / "LibraryLayer.java").write_text(MAIN)
    compiled = run_command([str(jdk.javac), "-d", str(work), str(work / "LibraryLayer.java")], timeout=120)
    if not compiled.ok:
        raise SystemExit(f"the harness did not compile: {compiled.stderr[-2000:]}")
    (work / "own.txt").write_text("\n".join(map(str, own)))
    (work / "libs.txt").write_text("\n".join(map(str, libs)))
    cls, _, method = test.partition("::")
    out: dict[str, tuple[float, str]] = {}
    for name, (mode, flags) in WAYS.items():
        done = run_command(
            [
                str(jdk.java),
                "-XX:TieredStopAtLevel=1",
                *flags,
                "-cp",
                ":".join(map(str, [work, *junit_jars()])),
                "LibraryLayer",
                mode,
                str(rounds),
                str(work / "own.txt"),
                str(work / "libs.txt"),
                cls,
                method,
            ],
            timeout=600,
        )
        if not done.ok:
            raise SystemExit(f"{name}: {done.stderr[-2000:]}")
        runs = [line.split() for line in done.stdout.splitlines() if line.strip()]
        settled = [int(ns) / 1e6 for ns, _ in runs[len(runs) // 2 :]]
        out[name] = (statistics.median(settled), "/".join(sorted({outcome for _, outcome in runs})))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, limit=1)
    parser.add_argument("--rounds", type=int, default=12, help="Runs of the test in each way (default 12).")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox(True), cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1))
    )
    try:
        for bug in bugs:
            ws = engine.prepare(bug)
            own, libs = split([ws.classes_dir, ws.test_classes_dir, *ws.classpath])
            own = list(dict.fromkeys(own))
            test = sorted(ws.trigger_tests)[0]
            with tempfile.TemporaryDirectory(dir=cache.cache_dir()) as tmp:
                figures = measure(own, libs, test, args.rounds, Path(tmp))
            print(f"{bug.id}: {test}, {len(libs)} library jar(s); CPU ms a run (median of the last {args.rounds // 2})")
            base = figures["a loader per candidate"][0]
            for name, (ms, outcome) in figures.items():
                print(f"  {name:36} {ms:8.1f}  {base / ms:5.1f}x  ({outcome})")
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
