"""The lead's own attack after red team round 18, on a JUnit time limit's failure being unsettled in a JVM that ran
other candidates (``fast.unsettled``: judged again in a fresh JVM, since the warm JVMs now run the quick JIT compiler
only), on the example benchmark's Textkit-1 through the real fast engine under bubblewrap: a wrong answer that fails
with JUnit's timeout message buys a fresh JVM's run and nothing more; and on the per-test limit, which now counts the
garbage collector's time: a loop whose time is the collector's is stopped at the CPU limit, not at the wall-clock
limit six times later. ``tests/fixtures/redteam/found18/README.md`` has the round.
"""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import RECHECKED
from nl2fix.core.domain import Verdict
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import verdict

pytestmark = pytest.mark.slow


def test_a_wrong_answer_that_fails_as_a_junit_time_limit_is_judged_again_and_stays_wrong(guarded, textkit):
    engine, ws, required = guarded
    fix = textkit.fixed_method
    body = fix.index("{") + 1
    # another candidate first: the JVM has run a candidate's code, so a limit met there is not the verdict
    assert verdict(engine, ws, fix[:body] + ";" + fix[body:], required).verdict is Verdict.PLAUSIBLE
    record = verdict(engine, ws, red_team_attack("junit_time_limit", textkit, REDTEAM / "found18"), required)
    print("fast bwrap junit_time_limit", record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG and RECHECKED in record.detail, record


def test_a_loop_whose_time_is_the_collector_s_meets_the_cpu_limit(guarded, textkit):
    engine, ws, required = guarded
    record = verdict(engine, ws, red_team_attack("collector_loop", textkit, REDTEAM / "found18"), required)
    print("fast bwrap collector_loop", record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.TIMEOUT and "most of it the garbage collector's" in record.detail, record
