"""A job whose code calls ``newInstance()`` on a JDK class leaves that class holding the job's class as its
last caller (``Class.newInstanceCallerCache``, on Java 11; Java 17 no longer writes it): Cli's
``TypeHandler.createObject`` on ``java.util.Vector``, which ``PatternOptionBuilderTest`` drives, retired every
Cli test JVM that ran it. ``CallerCaches.java`` clears such entries when a job's loader outlives its first
collection, and the loader must still go. Checked on a real JVM of each installed test Java with the runner's
native agent (which lists the loaded classes), through the runner's own ``Lifetime.Watch``: the job that made a
``Vector`` leaves nothing, a job whose class a table outside the job holds is still caught."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.jvm import os_wall, runner
from tests.helpers.javac import JDKS, build, javac, runner_build, runner_check

CHECK = """package nl2fix.runner;

public final class CallerCheck {
    /** A table outside the job, as a JDK cache with no reason to hold a job's class would be. */
    private static final java.util.List<Object> TABLE = new java.util.ArrayList<>();

    /** args[0]: the job's classes; then each job: "make" (the job makes a JDK object through newInstance),
     * "hold" (the same, and the table keeps the job's class). */
    public static void main(String[] args) throws Exception {
        java.net.URL job = java.nio.file.Paths.get(args[0]).toUri().toURL();
        for (int i = 1; i < args.length; i++) {
            java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {job}, null);
            Lifetime.Watch watch = new Lifetime.Watch(loader);
            Class<?> maker = loader.loadClass("job.Maker");
            Object made = maker.getMethod("make").invoke(null);
            if ("hold".equals(args[i])) {
                TABLE.add(maker);
            }
            System.out.println(args[i] + " made " + made.getClass().getName());
            maker = null;
            loader.close();
            loader = null;
            System.out.println(args[i] + " left: " + watch.left());
        }
    }
}
"""
MAKER = """package job;

public class Maker {
    @SuppressWarnings("deprecation")
    public static Object make() throws Exception {
        return Class.forName("java.util.Vector").newInstance();
    }
}
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("caller-caches")
    check, maker = root / "src" / "nl2fix" / "runner" / "CallerCheck.java", root / "job-src" / "job" / "Maker.java"
    for path, text in ((check, CHECK), (maker, MAKER)):
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    build(
        runner_build(check, root / "classes"),
        [str(javac()), "--release", "11", "-d", str(root / "job"), str(maker)],
    )
    return root / "classes", root / "job"


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_a_jdk_class_that_kept_a_job_class_as_its_caller_keeps_no_jvm_from_its_next_job(classes, java):
    runner_classes, job = classes
    argv = runner_check(java, runner_classes, "CallerCheck", str(job), "make", "make", "hold")
    argv[1:1] = [*os_wall.jvm_options(runner.runner_classes(), confined=False), "-Xmx128m", "-XX:+UseSerialGC"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # (the JVM logs the heap the last resort's collections exhaust on the same output)
    assert [line for line in done.stdout.splitlines() if not line.startswith("[")] == [
        "make made java.util.Vector",
        "make left: null",
        "make made java.util.Vector",
        "make left: null",
        "hold made java.util.Vector",
        "hold left: the job's class loader is still reachable",
    ]
