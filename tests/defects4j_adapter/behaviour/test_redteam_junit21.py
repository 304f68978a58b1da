"""Red team 21 (by an engineer who did not write it) against the JUnit test a divergence comes with
(``defects4j_adapter/behaviour/junit.py`` at 09d85d7): a hostile candidate's outcome steering the test it is
shown by. No injection into the test's code was found (the comment's escapes held: ``test_junit_runs``); these
worked, each a test that passed on the candidate too, would not compile, or was not written:

- A, B, C: the probe shows 300 characters of each outcome around their first difference. A candidate's ``this``
  cut off (A) counted every field of the fix's as differing, and the first, equal on both, was asserted; a window
  that starts mid-outcome (B) or a fix's outcome cut before what differs (C) fell back to the return value, of a
  void method: no assertion at all.
- D, E: values compared as they print: ``null`` and ``"null"``, ``{"a, b"}`` and ``{"a", "b"}``.
- F: ``@Test(expected = X.class)`` took the candidate's subclass of X.
- G: an equal list of another class (``Arrays.asList``'s fixed-size one) passed ``assertEquals``.
- H: a class name outside ASCII (a local class of the candidate's) written raw into the comment: a build that
  reads its sources as ASCII refused the test.
- I: a parenthesis inside a quoted value (``File("a)b")``) threw the reader off: no test.
- and a candidate that never ends made a test that never ends.

Closed by the lead (``junit.py``): only labels both shown outcomes hold are compared, a window from the middle
writes no test, the fallback to the return value is for a candidate that threw or did not end; values are checked
by ``Nl2fix.check`` (arrays by their elements, a double by its bits, builders by class and text, every other value
by ``equals``) and a collection's class too; the fix's exception by its exact class; the comment writes every
character outside printable ASCII as an unread escape; the reader skips quoted strings; ``timeout = 60000`` for a
candidate that did not end. Each attack below now writes no test or one that passes on the fix and fails on the
candidate, compiled with javac and run with JUnit.

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/behaviour/test_redteam_junit21.py``
"""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.jvm.runner import junit_jars
from tests.defects4j_adapter.behaviour.test_junit_runs import run_test
from tests.helpers.javac import run_javac

SHOWN = 300
"""``BehaviourProbe.SHOWN``: the characters of an outcome a row shows."""

CALC = """package org.demo;

public class Calc {
    int total;
    String label;
    String note;

    public Calc() {
        throw new IllegalStateException("never run");
    }

%s
}
"""


def shown(text: str, other: str) -> str:
    """``BehaviourProbe.shown``: ``text`` around its first difference from ``other``."""
    at = next((i for i, (a, b) in enumerate(zip(text, other)) if a != b), min(len(text), len(other)))
    start = max(0, min(at - SHOWN // 3, len(text) - SHOWN))
    end = min(len(text), start + SHOWN)
    return ("..." if start > 0 else "") + text[start:end] + ("..." if end < len(text) else "")


L90 = "L" * 150
Z400 = "z" * 400
N400 = "n" * 400

VOID_FIX = "    public void f(int x) {\n        total += x;\n    }"

ATTACKS = {
    # A: the candidate's `this` is cut by the 300-char window (a long string in a later field): the
    # generator treats its whole `this` as unknown and asserts the receiver's FIRST field, equal on both.
    "A_candidate_this_cut_first_field_asserted": (
        VOID_FIX,
        '    public void f(int x) {\n        total += x;\n        note = "' + Z400 + '";\n    }',
        'arg0=2, this=org.demo.Calc{total=3,label="L",note="a"}',
        'return=null, this=org.demo.Calc{total=5,label="L",note="a"}, arg0=2',
        'return=null, this=org.demo.Calc{total=5,label="L",note="' + Z400 + '"}, arg0=2',
    ),
    # B: first difference past char 100 and the candidate's outcome longer than 300: its window starts
    # with "...", no label parses as `return`, so `return` "differs"; a void method: no assertion at all.
    "B_candidate_window_from_middle_no_assertion": (
        VOID_FIX,
        '    public void f(int x) {\n        total += x;\n        note = "' + Z400 + '";\n    }',
        f'arg0=2, this=org.demo.Calc{{total=3,label="{L90}",note="a"}}',
        f'return=null, this=org.demo.Calc{{total=5,label="{L90}",note="a"}}, arg0=2',
        f'return=null, this=org.demo.Calc{{total=5,label="{L90}",note="{Z400}"}}, arg0=2',
    ),
    # C: the fix's own outcome is cut inside `this`: no shown label differs, the fallback asserts the
    # return (void: nothing). A candidate picks such an input to diverge on.
    "C_reference_cut_fallback_to_return": (
        VOID_FIX,
        "    public void f(int x) {\n        total = x;\n    }",
        f'arg0=2, this=org.demo.Calc{{total=3,label="{N400}",note="a"}}',
        f'return=null, this=org.demo.Calc{{total=5,label="{N400}",note="a"}}, arg0=2',
        f'return=null, this=org.demo.Calc{{total=2,label="{N400}",note="a"}}, arg0=2',
    ),
    # D: Nl2fix.text(null) == Nl2fix.text("null"): "[null]"
    "D_same_text_null_vs_string_null": (
        "    public void f(int x) {\n        total += x;\n        note = null;\n    }",
        '    public void f(int x) {\n        total += x;\n        note = "null";\n    }',
        'arg0=2, this=org.demo.Calc{total=3,label="L",note="a"}',
        'return=null, this=org.demo.Calc{total=5,label="L",note=null}, arg0=2',
        'return=null, this=org.demo.Calc{total=5,label="L",note="null"}, arg0=2',
    ),
    # E: arrays compared by Arrays.toString: {"a, b"} and {"a", "b"} both print [a, b]
    "E_array_tostring_collision": (
        '    public static String[] f(String s) {\n        return new String[] {s + ", b"};\n    }',
        '    public static String[] f(String s) {\n        return new String[] {s, "b"};\n    }',
        'arg0="a"',
        'return=java.lang.String[1]{"a, b"}, arg0="a"',
        'return=java.lang.String[2]{"a","b"}, arg0="a"',
    ),
    # F: @Test(expected = X.class) accepts any subclass of X
    "F_expected_exception_subclass": (
        "    public static int f(String s) {\n        throw new IllegalArgumentException(s);\n    }",
        "    public static int f(String s) {\n        throw new NumberFormatException(s);\n    }",
        'arg0="a"',
        "throws java.lang.IllegalArgumentException=null",
        "throws java.lang.NumberFormatException=null",
    ),
    # G: List.equals ignores the class: a fixed-size Arrays$ArrayList equals the fix's ArrayList
    "G_collection_class_ignored": (
        "    public static java.util.List<String> f(String s) {\n"
        "        java.util.List<String> l = new java.util.ArrayList<String>();\n"
        "        l.add(s);\n        return l;\n    }",
        "    public static java.util.List<String> f(String s) {\n        return java.util.Arrays.asList(s);\n    }",
        'arg0="a"',
        'return=java.util.ArrayList[1]{"a"}, arg0="a"',
        'return=java.util.Arrays$ArrayList[1]{"a"}, arg0="a"',
    ),
}


def written(fix: str, first_input: str, fix_outcome: str, candidate_outcome: str):
    source = CALC % fix
    start = source.splitlines().index(fix.splitlines()[0]) + 1
    end = start + len(fix.splitlines()) - 1
    return divergence_test(
        source,
        fix,
        start,
        end,
        fix,
        first_input,
        shown(fix_outcome, candidate_outcome),
        shown(candidate_outcome, fix_outcome),
    )


@pytest.mark.parametrize("case", ATTACKS)
def test_a_test_written_passes_on_the_fix_and_fails_on_the_candidate(case, tmp_path):
    fix, candidate, first_input, fix_outcome, candidate_outcome = ATTACKS[case]
    explained = written(fix, first_input, fix_outcome, candidate_outcome)
    print(case, explained.why_not or explained.test)
    if not explained.test:
        assert explained.why_not
        return
    on_fix = run_test(CALC % fix, explained.test, tmp_path / "fix")
    assert "OK (1 test)" in on_fix.stdout, (explained.test, on_fix.stdout)
    on_candidate = run_test(CALC % candidate, explained.test, tmp_path / "candidate")
    assert "Tests run: 1,  Failures: 1" in on_candidate.stdout, (explained.test, on_candidate.stdout)


def test_the_attacks_that_can_be_shown_are(tmp_path):
    # an outcome cut where the candidate's differs (A), a window from its middle (B), a fix's outcome cut before
    # the difference (C): nothing shown says what to assert, so no test; the others are shown
    missing = {case for case, a in ATTACKS.items() if not written(*(a[0], *a[2:])).test}
    assert missing == {
        "A_candidate_this_cut_first_field_asserted",
        "B_candidate_window_from_middle_no_assertion",
        "C_reference_cut_fallback_to_return",
    }


STATIC = "    public static Object f(String s) {\n        return s;\n    }"


def test_a_name_outside_ascii_in_the_candidate_s_outcome_compiles_as_ascii(tmp_path):
    # the candidate's local class Ж: javac names it org.demo.Calc$1Ж, and the runner writes class names raw
    explained = written(STATIC, 'arg0="a"', 'return="a", arg0="a"', 'return=org.demo.Calc$1\u0416{}, arg0="a"')
    done = run_javac(
        {"org/demo/Calc.java": CALC % STATIC, "org/demo/CalcNl2fixDivergenceTest.java": explained.test},
        tmp_path / "classes",
        "-encoding",
        "US-ASCII",
        "-cp",
        ":".join(map(str, junit_jars())),
    )
    assert done.returncode == 0, done.stderr


def test_a_parenthesis_inside_a_quoted_value_does_not_throw_the_reader_off():
    explained = written(STATIC, 'arg0="a"', 'return="a", arg0="a"', 'return=File("a)b"), arg0="a"')
    assert explained.test and "Nl2fix.check" not in explained.test, explained


def test_a_candidate_that_does_not_end_fails_the_test_at_junit_s_limit():
    explained = written(STATIC, 'arg0="a"', 'return="a", arg0="a"', "timeout")
    assert "@org.junit.Test(timeout = 60000)" in explained.test, explained
