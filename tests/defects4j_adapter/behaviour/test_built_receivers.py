"""Receivers built by the class's own constructors from the tests' constructions, their arguments varied: the
probe source's constructors instrumented as a probe job instruments them (``CallInserter.receivers``), a
construction from outside the class kept (``BehaviourProbe.built``), built again on the fix's version of the class
as it came and with its arguments varied (``Derived.constructions``: a numeric array's elements one above and
below first), and each call of the method under probe run on the objects that construct without throwing. Math-56's
ARJA patch is right on every counter the tests build (last dimension 4) and wrong from a last dimension of 5 on.
Real javac and java, the one-call harness of ``test_observable_state``."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from tests.defects4j_adapter.behaviour.test_observable_state import runner  # noqa: F401  (the fixture)
from tests.defects4j_adapter.behaviour.test_reached_states import probe_instrumented

pytestmark = pytest.mark.slow

SIZES = """
    private int[] sizes = {1};

    public Holder() {
    }

    public Holder(int... sizes) {
        if (sizes.length == 0 || sizes[0] > 9) {
            throw new IllegalArgumentException("no dimension");
        }
        this.sizes = sizes.clone();
    }

    public static Holder of(int a, int b) {
        return new Holder(a, b + 1);
    }
"""
# the index within the last dimension
FIX = """public int last(int index) {
    return index % sizes[sizes.length - 1];
}"""
# right while the last dimension is at most 4 (a remainder of at most 3), as Math-56's ARJA patch
OVERFIT = FIX.replace(
    "return index % sizes[sizes.length - 1];",
    "int r = index % sizes[sizes.length - 1];\n    return r >= 4 ? r - 1 : r;",
)
CALLS = "h.Holder c = new h.Holder(2, 4); for (int i = 0; i < 8; i++) c.last(i)"


def _probe(runner, tmp_path, candidate: str, call: str = CALLS) -> observations.ProbeRun:
    instrumented, run = probe_instrumented(runner, tmp_path, FIX, candidate, call, SIZES)
    # count() and the two constructors: not the static factory, the wrapper or the reference
    assert instrumented == 3, instrumented
    assert not run.error, run
    return run


def built(run: observations.ProbeRun, own: str = "{2,4}") -> list[str]:
    """The inputs on a receiver other than the tests' own counter of sizes ``own``."""
    return [o.input for o in run.observations if o.origin is observations.Origin.BUILT and f"]{own}" not in o.input]


def _differing(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.candidate_digest != o.reference_digest]


def test_a_receiver_built_with_a_larger_last_dimension_shows_the_overfitting_candidate(runner, tmp_path):
    run = _probe(runner, tmp_path, OVERFIT)
    differing = _differing(run)
    assert differing, run
    # the divergence is on a counter the constructor built from the test's (2, 4) with its last size one above
    assert all("sizes=int[2]{2,5}" in o.input for o in differing), differing
    assert any("return=4" in o.reference and "return=3" in o.candidate for o in differing), differing


def test_the_fix_beside_itself_agrees_on_every_built_receiver(runner, tmp_path):
    run = _probe(runner, tmp_path, FIX)
    made = built(run)
    # (2, 5), (2, 3), (3, 4), (1, 4), (2): the test's own (2, 4) is the call's receiver; (10, 4) and () the
    # constructor refuses, null it fails on
    for sizes in ("{2,5}", "{2,3}", "{3,4}", "{1,4}", "{2}"):
        assert any(f"sizes=int[{len(sizes.split(','))}]{sizes}" in i for i in made), (sizes, made)
    assert not any("int[0]" in i for i in made), made
    assert run.observations and not _differing(run), run


def test_without_the_construction_the_candidate_passes_as_the_fix(runner, tmp_path):
    # the receiver handed in by a harness frame of the class's own file: no construction from outside is seen, so
    # only the test's (2, 4) counter is probed (what this closes)
    call = "h.Holder c = h.Holder.of(2, 3); for (int i = 0; i < 8; i++) c.last(i)"
    run = _probe(runner, tmp_path, OVERFIT, call)
    assert not built(run, "{2,4}"), run
    assert not _differing(run), run


def test_a_construction_the_class_refuses_builds_no_receiver(runner, tmp_path):
    # a first size above 9 is refused: the counter (10, 4) is never a receiver, and no input holds it
    run = _probe(runner, tmp_path, FIX, "h.Holder c = new h.Holder(9, 4); for (int i = 0; i < 8; i++) c.last(i)")
    made = built(run, "{9,4}")
    assert made and not any("{10,4}" in i for i in made), made
    assert any("{8,4}" in i for i in made), made


def test_a_later_call_a_built_receiver_anticipated_is_still_probed_with_its_derived_inputs(runner, tmp_path):
    # the first call's arguments on the counter (2, 5) built from (2, 4) are the second call's very input: probed once,
    # as a built input, it must not stand for that call, whose derived inputs (its index's neighbours on (2, 5)) would
    # then never be made
    call = "new h.Holder(2, 4).last(1); new h.Holder(2, 5).last(1)"
    run = _probe(runner, tmp_path, FIX, call)
    on_25 = "sizes=int[2]{2,5}}"
    calls = [o.input for o in run.observations if o.origin is observations.Origin.CALL]
    assert any(i.startswith("arg0=1,") and on_25 in i for i in calls), calls
    derived = [o.input for o in run.observations if o.origin is observations.Origin.DERIVED and on_25 in o.input]
    assert any(i.startswith("arg0=0,") for i in derived) and any(i.startswith("arg0=2,") for i in derived), derived
    assert not _differing(run), run


def test_a_candidate_constructing_its_own_objects_records_no_construction(runner, tmp_path):
    # a hostile candidate building counters of its own class while it runs (to crowd out the kept constructions, or
    # to have its own arguments built from): its class is the twin's, never instrumented, and runs while the probe
    # records nothing, so the overfitting candidate still diverges on the counter (2, 5) the test's (2, 4) gives
    crowding = OVERFIT.replace(
        "int r =", "for (int i = 0; i < 100; i++) {\n        new Holder(1, 1 + i);\n    }\n    int r ="
    )
    run = _probe(runner, tmp_path, crowding)
    # (1, 4) is one step from the test's (2, 4); the candidate's (1, 1), (1, 2), (1, 50), (1, 100) are none
    theirs = [f"sizes=int[2]{{1,{k}}}" for k in (1, 2, 50, 100)]
    assert not any(t in i for t in theirs for i in built(run)), built(run)
    assert any("sizes=int[2]{2,5}" in o.input for o in _differing(run)), run
