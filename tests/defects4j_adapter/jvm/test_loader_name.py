"""A job's class loader as the JVM names it in its own messages (``LoaderName.java``): ``loader 'app'``, as a
plain JVM names the application loader that defines a plain run's classes, not ``loader 'app' @<id>`` (the
JDK's form for every loader it did not build in: round 8's ``loader_id`` told nl2fix's JVM by it). Checked on a
real JVM of each installed test Java, the same class run by the job's loader (the runner's classes and the
module options the engines give it) and by a plain ``java -cp``: a ``ClassCastException``'s and an
``IllegalAccessError``'s messages are the same; what the candidate may reach of ``java.lang`` is the same (the
runner's module alone is given ``java.lang``); a stack trace element still names the loader (``app//``, which
``StackTraceElement`` takes from the loader's class: the class-file check refuses stack traces to the
candidate, and ``Lifetime.java`` tells a job's frames by it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.javac import JDKS, javac, output_lines, runner_build, runner_check

CHECK = """package nl2fix.runner;

public final class LoaderNameCheck {
    public static void main(String[] args) throws Exception {
        java.net.URL[] urls = {new java.io.File(args[0]).toURI().toURL()};
        ClassLoader loader = JobClasses.loader(urls, LoaderNameCheck.class.getClassLoader());
        Class.forName("p.Probe", true, loader).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        System.out.println("java.lang open to the runner "
                + Object.class.getModule().isOpen("java.lang", LoaderNameCheck.class.getModule()));
    }
}
"""

PROBE = """package p;
public final class Probe {
    public static void main(String[] args) {
        try {
            Object o = new Object() { };
            System.out.println("cast " + (Comparable<?>) o);
        } catch (ClassCastException e) {
            System.out.println("cast " + e.getMessage());
        }
        try {
            Hidden.m();
        } catch (IllegalAccessError e) {
            System.out.println("access " + e.getMessage());
        }
        Module own = Probe.class.getModule();
        System.out.println("java.lang open to it " + Object.class.getModule().isOpen("java.lang", own));
        System.out.println("frame " + new Throwable().getStackTrace()[0]);
    }
}
"""
HIDDEN = "package p; public final class Hidden { %s static void m() { } }"
"""Public when ``Probe`` is compiled, private when the JVM links it: an ``IllegalAccessError`` naming both
classes' loader."""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("loader-name")
    src = root / "src" / "nl2fix" / "runner"
    src.mkdir(parents=True)
    (src / "LoaderNameCheck.java").write_text(CHECK, encoding="utf-8")
    (root / "p").mkdir()
    (root / "p" / "Probe.java").write_text(PROBE, encoding="utf-8")
    hidden = root / "p" / "Hidden.java"
    classes, probe = root / "classes", root / "probe"
    plain = [str(javac()), "-source", "8", "-target", "8", "-nowarn", "-d", str(probe)]
    for argv, access in (
        (runner_build(src / "LoaderNameCheck.java", classes), None),
        ([*plain, str(root / "p" / "Probe.java"), str(hidden)], "public"),
        ([*plain, str(hidden)], "private"),
    ):
        if access:
            hidden.write_text(HIDDEN % access, encoding="utf-8")
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    return classes, probe


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_a_job_s_loader_prints_as_a_plain_jvm_s_application_loader(built, java):
    classes, probe = built
    plain = output_lines([str(java), "-cp", str(probe), "p.Probe"])
    job = output_lines(runner_check(java, classes, "LoaderNameCheck", str(probe)))
    print(plain, job, sep="\n")
    assert plain[0].endswith(
        "(p.Probe$1 is in unnamed module of loader 'app'; java.lang.Comparable is in module "
        "java.base of loader 'bootstrap')"
    ), plain
    assert "(p.Probe and p.Hidden are in unnamed module of loader 'app')" in plain[1], plain
    # the messages and the reach into java.lang as in a plain JVM; the stack trace element differs (refused to
    # the candidate); the runner's module alone is given java.lang
    frame = plain[3].removeprefix("frame ")
    assert job == [*plain[:3], f"frame app//{frame}", "java.lang open to the runner true"]
