"""The JUnit tests written for divergences the tests' own objects carry, compiled and run for real (javac, JUnit)
on the fix and on the candidate: a receiver and an argument made field by field (a constructor that throws
never runs), an argument that is the very object the receiver holds, private and generic methods called
through reflection, a receiver's field afterwards, a result of the project's objects (field by field); and a
candidate's output that would end the test's comment (a line break the probe writes as an escape, which javac
reads before comments) stays in it: out of it, ``@org.junit.Ignore`` before the test's class would hide the
divergence on both versions."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.behaviour.junit import HELPER_CLASS, divergence_test
from defects4j_adapter.jvm.runner import junit_jars
from tests.helpers.javac import JDKS, compile_java

CALC = """package org.demo;

public class Calc {
    private int total;
    private final String unit;
    private Calc next;

    public Calc(String unit) {
        throw new IllegalStateException("a test that ran this constructor built another object");
    }

    private Calc(int total) {
        this.total = total;
        this.unit = "g";
    }

%s
}
"""

CASES = {
    "receiver_argument_and_held_object": (
        "    public int f(Calc other, String u) {\n        return total + other.total + (u == unit ? 100 : 0);\n    }",
        "    public int f(Calc other, String u) {\n        return total + other.total;\n    }",
        'arg0=org.demo.Calc{total=2,unit="g",next=null}, arg1="kg" (an object this holds), '
        'this=org.demo.Calc{total=3,unit="kg",next=org.demo.Calc{total=1,unit="g",next=null}}',
        "return=105",
        "return=5",
    ),
    "private_method": (
        "    private static int f(int[] xs) {\n        return xs.length;\n    }",
        "    private static int f(int[] xs) {\n        return 0;\n    }",
        "arg0=int[2]{1,2}",
        "return=2, arg0=int[2]{1,2}",
        "return=0, arg0=int[2]{1,2}",
    ),
    "generic_method": (
        "    static <T extends Comparable<T>> T f(T a, T b) {\n        return a.compareTo(b) < 0 ? b : a;\n    }",
        "    static <T extends Comparable<T>> T f(T a, T b) {\n        return a;\n    }",
        'arg0="a", arg1="b"',
        'return="b", arg0="a", arg1="b"',
        'return="a", arg0="a", arg1="b"',
    ),
    "array_of_arrays": (
        "    public static double f(double[][] m) {\n        return m[1][0];\n    }",
        "    public static double f(double[][] m) {\n        return m[0][0];\n    }",
        "arg0=[D[2]{double[1]{1.5},double[1]{2.5}}",
        "return=2.5, arg0=[D[2]{double[1]{1.5},double[1]{2.5}}",
        "return=1.5, arg0=[D[2]{double[1]{1.5},double[1]{2.5}}",
    ),
    "receiver_field_afterwards": (
        "    public void f(int x) {\n        total += x;\n    }",
        "    public void f(int x) {\n        total = x;\n    }",
        'arg0=2, this=org.demo.Calc{total=3,unit="kg",next=null}',
        'return=null, this=org.demo.Calc{total=5,unit="kg",next=null}, arg0=2',
        'return=null, this=org.demo.Calc{total=2,unit="kg",next=null}, arg0=2',
    ),
    # a project object with no equals of its own (Math's RealPointValuePair): expected as what the probe saw of it,
    # field by field; the fix's object is another instance, so equals would fail the test on the fix too
    "project_object_result": (
        "    public Calc f(int x) {\n        Calc c = new Calc(1);\n        c.total = x + 1;\n        return c;\n    }",
        "    public Calc f(int x) {\n        Calc c = new Calc(1);\n        c.total = x;\n        return c;\n    }",
        'arg0=2, this=org.demo.Calc{total=3,unit="kg",next=null}',
        'return=org.demo.Calc{total=3,unit="g",next=null}, this=org.demo.Calc{total=3,unit="kg",next=null}, arg0=2',
        'return=org.demo.Calc{total=2,unit="g",next=null}, this=org.demo.Calc{total=3,unit="kg",next=null}, arg0=2',
    ),
    "array_of_project_objects": (
        "    public static Calc[] f(int x) {\n        return new Calc[] {null, new Calc(x)};\n    }",
        "    public static Calc[] f(int x) {\n        return new Calc[] {null, new Calc(x + 1)};\n    }",
        "arg0=2",
        'return=org.demo.Calc[2]{null,org.demo.Calc{total=2,unit="g",next=null}}, arg0=2',
        'return=org.demo.Calc[2]{null,org.demo.Calc{total=3,unit="g",next=null}}, arg0=2',
    ),
    # Codec's 8 KB buffers: a primitive array past 256 elements is written as text the helper reads, since an
    # initialiser of 8,192 elements passes the 64 KB of bytecode a test method may have
    "long_primitive_arrays": (
        "    public static byte[] f(byte[] in, long[] ls) {\n        byte[] out = in.clone();\n"
        "        out[299] = (byte) ls.length;\n        return out;\n    }",
        "    public static byte[] f(byte[] in, long[] ls) {\n        return in.clone();\n    }",
        "arg0=byte[300]{" + ",".join(f"(byte) {i % 256 - 128}" for i in range(300)) + "}, "
        "arg1=long[300]{" + ",".join(f"{i - 150}L" for i in range(300)) + "}",
        "return=byte[300]{" + ",".join(f"(byte) {i % 256 - 128}" for i in range(299)) + ",(byte) 44}",
        "return=byte[300]{" + ",".join(f"(byte) {i % 256 - 128}" for i in range(300)) + "}",
    ),
    "candidate_output_that_would_end_the_comment": (
        "    public static String f(String s) {\n        return s;\n    }",
        '    public static String f(String s) {\n        return s + "\\n@org.junit.Ignore\\n//";\n    }',
        'arg0="a"',
        'return="a", arg0="a"',
        'return="a\\u000a@org.junit.Ignore\\u000a//", arg0="a"',
    ),
}


def run_test(calc: str, test: str, tmp: Path) -> subprocess.CompletedProcess:
    """``org.demo.Calc`` of source ``calc`` and the divergence ``test`` compiled (javac, ``--release 8``) and run
    with JUnit."""
    java = next((j for j in JDKS if j.is_file()), None)
    if java is None:
        pytest.skip("no JDK 11 or 17")
    jars = ":".join(map(str, junit_jars()))
    classes = compile_java(
        {"org/demo/Calc.java": calc, "org/demo/CalcNl2fixDivergenceTest.java": test},
        tmp,
        "--release",
        "8",
        "-cp",
        jars,
    )
    return subprocess.run(
        [str(java), "-cp", f"{classes}:{jars}", "org.junit.runner.JUnitCore", "org.demo.CalcNl2fixDivergenceTest"],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("case", CASES)
def test_the_test_passes_on_the_fix_and_fails_on_the_candidate(case, tmp_path):
    fix, candidate, first_input, fix_result, candidate_result = CASES[case]
    source = CALC % fix
    start = source.splitlines().index(fix.splitlines()[0]) + 1
    explained = divergence_test(
        source, fix, start, start + len(fix.splitlines()) - 1, fix, first_input, fix_result, candidate_result
    )
    assert explained.test and not explained.why_not, explained
    on_fix = run_test(CALC % fix, explained.test, tmp_path / "fix")
    assert on_fix.returncode == 0 and "OK (1 test)" in on_fix.stdout, (explained.test, on_fix.stdout)
    on_candidate = run_test(CALC % candidate, explained.test, tmp_path / "candidate")
    assert "Tests run: 1,  Failures: 1" in on_candidate.stdout, (explained.test, on_candidate.stdout)
    assert "AssertionError" in on_candidate.stdout or "ComparisonFailure" in on_candidate.stdout


def test_objects_the_tests_built_are_made_field_by_field_and_a_held_object_is_read_from_its_holder():
    fix, _, first_input, fix_result, candidate_result = CASES["receiver_argument_and_held_object"]
    source = CALC % fix
    start = source.splitlines().index(fix.splitlines()[0]) + 1
    test = divergence_test(source, fix, start, start + 2, fix, first_input, fix_result, candidate_result).test
    made = [line.strip() for line in test.splitlines()]
    at = made.index(f'Calc receiver = ((Calc) {HELPER_CLASS}.make("org.demo.Calc",')
    assert made[at + 1 : at + 7] == [
        '"total", 3,',
        '"unit", new String("kg"),',
        f'"next", {HELPER_CLASS}.make("org.demo.Calc",',
        '"total", 1,',
        '"unit", new String("g"),',
        '"next", null)));',
    ]
    assert f'String u = (String) {HELPER_CLASS}.get(receiver, "unit");' in test
