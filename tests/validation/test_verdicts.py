"""From an engine's outcome to a verdict (pure): what can never be a pass."""

from __future__ import annotations

from dataclasses import replace

from defects4j_adapter.contract import Outcome, Phase
from nl2fix.core.domain import Bug, Verdict
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.bug_work import BaselineCheck
from nl2fix.validation.verdicts import failing_on_fix, ground_truth_validates, record_of

TRIGGER = "p.T::trigger"
OTHER = "p.T::other"


def _done(**fields) -> Outcome:
    return Outcome(phase=Phase.DONE, compiled=True, tests_run=2, **fields)


def test_every_test_the_fixed_version_passed_must_be_reported_passed():
    required = frozenset({TRIGGER, OTHER})
    assert (
        record_of(
            _done(passed_tests=(TRIGGER, OTHER)), bug_id="b", hash="h", engine="fast", passes_on_fix=required
        ).verdict
        is Verdict.PLAUSIBLE
    )
    skipped = record_of(_done(passed_tests=(OTHER,)), bug_id="b", hash="h", engine="fast", passes_on_fix=required)
    assert skipped.verdict is Verdict.WRONG and skipped.failing_tests == [TRIGGER]
    assert "did not pass (skipped or not run)" in skipped.detail


def test_a_rejection_outranks_whatever_the_tests_said():
    # the fast engine reads a candidate's classes after its tests ran: a pass, or failures, are moot
    for outcome in (
        _done(passed_tests=(TRIGGER, OTHER)),
        _done(failing_tests=(TRIGGER,)),
        _done(harness_error="the warm JVM died"),
    ):
        rejected = replace(
            outcome, rejection="reference: p.A uses java.lang.Runtime#halt, which the candidate may not add"
        )
        record = record_of(rejected, bug_id="b", hash="h", engine="fast", passes_on_fix=frozenset({TRIGGER}))
        assert record.verdict is Verdict.REJECTED and record.failing_tests == []
        assert record.detail.startswith("reference: p.A uses java.lang.Runtime#halt")


def test_a_report_the_candidate_corrupted_is_its_failure_not_the_harness_s():
    outcome = _done(
        failing_tests=("(the runner's report)",),
        passed_tests=(TRIGGER,),
        messages={"(the runner's report)": "the code under test fired 2 JUnit event(s) itself"},
    )
    record = record_of(outcome, bug_id="b", hash="h", engine="fast", passes_on_fix=frozenset({TRIGGER}))
    assert record.verdict is Verdict.WRONG and "fired 2 JUnit event(s) itself" in record.detail


def test_a_fixed_version_failing_a_trigger_class_whole_is_no_ground_truth():
    # the one rule decides both whether the ground truth validates and what candidates are excused:
    # a trigger test's class failing whole is a trigger failure for both (it was a regression to one)
    bug = Bug(
        project="B",
        number=1,
        path="p/T.java",
        start_line=1,
        end_line=2,
        buggy_method="",
        fixed_method="",
        title="",
        trigger_tests=(TRIGGER,),
    )
    whole_class = ValidationRecord(
        bug_id="B-1", hash="fixed", engine="fast", verdict=Verdict.WRONG, failing_tests=["p.T"]
    )
    assert not ground_truth_validates(whole_class, bug.trigger_tests)
    assert not BaselineCheck(bug, fixed=whole_class).ground_truth_ok
    assert failing_on_fix(whole_class, bug.trigger_tests) == frozenset()
    regression = whole_class.model_copy(update={"failing_tests": ["p.Other::old"]})
    assert (
        ground_truth_validates(regression, bug.trigger_tests) and BaselineCheck(bug, fixed=regression).ground_truth_ok
    )
    assert failing_on_fix(regression, bug.trigger_tests) == {"p.Other::old"}
