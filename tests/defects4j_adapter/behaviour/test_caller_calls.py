"""The tests' calls of the class's other methods that led to the method under probe, run again whole on both
versions with their arguments varied (``BehaviourProbe.Session.probeCaller``): a method that reads what another
method of its class set up from its arguments (a solver's ``doSolve`` reading the bounds ``solve`` was given) has
no arguments of its own to vary, and a receiver with a field nudged could hold a state no call of the class makes.
The probe source's class instrumented as a probe job instruments it (``CallInserter.receivers``: the receiver,
the arguments boxed and the method's number), real javac and java, the one-call harness of
``test_observable_state``."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.junit import divergence_test
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    CLASS,
    probe,
    runner,
)
from tests.defects4j_adapter.behaviour.test_reached_states import probe_instrumented

pytestmark = pytest.mark.slow

# what solve() sets up, span() reads: the tests solve (0, 10) only
SOLVING = """
    private int lo;
    private long hi;
    private double scale = 1.0;

    public int solve(int from, long to, double by) {
        lo = from;
        hi = to;
        scale = by;
        return span();
    }
"""
FIX = """public int span() {
    return hi - lo > 10 ? 2 : hi > lo ? 1 : 0;
}"""
# right wherever the tests call it (a span of 10), wrong on a span past 10, which only solve's arguments reach
OVERFIT = FIX.replace("hi - lo > 10 ? 2 : ", "")
CALL = "h.Holder a = new h.Holder(); a.solve(0, 10L, 0.5)"
SOLVE = "solve(int,long,double)"


def callers(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.origin is observations.Origin.CALLER]


def test_a_divergence_only_the_caller_s_arguments_reach_is_found(runner, tmp_path):
    instrumented, run = probe_instrumented(runner, tmp_path, FIX, OVERFIT, CALL, SOLVING)
    # solve, count() and the constructor; not the wrapper or the reference
    assert instrumented == 3 and not run.error, run
    assert {o.caller for o in callers(run)} == {SOLVE}, run
    # the test's own call of solve, as it began (the receiver before solve set it up), among them
    assert any(o.input == "arg0=0, arg1=10L, arg2=0.5, this=" + _holder(0, 0, 1.0) for o in callers(run)), run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert differing and all(o.origin is observations.Origin.CALLER for o in differing), run
    assert all("return=2" in o.reference and "return=1" in o.candidate for o in differing), differing
    # the method's own call (the receiver solve left) is no difference: what the tree before saw alone
    own = [o for o in run.observations if o.origin is observations.Origin.CALL]
    assert own and all(o.candidate_digest == o.reference_digest for o in own), run
    _, baseline = probe_instrumented(runner, tmp_path / "fix", FIX, FIX, CALL, SOLVING)
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.DIVERGES and record.first_call == SOLVE, record
    assert record.shown_input.startswith(f"a call of {SOLVE} on arg0="), record.shown_input


def test_the_fix_beside_itself_agrees_on_every_call_of_the_caller(runner, tmp_path):
    _, run = probe_instrumented(runner, tmp_path, FIX, FIX, CALL, SOLVING)
    assert not run.error and len(callers(run)) > 3, run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run
    assert label(run, run, developer_fix=True).label is Behaviour.SAME


def test_a_caller_s_input_is_told_apart_from_the_method_s_own_by_its_digest(runner, tmp_path):
    _, run = probe_instrumented(runner, tmp_path, FIX, FIX, CALL, SOLVING)
    digests = [o.input_digest for o in run.observations]
    assert len(digests) == len(set(digests)), run
    # the same receiver as the method's own call would read the same; a caller's digest is of the call of solve
    for o in callers(run):
        assert o.input_digest not in {x.input_digest for x in run.observations if x is not o}


def test_without_the_instrumentation_the_overfitting_candidate_passes_as_the_fix(runner, tmp_path):
    # what this closes: the plain harness (no entries) probes span() on the state solve left, and nothing else
    run = probe(runner, tmp_path, OVERFIT, FIX, CALL, SOLVING)
    assert not run.error and not callers(run), run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run


def test_a_method_the_tests_call_directly_has_no_caller(runner, tmp_path):
    _, run = probe_instrumented(runner, tmp_path, FIX, OVERFIT, "h.Holder a = new h.Holder(); a.span()", SOLVING)
    assert not run.error and run.calls == 1 and not callers(run), run


def test_a_caller_that_returned_before_the_method_was_called_is_not_run_again(runner, tmp_path):
    # solve() ran (and called span), then the test calls count() and span() itself: the call of span() after count()
    # is none of solve's, and count() called from outside is the thread's last entry
    call = "h.Holder a = new h.Holder(); a.solve(0, 10L, 0.5); a.count(); a.span()"
    _, run = probe_instrumented(runner, tmp_path, FIX, OVERFIT, call, SOLVING)
    assert not run.error and {o.caller for o in callers(run)} == {SOLVE}, run
    assert not any(o.caller.startswith("count(") for o in run.observations), run


def test_the_divergence_s_junit_test_calls_the_caller():
    source = CLASS % (FIX + SOLVING)
    start = source.splitlines().index("public int span() {") + 1
    explained = divergence_test(
        source,
        FIX.replace("hi - lo > 10 ? 2 : ", "hi - lo > 10 ? 3 : "),
        start,
        start + 2,
        FIX,
        "arg0=0, arg1=11L, arg2=0.5, this=" + _holder(0, 0, 1.0),
        "return=2, this=h.Holder{visible=0,lo=0,hi=11L}, arg0=0, arg1=11L, arg2=0.5",
        "return=1, this=h.Holder{visible=0,lo=0,hi=11L}, arg0=0, arg1=11L, arg2=0.5",
        SOLVE,
    )
    assert explained.test, explained.why_not
    assert f"// A call of {SOLVE}, which calls the method the candidate changes." in explained.test
    assert "receiver.solve(from, to, by)" in explained.test, explained.test
    assert "long to = 11L;" in explained.test, explained.test
    assert "public void solveAsTheDevelopersFix()" in explained.test


def test_a_caller_the_class_does_not_declare_once_gets_no_test():
    source = CLASS % (
        FIX
        + SOLVING
        + SOLVING.replace("int from, long to", "long from, long to").replace("lo = from", "lo = (int) from")
    )
    start = source.splitlines().index("public int span() {") + 1
    explained = divergence_test(source, FIX, start, start + 2, FIX, "arg0=1", "return=2", "return=1", "solve(int)")
    assert not explained.test and "solve(int)" in explained.why_not, explained


def _holder(lo: int, hi: int, scale: float) -> str:
    return f"h.Holder{{count=0,spare=null,visible=0,limits=int[2]{{1,2}},lo={lo},hi={hi}L,scale={scale}}}"
