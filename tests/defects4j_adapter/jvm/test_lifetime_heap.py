"""A job that leaves the heap held retires its JVM (``Lifetime.java``): a JDK-wide table or a JDK thread's
thread-local can keep a job's objects of the JDK's own classes, so its loader goes while the next candidate's
tests would run out of heap there (and a warm ``wrong`` is final). Checked on a real JVM of each installed test
Java, through the runner's own ``Lifetime.Watch`` after a job's loader is dropped: nothing held, then a quarter of
the heap and more held by a static table of another module (as a JDK cache would hold it)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.javac import JDKS, build, runner_build, runner_check

CHECK = """package nl2fix.runner;

public final class HeapCheck {
    /** A JVM-wide table that outlives the job, as a JDK cache does. */
    private static final java.util.List<long[]> TABLE = new java.util.ArrayList<>();

    public static void main(String[] args) throws Exception {
        Lifetime.rememberHeld();
        for (String mb : args) {
            java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[0]);
            Lifetime.Watch watch = new Lifetime.Watch(loader);
            TABLE.add(new long[Integer.parseInt(mb) << 17]);
            loader.close();
            loader = null;
            System.out.println(mb + " MB held: " + watch.left());
        }
    }
}
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lifetime-heap")
    check = root / "src" / "nl2fix" / "runner" / "HeapCheck.java"
    check.parent.mkdir(parents=True)
    check.write_text(CHECK, encoding="utf-8")
    build(runner_build(check, root / "classes"))
    return root / "classes"


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_a_job_that_leaves_a_quarter_of_the_heap_held_retires_its_jvm(classes, java):
    argv = runner_check(java, classes, "HeapCheck", "0", "1", "40")
    argv[1:1] = ["-Xmx128m", "-XX:+UseSerialGC"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    # 41 MB held in all (give or take what the JVM itself keeps), the limit a quarter of 128 MB
    lines = done.stdout.splitlines()
    assert lines[:2] == ["0 MB held: null", "1 MB held: null"]
    assert re.fullmatch(r"40 MB held: the job left 4[0-2] MB of the heap reachable", lines[2]), lines
