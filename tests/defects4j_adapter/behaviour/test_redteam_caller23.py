"""Red team 23 against caller inputs (``BehaviourProbe.Session.probeCaller``, ``BehaviourProbe.entered`` and
``CallInserter.receivers``), each attack run for real (the runner's probe in a plain JVM, the probe source's class
instrumented as a probe job instruments it) and asserting the honest outcome:

- ``CallInserter`` moves the first stack map frame's offset but not the ``Uninitialized(offset)`` entries of any
  frame: a non-private instance method that builds an object from a conditional argument (``new StringBuilder(big ?
  "a" : "b")``) makes the instrumented class fail to load (``ClassFormatError``), and with it every test of the class.
- ``probeCaller`` invokes the caller's ``Method`` without ``setAccessible``: for a package-private or protected
  caller (what a project's tests in its package call) the reference's side throws ``IllegalAccessException`` on every
  input while the candidate's twin runs, so no caller input is ever compared and the overfitting candidate caller
  inputs exist to catch is ``same-behaviour``.
- The call a caller input is made of is copied only at a thread's 1st, 2nd, 4th, 8th ... entry (the sampling of
  receiver states): a test that calls any two of the class's methods before the caller gets no caller input at all.
- The reference's runs of the caller on copies change the tests' own objects held by the class's static fields
  (``restore`` puts the field's reference back, not its contents), and a candidate's job runs the reference once on
  the inputs the fix's own probe found steady where that probe ran it twice: a later input that reads that state
  drifts, and the fix beside itself ``diverges``."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label, passed_over, settled, stable_inputs
from tests.defects4j_adapter.behaviour.test_caller_calls import FIX, OVERFIT, SOLVE, SOLVING
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    compared,
    java_map,
    java_set,
    run_harness,
    runner,
)
from tests.defects4j_adapter.behaviour.test_reached_states import INSTRUMENTING, probe_instrumented

pytestmark = pytest.mark.slow


def callers(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.origin is observations.Origin.CALLER]


def probe_with_test(
    runner,
    tmp_path,
    fix: str,
    candidate: str,
    members: str,
    test: str,
    skip=frozenset(),
    steady=None,
    sources: dict[str, str] | None = None,
) -> observations.ProbeRun:
    """``probe_instrumented`` with the test's statements in a class of the class's own package (``h.HolderTest``,
    whose ``run()`` the harness calls), as a project's tests are: package-private and protected members are in its
    reach. ``skip`` and ``steady``: what a candidate's job is given from the fix's own probe; ``sources``: more of the
    project's classes beside the probed class."""
    harness = INSTRUMENTING.replace(
        "java.util.Set.of(), java.util.Map.of(), entries",
        f"{java_set(skip)}, {java_map(steady or {})}, entries",
    )
    holder_test = (
        f"package h;\n\npublic class HolderTest {{\n    public static void run() {{\n        {test}\n    }}\n}}\n"
    )
    done = run_harness(
        runner,
        tmp_path,
        fix,
        candidate,
        "h.HolderTest.run()",
        members,
        harness=harness,
        sources={"h/HolderTest.java": holder_test, **(sources or {})},
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0][0] == "instrumented" and rows[-1][0] == "BEHAVIOUREND", done.stdout
    return compared(observations.read([r[1:] for r in rows[1:-1] if r[0] == "BEHAVIOUR"], rows[-1][1:]))


# --- 1. the rewriter leaves Uninitialized(offset) stack map entries where they were --------------------------------

DESCRIBING = """
    private int lo;

    public String describe(boolean big) {
        lo = big ? 5 : 1;
        return new StringBuilder(big ? "big " : "small ").append(span()).toString();
    }
"""
SPAN = """public int span() {
    return lo > 3 ? 2 : 1;
}"""


def test_a_caller_that_builds_an_object_from_a_conditional_still_loads_once_instrumented(runner, tmp_path):
    # javac writes a frame at the join of the conditional with Uninitialized(offset of the `new`) on its stack: an
    # absolute offset, which the 4-byte-aligned prefix moves like the exception table's and the first frame's
    instrumented, run = probe_instrumented(
        runner, tmp_path, SPAN, SPAN, "h.Holder a = new h.Holder(); a.describe(true)", DESCRIBING
    )
    assert instrumented == 3 and not run.error, run  # with the constructor
    assert {o.caller for o in callers(run)} == {"describe(boolean)"}, run


# --- 2. a caller that is not public is invoked without setAccessible ------------------------------------------------

CALL = "h.Holder a = new h.Holder(); a.solve(0, 10L, 0.5);"


@pytest.mark.parametrize("access", ["", "protected "])
def test_a_caller_that_is_not_public_reveals_the_overfitting_candidate(runner, tmp_path, access):
    members = SOLVING.replace("public int solve(", access + "int solve(")
    baseline = probe_with_test(runner, tmp_path / "fix", FIX, FIX, members, CALL)
    run = probe_with_test(runner, tmp_path / "candidate", FIX, OVERFIT, members, CALL)
    # each caller row of the fix's own probe: the reference "throws java.lang.IllegalAccessException", the twin returns
    assert callers(baseline) and not any("IllegalAccessException" in o.reference for o in callers(baseline)), baseline
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.DIVERGES and record.first_call == SOLVE, record


# --- 3. the caller's call is copied at a thread's 1st, 2nd, 4th ... entry only -------------------------------------


def test_a_caller_the_test_calls_after_two_other_methods_reveals_the_overfitting_candidate(runner, tmp_path):
    # count() twice (entries 1 and 2), then solve (entry 3: not copied, so span's call has no caller to run again)
    call = "h.Holder a = new h.Holder(); a.count(); a.count(); a.solve(0, 10L, 0.5)"
    _, baseline = probe_instrumented(runner, tmp_path / "fix", FIX, FIX, call, SOLVING)
    _, run = probe_instrumented(runner, tmp_path / "candidate", FIX, OVERFIT, call, SOLVING)
    assert {o.caller for o in callers(run)} == {SOLVE}, run
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.DIVERGES and record.first_call == SOLVE, record


# --- 4. the reference's runs of the caller reach the tests' static objects, fewer times in a candidate's job -------

LOGGING = """
    private static java.util.List<Integer> log = new java.util.ArrayList<>();
    private int lo;
    private boolean checking;

    public int solve(int from) {
        log.add(from);
        lo = from;
        return span();
    }

    public void check() {
        checking = true;
    }

    private int logged() {
        return log.size();
    }
"""
LOGGED = """public int span() {
    return checking ? logged() : lo > 3 ? 2 : 1;
}"""


def test_the_fix_beside_itself_does_not_diverge_after_a_caller_that_appends_to_a_static_list(runner, tmp_path):
    # solve's caller inputs append to the class's static list on the reference's side (the tests' own list: the
    # field is put back, its contents are not); span() on a checking receiver then reads its size. The fix's own
    # probe ran the reference twice on each (17), a candidate's job once on the steady ones (9): "drifted"
    test = "h.Holder a = new h.Holder(); a.solve(0); a.check(); a.span();"
    passes = iter(range(10))
    baseline = settled(
        probe_with_test(runner, tmp_path / "fix", LOGGED, LOGGED, LOGGING, test),
        lambda tests, skip: probe_with_test(
            runner, tmp_path / f"settle{next(passes)}", LOGGED, LOGGED, LOGGING, test, skip=skip
        ),
    )
    assert stable_inputs(baseline), baseline
    run = probe_with_test(
        runner,
        tmp_path / "again",
        LOGGED,
        LOGGED,
        LOGGING,
        test,
        skip=passed_over(baseline),
        steady=stable_inputs(baseline),
    )
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.SAME, record
