"""``Ulps.alike``: two outcomes that differ only in doubles a few units in the last place apart are the same behaviour
(RepairBench's Math-2 answers compute ``n * m / N`` whole where the fix divides first); strings, integers, floats,
names and infinities are compared exactly. Real javac and java on the runner's own class."""

from __future__ import annotations

import subprocess

import pytest

from defects4j_adapter.jvm.runner import SOURCES
from tests.helpers.javac import JDKS, run_javac

PAIRS = [
    # Math-2's: the fix's mean and an answer's one ulp apart, on a receiver a constructor built
    ("return=49.8212358385534, this=D{n=50}", "return=49.82123583855339, this=D{n=50}", True),
    ("return=double[2]{0.1,1.0E-14}", "return=double[2]{0.10000000000000002,1.0000000000000003E-14}", True),
    ("return=-0.0", "return=0.0", True),
    # five ulps, a real difference, an integer, a float, a string's digits, infinity: exact
    ("return=1.0", "return=1.0000000000000011", False),
    ("return=0.0011296487609001097", "return=0.0011296487609", False),
    ("return=3", "return=4", False),
    ("return=2.5f", "return=2.5000002f", False),
    ('return="0.1"', 'return="0.10000000000000002"', False),
    ("return=1.7976931348623157E308", "return=Infinity", False),
    ("return=1.0, this=D{n=50}", "return=1.0, this=D{n=51}", False),
    ("return=1.0", "throws java.lang.ArithmeticException=null", False),
    # long strings (escapes among them) read without a pattern's recursion: no stack overflow
    ('return="' + "\\u00e9" * 4000 + '"...(9000), x=0.1', 'return="' + "\\u00e9" * 4000 + '"...(9000), x=0.1', True),
    ('return="' + "a" * 20000 + '"(20001), x=0.1', 'return="' + "a" * 20000 + '"(20001), x=0.10000000000000002', True),
]

HARNESS = """package nl2fix.runner;

public final class UlpsHarness {
    public static void main(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            System.out.println(Ulps.alike(args[i], args[i + 1]));
        }
    }
}
"""


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_doubles_a_few_ulps_apart_read_alike_and_nothing_else_does(tmp_path, java):
    classes = tmp_path / "classes"
    sources = {
        "nl2fix/runner/Ulps.java": (SOURCES / "nl2fix" / "runner" / "Ulps.java").read_text(encoding="utf-8"),
        "nl2fix/runner/UlpsHarness.java": HARNESS,
    }
    made = run_javac(sources, classes, "--release", "11")
    assert made.returncode == 0, made.stderr
    args = [text for a, b, _ in PAIRS for text in (a, b)]
    done = subprocess.run(
        [str(java), "-cp", str(classes), "nl2fix.runner.UlpsHarness", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(alike).lower() for _, _, alike in PAIRS]


def test_the_runner_and_the_harness_pass_over_the_same_test_assertions():
    # a row the runner takes as deciding must be one the harness counts: both skip the fix failing a test's assertion
    from nl2fix.validation.behaviour import TEST_ASSERTIONS

    probe = (SOURCES / "nl2fix" / "runner" / "BehaviourProbe.java").read_text(encoding="utf-8")
    listed = probe.split("TEST_ASSERTIONS = List.of(", 1)[1].split(");", 1)[0]
    assert sorted(s.strip().strip('"') for s in listed.replace("\n", " ").split(",")) == sorted(TEST_ASSERTIONS)
