"""scripts/bench_library_layer.py's measurement, for real on a project made here: a test of the project's own class
that uses a library jar, run in each of the three ways (a loader per candidate, the libraries shared, unverified)
with real javac and java; the Defects4J figures come from the script itself."""

from __future__ import annotations

import sys
import zipfile

from tests.helpers.javac import compile_java
from tests.helpers.paths import REPO

sys.path.insert(0, str(REPO / "scripts"))
import bench_library_layer as bench

from defects4j_adapter.jvm.runner import junit_jars

LIBRARY = "package lib;\n\npublic class Twice {\n    public static int of(int x) {\n        return 2 * x;\n    }\n}\n"
OWN = (
    "package own;\n\npublic class Sum {\n    public static int of(int x) {\n"
    "        return lib.Twice.of(x) + 1;\n    }\n}\n"
)
TEST = (
    "package own;\n\npublic class SumTest {\n    @org.junit.Test\n    public void adds() {\n"
    "        org.junit.Assert.assertEquals(7, Sum.of(3));\n    }\n\n    @org.junit.Test\n"
    "    public void wrong() {\n        org.junit.Assert.assertEquals(8, Sum.of(3));\n    }\n}\n"
)


def _project(tmp_path):
    # for the JDK the script runs (Defects4J's 11)
    library = compile_java({"lib/Twice.java": LIBRARY}, tmp_path / "lib", "--release", "11")
    jar = tmp_path / "lib.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.write(library / "lib" / "Twice.class", "lib/Twice.class")
    own = compile_java(
        {"own/Sum.java": OWN, "own/SumTest.java": TEST},
        tmp_path / "own",
        "--release",
        "11",
        "-cp",
        ":".join(map(str, [jar, *junit_jars()])),
    )
    return own, jar


def test_the_class_path_splits_into_the_project_s_folders_and_its_library_jars_junit_left_out(tmp_path):
    own, jar = _project(tmp_path)
    assert bench.split([own, jar, *junit_jars()]) == ([own], [jar])


def test_each_way_runs_the_test_and_gives_its_outcome_and_cpu(tmp_path):
    own, jar = _project(tmp_path)
    for test, outcome in (("own.SumTest::adds", "pass"), ("own.SumTest::wrong", "fail")):
        figures = bench.measure([own], [jar], test, 4, tmp_path / test.replace(":", "_"))
        assert set(figures) == set(bench.WAYS), figures
        # the library shared or not, verified or not: the same test outcome in every way
        assert {o for _, o in figures.values()} == {outcome}, figures
        assert all(ms > 0 for ms, _ in figures.values()), figures
