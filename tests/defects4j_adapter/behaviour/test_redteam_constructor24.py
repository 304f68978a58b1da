"""Red team 24 against constructor probing (``probe_source._hooked``, ``BehaviourProbe.constructing``, the
construction's JUnit test), each attack run for real (the runner's probe in a plain JVM, the written test compiled
with javac and run with JUnit) and asserting the honest outcome:

- The new object is snapshotted through the method's ``View``: a private field of the class that the hooked
  constructor's own text does not name is left out. A constructor that sets its object's state through ``this(...)``
  (or a private ``init`` helper) names none of it: an overfitting candidate that gets the delegation's arguments
  wrong is ``same-behaviour``.
- The hook runs after ``this(...)``/``super(...)`` of the test's own construction, so every probed construction meets
  the class's statics as that half-built construction left them: a delegate that registers a unique name makes every
  probed construction with the test's name throw, in the fix and the candidate alike (the test's own call is recorded
  as throwing), and an overfitting candidate is ``same-behaviour``.
- The same off-by-one state reaches the divergence's JUnit test: it expects the whole new object as the probe saw it,
  an instance counter the test's own ``this()`` had already bumped included, and fails on the developer's fix.
- A generic class's constructor taking its type variable gets a test declaring ``T first = ...``: it does not compile.
"""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour.junit import divergence_test
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_constructors import FIX, OVERFIT
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    CLASS,
    probe,
    runner,
)
from tests.defects4j_adapter.behaviour.test_redteam_whole22 import differing, junit, written

pytestmark = pytest.mark.slow


def _rows(run) -> str:
    return "\n".join(f"{o.origin.value} {o.input} | {o.reference} | {o.candidate}" for o in run.observations)


# the fix clamps the start it hands to the delegate, which sets the private `count` (read by count()): the hooked
# constructor's own text names neither `count` nor anything the delegate sets (commons-math's Fraction delegates so)
DELEGATING = """public Holder(int start, int step) {
    this(start > 10 ? 10 : start);
    visible = step;
}"""
DELEGATE = "\n    private Holder(int count) {\n        this.count = count;\n    }\n"
# the same through a private helper the constructor calls
HELPED = """public Holder(int start, int step) {
    init(start > 10 ? 10 : start);
    visible = step;
}"""
HELPER = "\n    private void init(int start) {\n        count = start;\n    }\n"


@pytest.mark.parametrize(("fix", "members"), [(DELEGATING, DELEGATE), (HELPED, HELPER)], ids=["this-call", "init"])
def test_the_state_a_constructor_sets_through_this_call_or_a_helper_is_compared(runner, tmp_path, fix, members):
    overfit = fix.replace("start > 10 ? 10 : start", "start")  # right on the tests' 3, wrong past 10
    baseline = probe(runner, tmp_path / "fix", fix, fix, "new h.Holder(3, 1)", members)
    run = probe(runner, tmp_path / "candidate", overfit, fix, "new h.Holder(3, 1)", members)
    assert not run.error and run.calls == 1 and run.derived > 5, run
    # new h.Holder(11, 1).count() is 10 on the fix, 11 on the candidate: the probe ran that very input
    assert any(o.input == "arg0=11, arg1=1" for o in run.observations), _rows(run)
    assert label(baseline, run, developer_fix=True).label is Behaviour.DIVERGES, _rows(run)


# a delegate that takes a name no other object of the class holds (commons-lang 2's Enum(String) throws "The Enum name
# must be unique"): the test's construction takes "a" before the hook runs
UNIQUE = """public Holder(String name, int start) {
    this(name);
    count = start > 10 ? 10 : start;
}"""
NAMED = (
    "\n    static java.util.Set<String> names = new java.util.HashSet<String>();\n\n"
    "    public Holder(String name) {\n        if (!names.add(name)) {\n"
    '            throw new IllegalStateException("taken: " + name);\n        }\n    }\n'
)


def test_a_construction_is_probed_in_the_state_before_the_test_s_own_this_call(runner, tmp_path):
    overfit = UNIQUE.replace("start > 10 ? 10 : start", "start")
    baseline = probe(runner, tmp_path / "fix", UNIQUE, UNIQUE, 'new h.Holder("a", 3)', NAMED)
    run = probe(runner, tmp_path / "candidate", overfit, UNIQUE, 'new h.Holder("a", 3)', NAMED)
    own = next(o for o in run.observations if o.origin.value == "call")
    # the test's own new h.Holder("a", 3) returned a Holder of count 3; the probe says it threw
    assert own.reference.startswith("return=h.Holder{count=3"), _rows(run)
    assert label(baseline, run, developer_fix=True).label is Behaviour.DIVERGES, _rows(run)


COUNTED = "\n    static int created;\n    int id;\n\n    public Holder() {\n        id = ++created;\n    }\n"


def test_a_construction_s_junit_test_passes_on_the_fix(runner, tmp_path):
    # the test's first object: in a fresh JVM new h.Holder(11, 1) has id 1; the probe ran after the test's own this()
    run = probe(runner, tmp_path, OVERFIT, FIX, "new h.Holder(3, 1)", COUNTED)
    row = next(o for o in differing(run) if o.input == "arg0=11, arg1=1")
    explained = written(FIX, COUNTED, row)
    if not explained.test:  # why none can be written is honest too
        return
    on_fix = junit(CLASS % (FIX + "\n" + COUNTED), explained.test, tmp_path / "on-fix")
    assert "OK (1 test)" in on_fix, (explained.test.split("static final class Nl2fix")[0], on_fix)
    on_candidate = junit(CLASS % (OVERFIT + "\n" + COUNTED), explained.test, tmp_path / "on-candidate")
    assert "OK (1 test)" not in on_candidate, on_candidate


GENERIC = """package h;

public class Holder<T> {
    int visible;
    T first;

    public Holder(T first, int step) {
        this.first = first;
        visible = step > 10 ? 10 : step;
    }
}
"""


def test_a_generic_class_s_construction_test_compiles(tmp_path):
    fix = "public Holder(T first, int step) {\n    this.first = first;\n    visible = step > 10 ? 10 : step;\n}"
    start = GENERIC.splitlines().index("    public Holder(T first, int step) {") + 1
    explained = divergence_test(
        GENERIC,
        fix,
        start,
        start + 3,
        fix,
        'arg0="a", arg1=11',
        'return=h.Holder{visible=10,first="a"}, arg0="a", arg1=11',
        'return=h.Holder{visible=11,first="a"}, arg0="a", arg1=11',
    )
    if explained.test:  # else: why none can be written, which is honest too
        on_fix = junit(GENERIC, explained.test, tmp_path / "on-fix")  # javac must take it
        assert "OK (1 test)" in on_fix, on_fix
