"""Red team round 20, on the fix's body stopped alone on a derived input (``BehaviourProbe.referenceOverdue``,
``stoppingReference``, ``forgetReferenceStop``, ``REFERENCE_PACE``; ``TestExecutor.watch``), the rows kept for inputs on
which the fix fails unexpectedly (``NO_EVIDENCE``, ``passed_over``) and the ``not-probed`` label of a fix that no
longer ends beside a candidate (``behaviour.label``'s ``stalled``), at 9512d84. Real probes: the example benchmark's
Textkit-1 through the fast engine under bubblewrap (``bug_runs``/``fast`` of ``tests/validation/test_behaviour.py``;
variants of its fix made with ``TEXTKIT_FIX.replace(SIGNATURE, ...)``), and the runner's probe on a tiny class in a
plain JVM (``run_harness`` of ``test_observable_state.py``) where no watchdog is needed.
``tests/fixtures/redteam/found20/README.md`` has the runs, the rows and what held.

Each test asserts the safe outcome, so the ones that show a hole fail while it is open (at 9512d84):

- ``test_a_correct_candidate_is_not_blamed_for_jdk_wide_state_the_fix_left_on_a_passed_over_input``
  (``fails_unexpectedly``, ``does_not_end``) and ``..._harness``: the fix's own probe runs the fix on an input it then
  gives no evidence on (an index out of range; a loop the new pace stops), and what the fix set JVM-wide there (the
  default locale) shapes every later outcome of that probe, its twin's too. A candidate's probe passes that input
  over, never sets it, and the fix's later outcomes "drift": a candidate that is the fix itself ``diverges``, "the
  candidate changed state the fix reads". Both were ``same-behaviour`` at ca5d0ec (before the change: that input gave
  no row, so candidates' probes ran it too; or the test ended there).
- ``test_a_correct_candidate_is_not_blamed_when_the_fix_takes_its_stop_as_an_answer``: a fix that never throws
  (``catch (Throwable t) { return INDEX_NOT_FOUND; }``) and is slow (1 s) on two derived inputs of one test. In its own
  probe the first is stopped, the fix returns -1, and the stop's mark stays on the thread, so the second runs unpaced
  and is steady (0). A candidate's probe passes the first over; the second is stopped there, -1: ``diverges``.
  ``same-behaviour`` at ca5d0ec with the fix slow for 0.3 s.

Held, kept as cheap tests: state another project class keeps costs inputs, not a label (the twin's copy of that class
makes the later inputs unsteady); an overfitting candidate that throws ``ThreadDeath`` where it differs, or leaves
state that stalls or fails the fix there, is never ``same-behaviour``; a candidate that stalls the fix on every input
meets its budget.

Run: ``PYTHONPATH=. python3 -m pytest -q -p no:cacheprovider -s \
    tests/defects4j_adapter/behaviour/test_redteam_stop20.py``
"""

from __future__ import annotations

import itertools

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.observations import NO_EVIDENCE
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import Prober, label, passed_over, settled, stable_inputs
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401
    HARNESS,
    java_map,
    java_set,
    run_harness,
    runner,
)
from tests.validation.test_behaviour import HOLDOUT, SIGNATURE, TEXTKIT_FIX, bug_runs, fast  # noqa: F401

pytestmark = pytest.mark.slow


def _show(name, baseline, run, record):
    print(f"\n== {name}: {record.label.value} {record.first_input!r}")
    print("   fix:", record.reference_result, "| candidate:", record.candidate_result, "| note:", record.note)
    print(
        f"   fix's own probe: {len(baseline.observations)} rows, {len(stable_inputs(baseline))} steady, "
        f"{len(passed_over(baseline))} passed over; candidate's: {len(run.observations)} rows, {run.passed_over} "
        f"passed over, budget met {run.budget_met}, {run.cpu_seconds:.2f} CPU-s {run.error}"
    )
    for who, probe in (("own", baseline), ("cand", run)):
        for o in probe.observations:
            if o.input.startswith('arg0="",') or o.reference_timed_out or not o.repeatable:
                print(
                    f"   {who:4} {o.test.rsplit('.', 1)[-1]:18} {o.input[:34]:34} | {o.reference[:24]:24} | "
                    f"{o.candidate[:24]:24} | {o.reference_again_digest[:12]}"
                )


def _probe(fast, ws, fix, candidate):
    """The fix's own probe (the yardstick, ``Prober.baseline``), then ``candidate``'s, as a validation runs them."""
    baseline = Prober(fast, ws, fix, developer_fix=True).baseline()
    run = fast.probe(
        ws,
        fix,
        candidate,
        tests=frozenset(baseline.tests),
        skip=passed_over(baseline),
        steady=stable_inputs(baseline),
    )
    return baseline, run, label(baseline, run, developer_fix=True)


def _the_fix_reworded(fix: str) -> str:
    """A correct candidate: the fix itself, a comment reworded (another text, so its probe is a candidate's)."""
    assert "walk the common part" in fix
    return fix.replace("walk the common part", "the common part")


# --- broke: JDK-wide state the fix leaves on an input that candidates' probes pass over ---------------------------

# "" beside a five-character string is a derived input (the tests' "abcde"/"abxyz" with its first string emptied). The
# fix sets the default locale there, as sloppy code does around a locale-sensitive step (set, work, set back: no
# finally), and the step fails or does not end. On "" beside another string it reads the locale (a stand-in for a
# locale-sensitive answer)
NOTES_JVM_WIDE = (
    SIGNATURE
    + """        if (a != null && a.length() == 0 && b != null && b.length() == 5) {
            final java.util.Locale saved = java.util.Locale.getDefault();
            java.util.Locale.setDefault(java.util.Locale.CANADA);
%s            java.util.Locale.setDefault(saved);
            return at;
        }
        if (a != null && a.length() == 0 && b != null && b.length() > 0
                && java.util.Locale.getDefault() == java.util.Locale.CANADA) {
            return -2;
        }
"""
)
LEAVES_STATE = {
    # an index out of range: no evidence, a NO_EVIDENCE row that candidates' probes pass over (change 2)
    "fails_unexpectedly": TEXTKIT_FIX.replace(
        SIGNATURE, NOTES_JVM_WIDE % "            final int at = a.charAt(b.length());\n"
    ),
    # a loop: stopped alone at 0.2 CPU-s, a timeout row, the test goes on (change 1)
    "does_not_end": TEXTKIT_FIX.replace(
        SIGNATURE,
        NOTES_JVM_WIDE
        % (
            "            while (a.length() == 0) {\n                Thread.onSpinWait();\n            }\n"
            "            final int at = 0;\n"
        ),
    ),
}


@pytest.mark.sandbox
@pytest.mark.parametrize("name", list(LEAVES_STATE))
def test_a_correct_candidate_is_not_blamed_for_jdk_wide_state_the_fix_left_on_a_passed_over_input(bug_runs, fast, name):
    fix = LEAVES_STATE[name]
    baseline, run, record = _probe(fast, bug_runs("Textkit-1").ws, fix, _the_fix_reworded(fix))
    _show(name, baseline, run, record)
    # the setting: the fix's own probe gave no evidence on "" beside "abxyz", and candidates' probes pass it over
    stopped = [o for o in baseline.observations if o.input == 'arg0="", arg1="abxyz"']
    assert stopped and stopped[0].input_digest in passed_over(baseline), stopped
    assert stopped[0].reference_again_digest == NO_EVIDENCE or stopped[0].reference_timed_out, stopped
    assert not run.error and not run.budget_met, run
    # safe: the fix's own body, reworded, is not told apart from the fix
    assert record.label is not Behaviour.DIVERGES, record


MEMO = "    static final class Memo {\n        static int calls;\n    }\n"
# the fix of a tiny class, which on a step of 0 notes it, then fails as no caller is meant to meet (no evidence); its
# answer's length is what it noted: in another class of the project (``Memo``), or JVM-wide (the default locale)
IN_ANOTHER_CLASS = """public int[] next(int step) {
    if (step == 0) {
        Memo.calls++;
        throw new ArithmeticException("no step");
    }
    count += step;
    return new int[Memo.calls];
}"""
JDK_WIDE = """public int[] next(int step) {
    if (step == 0) {
        java.util.Locale.setDefault(java.util.Locale.CANADA);
        throw new ArithmeticException("no step");
    }
    count += step;
    return new int[java.util.Locale.getDefault() == java.util.Locale.CANADA ? 1 : 0];
}"""
TWO_CALLS = "new h.Holder().next(3); new h.Holder().next(5)"
"""Two calls: the second's inputs all run after the first's step of 0, whatever the order within a call."""


def _harness_probe(runner, tmp_path, fix, skip=frozenset(), steady=None) -> observations.ProbeRun:
    """The runner's probe of ``TWO_CALLS`` in a plain JVM, ``fix`` beside itself in its twin, with ``skip`` and
    ``steady`` as a candidate's probe is given them."""

    harness = HARNESS.replace(
        "true, java.util.Set.of(), java.util.Map.of()", f"true, {java_set(skip)}, {java_map(steady or {})}"
    )
    done = run_harness(runner, tmp_path, fix, fix, TWO_CALLS, MEMO, harness=harness)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows and rows[-1][0] == "BEHAVIOUREND", done.stdout
    return observations.read([r[1:] for r in rows[:-1]], rows[-1][1:])


def _harness_label(runner, tmp_path, fix):
    own = _harness_probe(runner, tmp_path / "own", fix)
    assert any(o.reference_again_digest == NO_EVIDENCE for o in own.observations), own
    # taken again as a candidate's probe meets it, as Prober.baseline does
    passes = itertools.count()
    baseline = settled(own, lambda tests, skip: _harness_probe(runner, tmp_path / f"again{next(passes)}", fix, skip))
    run = _harness_probe(runner, tmp_path / "candidate", fix, passed_over(baseline), stable_inputs(baseline))
    assert run.passed_over >= 1, run
    record = label(baseline, run, developer_fix=True)
    _show("harness", baseline, run, record)
    return baseline, run, record


def test_a_correct_candidate_is_not_blamed_for_jdk_wide_state_the_fix_left_on_a_passed_over_input_harness(
    runner, tmp_path
):
    # the same hole without a sandbox or a watchdog, in seconds: the fix beside itself, twice (its own probe, then a
    # candidate's with the no-evidence input passed over)
    _, _, record = _harness_label(runner, tmp_path, JDK_WIDE)
    assert record.label is not Behaviour.DIVERGES, record


def test_held_state_another_project_class_kept_costs_inputs_not_a_label(runner, tmp_path):
    # held: the twin has its own Memo, which the no-evidence input never reached; in the fix's first probe the inputs
    # after it (in that job's order) differ from the twin's and are not steady. Since the fix's probe is taken again
    # with the no-evidence input passed over, as candidates meet it, they may count again: fewer inputs lost, never a
    # label. Where the no-evidence input runs first in its job (the order is drawn per job), every later input is
    # unsteady in the fix's first probe, is passed over in the second too, and the candidate is not-probed: inputs lost
    baseline, run, record = _harness_label(runner, tmp_path, IN_ANOTHER_CLASS)
    assert record.label is Behaviour.SAME or record.label is Behaviour.NOT_PROBED and not record.inputs, record
    assert record.inputs <= len(baseline.observations) - 1, record


# --- broke: a stop the fix takes as an answer ---------------------------------------------------------------------

SLOW = """      try {
        if (a != null && a.length() == 0 && b != null && b.length() == 3 && b.charAt(0) == 97 && b.charAt(2) != 100) {
            final long until = System.nanoTime() + %d_000_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
"""


def takes_stops(millis: int) -> str:
    """The fix, slow (``millis`` ms) on "" beside "abx" and "abc" (derived inputs of testCommonPrefix's first two calls;
    ``b.charAt(0) == 97``: no literal of the fix's becomes an input), and, as defensive code does, never throwing: what
    goes wrong is "no difference"."""
    return TEXTKIT_FIX.replace(SIGNATURE, SIGNATURE + SLOW % millis).replace(
        "        return shorter;\n    }",
        "        return shorter;\n      } catch (Throwable t) {\n        return INDEX_NOT_FOUND;\n      }\n    }",
    )


@pytest.mark.sandbox
def test_a_correct_candidate_is_not_blamed_when_the_fix_takes_its_stop_as_an_answer(bug_runs, fast):
    fix = takes_stops(1000)
    baseline, run, record = _probe(fast, bug_runs("Textkit-1").ws, fix, _the_fix_reworded(fix))
    _show("takes its stop", baseline, run, record)
    own = {o.input: o for o in baseline.observations}
    # the setting: in its own probe the fix's first slow body was stopped and took the stop as an answer (-1): no
    # answer, a timeout; its second slow body is stopped alike, in the fix's own probe as in the candidate's
    first, second = own['arg0="", arg1="abx"'], own['arg0="", arg1="abc"']
    assert first.reference_timed_out and not first.repeatable, first
    assert second.reference_timed_out and second.input_digest in passed_over(baseline), second
    # safe: the fix's own body, reworded, is not told apart from the fix
    assert record.label is not Behaviour.DIVERGES, record


# --- held: an overfitting candidate hiding where it differs -------------------------------------------------------

OVERFITS = (HOLDOUT / "Textkit-1" / "equal_length_check_removed.diverges.java").read_text(encoding="utf-8")
"""Issue 34's miss: it differs from the fix only on two equal but distinct strings (the fix -1, it their length)."""
WHERE_IT_DIFFERS = "a != b && a != null && b != null && a.toString().equals(b.toString())"
LOWERS_PRIORITY = OVERFITS.replace(
    SIGNATURE, SIGNATURE + "        Thread.currentThread().setPriority(Thread.MIN_PRIORITY);\n"
)
"""The overfitting candidate, leaving its thread at the least priority (not put back after it): state the fix reads."""


LOOP = "            for (;;) {\n                Thread.onSpinWait();\n            }\n"


def _fix_reading_priority(then: str) -> str:
    """The fix, which (a stand-in for one reading state a candidate can leave) does ``then`` where the two strings are
    equal but distinct, the candidate's one difference, when its thread has the least priority."""
    return TEXTKIT_FIX.replace(
        SIGNATURE,
        SIGNATURE
        + f"        if ({WHERE_IT_DIFFERS} && Thread.currentThread().getPriority() == Thread.MIN_PRIORITY) {{\n"
        + then,
    )


HIDES = {
    # it ends its own body with the runner's stop signal where it would differ: a timeout row, diverges
    "throws_thread_death": (
        TEXTKIT_FIX,
        OVERFITS.replace(
            SIGNATURE,
            SIGNATURE + f"        if ({WHERE_IT_DIFFERS}) {{\n" + "            throw new ThreadDeath();\n        }\n",
        ),
        Behaviour.DIVERGES,
    ),
    # the fix no longer ends there: stopped alone, the test goes on; not-probed ("did not end beside this candidate")
    "stalls_the_fix": (
        _fix_reading_priority(LOOP + "        }\n"),
        LOWERS_PRIORITY,
        Behaviour.NOT_PROBED,
    ),
    # the fix fails there as no caller is meant to meet: a steady input, its row marked no-evidence; not-probed ("failed
    # unexpectedly beside this candidate": the candidate's doing, or a JVM out of stack, which would not be)
    "fails_the_fix": (
        _fix_reading_priority("            throw new NullPointerException();\n        }\n"),
        LOWERS_PRIORITY,
        Behaviour.NOT_PROBED,
    ),
}


@pytest.mark.sandbox
@pytest.mark.parametrize("name", list(HIDES))
def test_held_an_overfitting_candidate_cannot_hide_where_it_differs(bug_runs, fast, name):
    fix, candidate, expected = HIDES[name]
    baseline, run, record = _probe(fast, bug_runs("Textkit-1").ws, fix, candidate)
    _show(name, baseline, run, record)
    assert record.label is not Behaviour.SAME, record
    assert record.label is expected, record


@pytest.mark.sandbox
def test_held_a_candidate_that_stalls_every_later_input_meets_its_budget(bug_runs, fast):
    # the fix spins whenever its thread has the least priority: every input after the candidate's first call is
    # stopped alone at 0.2 CPU-s, each resetting the test's clock; the probe's budget still ends it
    fix = TEXTKIT_FIX.replace(
        SIGNATURE,
        SIGNATURE
        + "        if (Thread.currentThread().getPriority() == Thread.MIN_PRIORITY) {\n"
        + "            for (;;) {\n                Thread.onSpinWait();\n            }\n        }\n",
    )
    baseline, run, record = _probe(fast, bug_runs("Textkit-1").ws, fix, LOWERS_PRIORITY)
    _show("stalls every input", baseline, run, record)
    assert record.label is Behaviour.NOT_PROBED, record
    # bounded by the budget (the stops count as probing) and, at most, one test's limit (5 s) after it
    print("   the candidate's probe:", run.cpu_seconds, "CPU-s")
    assert run.budget_met and run.cpu_seconds < 10.0, run


# --- the lead's own attack after the round ------------------------------------------------------------------------

LOOPS_TILL_STOPPED = OVERFITS.replace(
    SIGNATURE,
    SIGNATURE
    + f"        if ({WHERE_IT_DIFFERS}) {{\n"
    + "            try {\n"
    + "                for (;;) {\n                    Thread.onSpinWait();\n                }\n"
    + "            } catch (ThreadDeath stopped) {\n"
    + "                return INDEX_NOT_FOUND;\n"
    + "            }\n"
    + "        }\n",
)
"""The overfitting candidate, which where it differs loops instead and, once the probe's watchdog stops it, answers
what the fix answers there (-1): outside the probe it never ends on two equal but distinct strings."""


@pytest.mark.sandbox
def test_a_candidate_that_answers_as_the_fix_only_once_stopped_diverges(bug_runs, fast):
    # a body stopped as overdue that catches the stop and returns has timed out all the same: its row says timeout
    # where the fix answered, and the candidate diverges (it answered -1 and passed as the fix's equal before)
    baseline, run, record = _probe(fast, bug_runs("Textkit-1").ws, TEXTKIT_FIX, LOOPS_TILL_STOPPED)
    _show("answers once stopped", baseline, run, record)
    assert record.label is Behaviour.DIVERGES, record
    assert record.candidate_result == "timeout" and record.reference_result.startswith("return=-1"), record
