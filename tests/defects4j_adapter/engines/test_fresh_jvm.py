"""The fast engine's decisions on where a verdict may come from (Trust III): pure functions over
outcomes. A fresh JVM is the reference; a warm JVM's pass, and its time limits, harness failures and
unexpected ends, are not final; probes run where no other candidate's code ran; javac's own failure on
a file is the file's."""

from __future__ import annotations

import pytest

from defects4j_adapter.contract import Outcome, Phase, verdict_of
from defects4j_adapter.engines.fast import (
    FRESH_DECIDES,
    FRESH_JVM,
    compiler_failure,
    confirmed,
    may_probe_in,
    unsettled,
)
from defects4j_adapter.engines.rebuild import javac_failure
from nl2fix.core.domain import Verdict

TRIGGER = "org.x.ATest::trigger"
OTHER = "org.x.BTest::other"


def _passed(*tests: str) -> Outcome:
    return Outcome(phase=Phase.DONE, compiled=True, tests_run=len(tests), passed_tests=tuple(tests))


def test_a_fresh_pass_stands():
    fresh = _passed(TRIGGER, OTHER)
    assert confirmed(_passed(TRIGGER), fresh, warm_ran_all=False) is fresh


def test_a_warm_pass_the_fresh_jvm_fails_is_wrong_with_the_reason_not_a_harness_fault():
    fresh = Outcome(
        phase=Phase.TRIGGER,
        compiled=True,
        tests_run=1,
        failing_tests=(TRIGGER,),
        messages={TRIGGER: "expected:<1> but was:<2>"},
        harness_error="left over",
    )
    outcome = confirmed(_passed(TRIGGER), fresh, warm_ran_all=False)
    assert verdict_of(outcome)[0] is Verdict.WRONG and outcome.failing_tests == (TRIGGER,)
    assert FRESH_DECIDES in outcome.detail


def test_a_fresh_runner_failing_after_the_candidate_ran_is_the_candidate_s_wrong():
    fresh = Outcome(phase=Phase.RELEVANT, compiled=True, tests_run=3, harness_error="the test runner failed")
    outcome = confirmed(_passed(TRIGGER, OTHER), fresh, warm_ran_all=True)
    assert verdict_of(outcome) == (Verdict.WRONG, "")
    assert outcome.failing_tests == (FRESH_JVM,) and outcome.messages[FRESH_JVM] == "the test runner failed"


def test_a_fresh_jvm_that_could_not_take_the_job_is_the_harness_s_fault():
    fresh = Outcome(phase=Phase.COMPILE, compiled=False, harness_error="the warm test JVM did not start")
    assert verdict_of(confirmed(_passed(TRIGGER), fresh, warm_ran_all=False))[0] is Verdict.ERROR


def test_a_fresh_time_limit_is_the_candidate_s_timeout():
    fresh = Outcome(phase=Phase.TRIGGER, compiled=True, tests_run=1, timed_out=True, timed_out_tests=(TRIGGER,))
    outcome = confirmed(_passed(TRIGGER), fresh, warm_ran_all=False)
    assert verdict_of(outcome)[0] is Verdict.TIMEOUT and FRESH_DECIDES in outcome.detail


def test_a_test_only_the_fresh_jvm_ran_is_its_to_judge_without_a_disagreement():
    fresh = Outcome(phase=Phase.DONE, compiled=True, tests_run=2, passed_tests=(TRIGGER,), failing_tests=(OTHER,))
    outcome = confirmed(_passed(TRIGGER), fresh, warm_ran_all=False)
    assert outcome is fresh and FRESH_DECIDES not in outcome.detail


def test_what_an_earlier_candidate_could_have_caused_is_unsettled():
    assert unsettled(Outcome(phase=Phase.TRIGGER, compiled=True, timed_out=True))
    assert unsettled(Outcome(phase=Phase.COMPILE, compiled=False, harness_error="the test JVM ended"))
    assert unsettled(Outcome(phase=Phase.TRIGGER, compiled=True, failing_tests=(TRIGGER,), jvm_died=True))
    # a JDK-wide cache an earlier candidate filled can leave the next one's tests no heap
    assert unsettled(Outcome(phase=Phase.TRIGGER, compiled=True, failing_tests=(TRIGGER,), ran_out=True))
    assert not unsettled(Outcome(phase=Phase.TRIGGER, compiled=True, failing_tests=(TRIGGER,)))
    assert not unsettled(_passed(TRIGGER))


@pytest.mark.parametrize(
    "message, timed",
    [
        ("org.junit.runners.model.TestTimedOutException: test timed out after 1000 milliseconds", True),
        ("java.lang.Exception: test timed out after 50 milliseconds", True),  # JUnit before 4.12
        ("java.lang.AssertionError: expected:<1> but was:<2>", False),
    ],
)
def test_a_failure_of_a_test_s_own_time_limit_is_judged_again_in_a_fresh_jvm(message, timed):
    # a warm JVM's quick JIT compiler runs a hot loop slower than Defects4J's JVM: its limit, not the candidate's
    failed = Outcome(phase=Phase.TRIGGER, compiled=True, failing_tests=(TRIGGER,), messages={TRIGGER: message})
    assert unsettled(failed) is timed


def test_a_probe_runs_only_where_no_other_candidate_s_code_ran():
    assert may_probe_in(set(), "a", trusted=False) and may_probe_in({"a"}, "a", trusted=False)
    assert not may_probe_in({"b"}, "a", trusted=False) and not may_probe_in({"a", "b"}, "a", trusted=False)
    # the reference against itself: trusted code, in a JVM no candidate's code ran in
    assert may_probe_in(set(), "fix", trusted=True) and not may_probe_in({"fix"}, "fix", trusted=True)


def test_javac_over_its_limit_or_ending_twice_on_a_file_is_uncompilable():
    timed = compiler_failure(killed_for_time=True, ended=0, seconds=120)
    assert timed is not None and verdict_of(timed)[0] is Verdict.UNCOMPILABLE and "120 s" in timed.compile_errors
    ended = compiler_failure(killed_for_time=False, ended=2, seconds=120)
    assert ended is not None and verdict_of(ended)[0] is Verdict.UNCOMPILABLE and "twice" in ended.compile_errors
    assert compiler_failure(killed_for_time=False, ended=1, seconds=120) is None


def test_javac_out_of_stack_is_the_file_s_fault_and_other_crashes_are_not():
    log = (
        "An exception has occurred in the compiler (11.0.24). Please file a bug ...\n"
        "java.lang.StackOverflowError\n\tat jdk.compiler/com.sun.tools.javac.comp.Attr.attribTree(Attr.java:655)\n"
    )
    assert "java.lang.StackOverflowError" in (javac_failure(log) or "")
    assert javac_failure(log.replace("StackOverflowError", "NullPointerException")) is None
    assert javac_failure("error: cannot find symbol java.lang.StackOverflowError") is None
