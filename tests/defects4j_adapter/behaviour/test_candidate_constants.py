"""The candidate's own constants as inputs (``Derived.at``, ``BehaviourProbe.Session.theirs``): a patch that made an
exact comparison approximate within a bound of its own (Defects4J Math-63's SimFix patch,
``equals(x, y, 1) || abs(y - x) <= SAFE_MIN``) parts from the fix only at inputs within that bound, which no
literal of the fix's, no neighbour of a test's argument reaches. Real javac and java, the one-call harness of
``test_observable_state``; the probe source made by :func:`probe_methods` from the texts, as a job's is."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.probe_source import (
    declaration,
    probe_methods,
    their_constants,
    their_names,
)
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    probe,
    runner,
)

# equal within one ulp of zero, exactly elsewhere: as Math-63's fix, no neighbour of a test's value (one ulp) parts it
# from a bound of SAFE
FIX = """public static boolean same(double x, double y) {
    return x == y || Math.abs(x - y) <= Double.MIN_VALUE;
}"""
NAMED = FIX.replace("Double.MIN_VALUE", "SAFE")
LITERAL = FIX.replace("Double.MIN_VALUE", "1e-300")
MEMBERS = "\n    static final double SAFE = 0x1.0p-1022;\n"
CALL = "h.Holder.same(0.0, 1.0); h.Holder.same(2.0, 2.0)"


def theirs(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.origin is observations.Origin.THEIRS]


@pytest.mark.parametrize("candidate, bound", [(NAMED, "2.2250738585072014E-308"), (LITERAL, "1.0E-300")])
@pytest.mark.slow
def test_a_bound_of_the_candidate_s_own_is_tried_and_the_candidate_diverges_there(runner, tmp_path, candidate, bound):
    run = probe(runner, tmp_path, candidate, FIX, CALL, MEMBERS)
    assert not run.error, run
    at_bound = theirs(run)
    assert at_bound and all(o.test == "h.HolderTest" for o in at_bound), run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    # nowhere else: every input the fix's own constants and the tests' values give, the candidate agrees on
    assert differing and all(o.origin is observations.Origin.THEIRS for o in differing), run
    assert any(o.input == f"arg0=0.0, arg1={bound}" for o in differing), differing
    assert all("return=false" in o.reference and "return=true" in o.candidate for o in differing), differing


@pytest.mark.slow
def test_the_fix_beside_itself_tries_none_and_a_candidate_s_constants_take_no_room_from_the_fix_s(runner, tmp_path):
    alone = probe(runner, tmp_path / "alone", FIX, FIX, CALL, MEMBERS)
    assert not theirs(alone) and not alone.error, alone
    beside = probe(runner, tmp_path / "beside", NAMED, FIX, CALL, MEMBERS)
    # every input of the fix's own probe is tried beside the candidate too, the candidate's on top of them
    assert {o.input_digest for o in alone.observations} <= {o.input_digest for o in beside.observations}
    assert len(beside.observations) > len(alone.observations)


def test_only_the_candidate_s_numbers_and_names_the_fix_does_not_hold_are_handed_over():
    fix, buggy = declaration(FIX), declaration(FIX.replace("Double.MIN_VALUE", "0"))
    hostile = declaration(
        FIX.replace(
            "return",
            "String s = \"\\u0022); System.exit(7); (\\u0022\"; char c = 'x'; long big = 0xFFFFFFFFFFFFFFFFL;"
            " return 7 + 2.5e-3 +",
        )
    )
    # a string or character of the candidate's could end elsewhere in the probe source than where the lexer read it;
    # a number out of long's range would keep it from compiling; 0 is the buggy method's
    assert their_constants(hostile, fix, buggy) == ["7L", "2.5e-3d"]
    assert their_names(declaration(NAMED), fix, buggy) == ["SAFE"]
    text = probe_methods(FIX, hostile.text, "Holder", buggy.text)
    assert "System.exit" not in text and "new Object[] {7L, 2.5e-3d}, new String[] {" in text, text


def _row(
    origin: observations.Origin, digest: str, reference: str = "r", candidate: str = "r"
) -> observations.Observation:
    return observations.Observation(origin, "T", digest, digest, reference, reference, candidate, candidate, reference)


def test_inputs_at_the_candidate_s_constants_never_make_up_for_ones_the_tests_did_not_reach():
    baseline = observations.ProbeRun(observations=[_row(observations.Origin.CALL, f"d{i}") for i in range(3)])
    fewer = observations.ProbeRun(
        observations=[
            _row(observations.Origin.CALL, "d0"),
            *(_row(observations.Origin.THEIRS, f"t{i}") for i in range(4)),
        ]
    )
    record = label(baseline, fewer, developer_fix=True)
    assert record.label is Behaviour.NOT_PROBED and "reached 1 input(s)" in record.note, record
    whole = observations.ProbeRun(observations=[*baseline.observations, _row(observations.Origin.THEIRS, "t0")])
    assert label(baseline, whole, developer_fix=True).label is Behaviour.SAME
    differs = observations.ProbeRun(
        observations=[*baseline.observations, _row(observations.Origin.THEIRS, "t0", candidate="c")]
    )
    assert label(baseline, differs, developer_fix=True).label is Behaviour.DIVERGES
