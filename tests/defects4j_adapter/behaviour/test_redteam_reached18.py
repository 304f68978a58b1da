"""Red team round 18, on receivers in the states the project's code reached (commit 5bb2115:
``CallInserter.receivers``, ``BehaviourProbe.entered`` / ``calledFromOutside`` / ``Session.entered``,
``Derived.reached``), with ``test_reached_states``'s instrumenting harness (real javac and java, the probe source's
class rewritten as a probe job rewrites it, no sandbox). ``tests/fixtures/redteam/found18/README.md`` has the runs
and what held. Each test asserts the safe outcome, so the ones that show a hole fail while it is open. Both holes
are closed: states are kept per test class, and only when no frame of the class's file is below the entered
method on the stack.
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import runner  # noqa: F401  (the fixture)
from tests.defects4j_adapter.behaviour.test_reached_states import FIX, RAISING, probe_instrumented, reached

pytestmark = pytest.mark.slow


# -- 1. the yardstick's kept states depend on test classes a candidate's job does not run ---------------------------

# another test class of the job (its own watched thread, as TestExecutor runs each class): it raises a Holder
# through the class's public methods but never calls the method under probe, so the fix's own probe lists no
# call of it, and a candidate's job (``tests=baseline.tests``) never runs it
OTHER_CLASS = (
    "Thread other = new Thread(() -> { h.Holder a = new h.Holder(); a.raise(); a.raise(); a.raise(); a.raise(); });"
    ' BehaviourProbe.watch(other, "h.OtherTest"); other.start(); other.join(); '
)
CALLING_CLASS = "new h.Holder().answer()"


def test_a_correct_candidate_is_not_cut_to_not_probed_by_a_test_class_only_the_yardstick_ran(runner, tmp_path):
    # the fix's own probe: every trigger and relevant test class, the one that never calls answer() first
    baseline = probe_instrumented(runner, tmp_path / "fix", FIX, FIX, OTHER_CLASS + CALLING_CLASS, RAISING)[1]
    assert baseline.tests == ["h.HolderTest"], baseline  # the class that never called answer() is not listed
    # a correct candidate (the fix itself) in its job: only the listed class runs
    run = probe_instrumented(runner, tmp_path / "candidate", FIX, FIX, CALLING_CLASS, RAISING)[1]
    assert not run.error and not baseline.error
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.SAME, (record, reached(baseline), reached(run))


# -- 2. a state mid-update, entered from the JDK on the class's own behalf --------------------------------------------

# the values are sorted after every public call (the class's invariant); ``add`` sorts with a method reference, so
# ``order`` is entered from java.util.TimSort (the lambda proxy's frame is hidden), not from Holder, in the middle of
# ``add``: a partly sorted array no caller of the class can see
SORTED = """
    private Integer[] values = {};

    public void add(int v) {
        values = java.util.Arrays.copyOf(values, values.length + 1);
        values[values.length - 1] = v;
        java.util.Arrays.sort(values, this::order);
    }

    public int order(Integer a, Integer b) {
        return Integer.compare(a, b);
    }
"""
LEAST = """public int least() {
    return values.length == 0 ? -1 : values[0];
}"""
# right on every state a caller can see (sorted): the least is the first
SCANNING = """public int least() {
    int m = values.length == 0 ? -1 : values[0];
    for (Integer v : values) {
        m = Math.min(m, v);
    }
    return m;
}"""
ADDS = "h.Holder a = new h.Holder(); a.add(50); a.add(40); a.add(30); a.add(20); a.add(10); a.add(5); a.least()"


def test_a_state_in_the_middle_of_the_class_s_own_sort_is_not_an_input(runner, tmp_path):
    run = probe_instrumented(runner, tmp_path, LEAST, SCANNING, ADDS, SORTED)[1]
    assert not run.error, run
    unsorted = [s for s in reached(run) if "values=" in s and not _sorted(s)]
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert not unsorted and not differing, (unsorted, [(o.input, o.reference, o.candidate) for o in differing])


def _sorted(state: str) -> bool:
    inside = state.split("values=", 1)[1].split("{", 1)[1].split("}", 1)[0]
    numbers = [int(x) for x in inside.split(",") if x.strip()]
    return numbers == sorted(numbers)


# -- 3. the rewriter on code shapes that move offsets (held) -------------------------------------------------------

SHAPES = """
    public int spin(int n) {
        do {
            n--;
        } while (n > 0);
        return n;
    }

    public int pick(int k) {
        switch (k) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            case 3: return 13;
            default: return 19;
        }
    }

    public int sparse(int k) {
        switch (k) {
            case -100000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 4;
        }
    }

    public int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        } finally {
            count++;
        }
    }

    public synchronized int loop() {
        while (true) {
            if (++count > 3) {
                return count;
            }
        }
    }

    public void nothing() {
    }

    @Override
    public int hashCode() {
        count += 1000;  // a side effect: a copy that called it would change what the test sees
        return 1;
    }

    @Override
    public boolean equals(Object o) {
        return o == this;
    }

    public java.util.Map<Object, Integer> keyed = new java.util.HashMap<>();

    class Inner {
        int viaOuter() {
            return pick(2) + spin(3);
        }
    }

    public int inner() {
        return new Inner().viaOuter();
    }
"""
SHAPED_CALLS = (
    "h.Holder a = new h.Holder(); a.keyed.put(a, 1); a.keyed.put(new h.Holder(), 2);"
    ' int sum = a.spin(5) + a.pick(2) + a.pick(9) + a.sparse(7) + a.sparse(8) + a.parse("12") + a.parse("x")'
    " + a.loop(); a.nothing(); sum += a.inner();"
    ' if (sum != 0 + 12 + 19 + 2 + 4 + 12 - 1 + 1003 + 12 + 0) throw new AssertionError("sum " + sum);'
    ' if (a.count() != 1003) throw new AssertionError("count " + a.count());'
    " a.answer()"
)


def test_the_rewritten_class_verifies_and_behaves_as_compiled(runner, tmp_path):
    run = probe_instrumented(runner, tmp_path, FIX, FIX, SHAPED_CALLS, SHAPES)[1]
    assert not run.error and run.calls == 1, run
    assert all(o.candidate_digest == o.reference_digest for o in run.observations), run
