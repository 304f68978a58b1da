"""A constructor under probe (14 of the dataset's 283 bugs): the reference's constructor stays as it is, the tests
construct their objects with it, and right after its ``this(...)`` or ``super(...)`` it hands its arguments to
the runner (``BehaviourProbe.constructing``), which probes the construction as a static method's call, the new
object as its result: the probe source as ``probe_source.probe_methods`` makes it, run by the one-call harness of
``test_observable_state`` (real javac and java)."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.behaviour.probe_source import NotProbeable, probe_methods
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    CLASS,
    probe,
    runner,
)

FIX = """public Holder(int start, int step) {
    this();
    count = start > 10 ? 10 : start;
    visible = step;
}"""
# right on what the tests construct (a start of 3), wrong past 10
OVERFIT = FIX.replace("start > 10 ? 10 : start", "start")
MEMBERS = "\n    public Holder() {\n    }\n"
CALL = "new h.Holder(3, 1)"


def _probe(runner, tmp_path, candidate: str, fix: str = FIX, call: str = CALL, members: str = MEMBERS):
    return probe(runner, tmp_path, candidate, fix, call, members)


def test_the_hook_comes_right_after_the_constructor_s_this_call():
    made = probe_methods(FIX, OVERFIT, "Holder", source=CLASS % (FIX + MEMBERS))
    assert (
        made.index("this();")
        < made.index("nl2fix.runner.BehaviourProbe.constructing(Holder.class")
        < made.index("count = start > 10")
    ), made
    assert "return new Holder(((Integer) nl2fix$a[0]).intValue(), ((Integer) nl2fix$a[1]).intValue());" in made
    assert "$nl2fix$ref" not in made  # nothing renamed: the tests construct with the reference's own constructor


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        ("public abstract class Holder {", "abstract class"),
        ("public enum Holder {", "enum"),
    ],
)
def test_a_constructor_no_test_can_call_with_new_is_not_probed(declared, why):
    source = CLASS.replace("public class Holder {", declared) % (FIX + MEMBERS)
    with pytest.raises(NotProbeable, match=why):
        probe_methods(FIX, FIX, "Holder", source=source)


def test_an_inner_class_s_constructor_is_not_probed():
    inner = FIX.replace("Holder(", "Inner(").replace("this();", "")
    source = CLASS % (f"    class Inner {{\n        int count;\n        int visible;\n{inner}\n    }}\n")
    with pytest.raises(NotProbeable, match="inner class"):
        probe_methods(inner, inner, "Holder.Inner", source=source)


@pytest.mark.slow
def test_a_construction_that_differs_past_the_tests_values_diverges(runner, tmp_path):
    run = _probe(runner, tmp_path, OVERFIT)
    assert not run.error and run.calls == 1, run
    own = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert own.input == "arg0=3, arg1=1" and own.candidate_digest == own.reference_digest, own
    assert own.reference.startswith("return=h.Holder{count=3,"), own
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert differing and all("count=10" in o.reference and "count=10" not in o.candidate for o in differing), run
    _fix = _probe(runner, tmp_path / "fix", FIX)
    assert label(_fix, run, developer_fix=True).label is Behaviour.DIVERGES


@pytest.mark.slow
def test_the_fix_beside_itself_agrees_on_every_construction(runner, tmp_path):
    run = _probe(runner, tmp_path, FIX)
    assert not run.error and run.calls == 1 and len(run.observations) > 5, run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run
    assert label(run, run, developer_fix=True).label is Behaviour.SAME


PAIRED = """public Holder(Holder from, Holder to) {
    this();
    count = to.count - from.count;
}"""
# the same on the tests' (from, to), another where the two come the other way round: only a swap reaches it
PAIRED_ABS = PAIRED.replace("to.count - from.count", "Math.abs(to.count - from.count)")


@pytest.mark.slow
def test_two_arguments_of_one_type_swapped_reach_what_no_single_change_does(runner, tmp_path):
    members = MEMBERS + "\n    public Holder(int count) {\n        this.count = count;\n    }\n"
    call = "new h.Holder(new h.Holder(3), new h.Holder(5))"
    run = _probe(runner, tmp_path, PAIRED_ABS, PAIRED, call, members)
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert [o.input.split(", arg1=")[0] for o in differing] == [
        "arg0=h.Holder{count=5,spare=null,visible=0,limits=int[2]{1,2}}"
    ], run
    assert "count=-2" in differing[0].reference and "count=2" in differing[0].candidate, differing


def test_a_constructor_s_divergence_test_constructs_and_checks_the_new_object():
    source = CLASS % (FIX + MEMBERS)
    start = source.splitlines().index("public Holder(int start, int step) {") + 1
    explained = divergence_test(
        source,
        FIX,
        start,
        start + 4,
        FIX,
        "arg0=11, arg1=1",
        "return=h.Holder{count=10,spare=null,visible=1,limits=int[2]{1,2}}, this=null, arg0=11, arg1=1",
        "return=h.Holder{count=11,spare=null,visible=1,limits=int[2]{1,2}}, this=null, arg0=11, arg1=1",
    )
    assert explained.test, explained.why_not
    assert "new Holder(start, step)" in explained.test and "int start = 11;" in explained.test, explained.test


def test_a_delegating_constructor_hands_its_arguments_over_before_the_delegate_runs():
    # red team 24: a delegate that changes the class's static state must not change what the probed constructions meet
    delegating = FIX.replace("this();", "this(start > 10 ? 10 : start, step, 0);")
    made = probe_methods(delegating, delegating, "Holder", source=CLASS % (delegating + MEMBERS))
    first = "start > 10 ? 10 : start"
    assert f"this((nl2fix$constructing(new Object[] {{start, step}}) ? {first} : {first}), step, 0);" in made, made
    assert "private static boolean nl2fix$constructing(Object[] nl2fix$p) {" in made, made


def test_a_generic_class_s_constructor_is_hooked_after_its_delegate():
    # no static helper can name the class's type variables: the hook stays inside, after this(...)
    generic = CLASS.replace("public class Holder {", "public class Holder<T> {")
    delegating = FIX.replace("this();", "this(start, step, 0);")
    made = probe_methods(delegating, delegating, "Holder", source=generic % (delegating + MEMBERS))
    assert "nl2fix$constructing" not in made and made.index("this(start, step, 0);") < made.index("constructing("), made
