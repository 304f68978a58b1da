"""Receivers in states the project's own code reached: the probe source's class instrumented as a probe job
instruments it (``CallInserter.receivers``), its methods' entries from outside the class copied
(``BehaviourProbe.entered``), and the method under probe run on them with each call's arguments
(``Derived.reached``). A method that reads only its receiver (no arguments to vary) is otherwise probed on the
states the tests happened to call it in. Real javac and java, the one-call harness of ``test_observable_state``."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    HARNESS,
    compared,
    probe,
    run_harness,
    runner,
)

pytestmark = pytest.mark.slow

# the class file instrumented before any of it is loaded, as Main does to a probe job's compiled probe source
INSTRUMENTING = HARNESS.replace(
    "    public static void main(String[] args) throws Exception {\n",
    """    public static void main(String[] args) throws Exception {
        java.nio.file.Path holder = java.nio.file.Paths.get(args[1], "h", "Holder.class");
        CallInserter.Result r = CallInserter.receivers(
                java.util.Map.of("h.Holder", java.nio.file.Files.readAllBytes(holder)));
        java.nio.file.Files.write(holder, r.classes.get("h.Holder"));
        entries = r.methods;
        System.out.println("instrumented\\t" + r.instrumented);
""",
)
FIX = """public int answer() {
    return count >= 2 ? 1 : 0;
}"""
# right on every state the tests call it in (0 and 2), wrong from 3 on
OVERFIT = FIX.replace("count >= 2", "count == 2")
RAISING = """
    public void raise() {
        count++;
    }

    public void raiseTwice() {
        raise();
        raise();
    }
"""


def probe_instrumented(
    runner, tmp_path, fix: str, candidate: str, call: str, members: str
) -> tuple[int, observations.ProbeRun]:
    """``call`` probed with the probe source's class instrumented as a job instruments it: how many of its methods
    got the call of ``entered``, and the probe."""
    done = run_harness(runner, tmp_path, fix, candidate, call, members, harness=INSTRUMENTING)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0][0] == "instrumented" and rows[-1][0] == "BEHAVIOUREND", done.stdout
    return int(rows[0][1]), compared(
        observations.read([r[1:] for r in rows[1:-1] if r[0] == "BEHAVIOUR"], rows[-1][1:])
    )


def _probe(runner, tmp_path, candidate: str, call: str) -> observations.ProbeRun:
    instrumented, run = probe_instrumented(runner, tmp_path, FIX, candidate, call, RAISING)
    assert instrumented == 4  # raise, raiseTwice, count() and the constructor: not the wrapper or the reference
    return run


def _state(count: int) -> str:
    return f"this=h.Holder{{count={count},spare=null,visible=0,limits=int[2]{{1,2}}}}"


def reached(run: observations.ProbeRun) -> list[str]:
    return [o.input for o in run.observations if o.origin is observations.Origin.DERIVED]


def test_a_state_the_tests_passed_through_but_never_called_the_method_in_is_probed(runner, tmp_path):
    # entries 1, 2 and 4 of raise() are kept (counts 0, 1, 3); the method is called once, on a new Holder (0)
    call = "h.Holder a = new h.Holder(); a.raise(); a.raise(); a.raise(); a.raise(); new h.Holder().answer()"
    run = _probe(runner, tmp_path, OVERFIT, call)
    assert not run.error and run.calls == 1, run
    assert sorted(reached(run)) == [_state(1), _state(3)], run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert [o.input for o in differing] == [_state(3)], run
    assert "return=1" in differing[0].reference and "return=0" in differing[0].candidate


def test_the_fix_beside_itself_agrees_on_every_reached_state(runner, tmp_path):
    call = "h.Holder a = new h.Holder(); a.raise(); a.raise(); a.raise(); a.raise(); new h.Holder().answer()"
    run = _probe(runner, tmp_path, FIX, call)
    assert not run.error and len(reached(run)) == 2, run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run


def test_a_state_met_inside_the_class_s_own_method_is_not_kept(runner, tmp_path):
    # raiseTwice's inner raise() calls come from the class itself (count 1 there: mid-update, as far as the
    # probe can tell); a candidate right on 0 and 2 and wrong on 1 is not told apart by a state no caller saw
    inner = FIX.replace("count >= 2", "count >= 1")
    call = "h.Holder a = new h.Holder(); a.raiseTwice(); a.raiseTwice(); new h.Holder().answer()"
    run = _probe(runner, tmp_path, inner, call)
    assert not run.error, run
    assert reached(run) == [_state(2)], run  # raiseTwice's second entry, from outside
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run


def test_without_the_instrumentation_only_the_call_s_own_state_is_probed(runner, tmp_path):
    # the same run with the plain harness: the overfitting candidate passes as the fix (what this closes)
    call = "h.Holder a = new h.Holder(); a.raise(); a.raise(); a.raise(); a.raise(); new h.Holder().answer()"
    run = probe(runner, tmp_path, OVERFIT, FIX, call, RAISING)
    assert not run.error and run.calls == 1 and not reached(run), run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run


def test_a_call_is_run_on_the_states_its_own_test_class_reached_only(runner, tmp_path):
    # a candidate's probe runs only the test classes that called the method: a state another class reached in the
    # fix's own probe would be an input the candidate's probe never makes (and the label not-probed)
    call = (
        "h.Holder a = new h.Holder(); a.raise(); a.raise(); a.raise(); a.raise(); "
        'BehaviourProbe.watch(Thread.currentThread(), "h.OtherTest"); new h.Holder().answer()'
    )
    run = _probe(runner, tmp_path, OVERFIT, call)
    assert not run.error and run.calls == 1 and not reached(run), run
