"""My own attack of the sixteenth session, as a hostile model would make it: the label now passes over an input on
which the developer's fix fails a test's own assertion (``nl2fix.validation.behaviour``, Math-44's event handler).
A candidate that, where it differs from the fix, throws an ``AssertionError`` it never names (a project helper made
it) would go uncompared if the rule looked at the candidate's outcome; it looks at the fix's, which the candidate
cannot reach. Real javac and java, the one-call harness of ``test_observable_state``."""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    probe,
    runner,
)

pytestmark = pytest.mark.slow

# a project helper that throws what a test's assertion throws: the candidate names neither the class nor `assert`
HELPER = (
    "\n    static void expect(boolean holds) {\n        if (!holds) {\n"
    "            throw new AssertionError();\n        }\n    }\n"
)
FIX = "public int clamp(int x) {\n    return x > 10 ? 10 : x;\n}"
# right on the tests' 3; past 10, a test framework's failure instead of the fix's 10
HOSTILE = "public int clamp(int x) {\n    expect(x <= 10);\n    return x;\n}"


def test_a_candidate_throwing_a_test_s_assertion_where_it_differs_is_still_compared(runner, tmp_path):
    call = "new h.Holder().clamp(3)"
    baseline = probe(runner, tmp_path / "fix", FIX, FIX, call, HELPER)
    run = probe(runner, tmp_path / "candidate", HOSTILE, FIX, call, HELPER)
    thrown = [o for o in run.observations if o.candidate.startswith("throws java.lang.AssertionError")]
    assert thrown and all(o.reference.startswith("return=10") for o in thrown), run
    record = label(baseline, run, developer_fix=True)
    assert record.label is Behaviour.DIVERGES and "AssertionError" in record.candidate_result, record
