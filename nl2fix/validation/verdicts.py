"""From what an engine observed to the stored record of its verdict, and what the fixed version's
record asks of every candidate. Pure.

The verdict itself is :func:`defects4j_adapter.contract.verdict_of`'s (the one rule, which the
engines ask too): tests that also fail on the fixed version (``fails_on_fix``) are not held against
a candidate, and a candidate must pass every test the fixed version passed (``passes_on_fix``: the
field's fail-to-pass and pass-to-pass tests together).
"""

from __future__ import annotations

from collections.abc import Iterable

from defects4j_adapter.contract import Outcome, Phase, not_passed, verdict_of
from nl2fix.core.domain import Verdict
from nl2fix.store.records import ValidationRecord

COMPILE_ERRORS_LIMIT = 4000


def _of_trigger(test: str, trigger_tests: Iterable[str]) -> bool:
    """Whether ``test`` (``Class::method``, or ``Class`` for a class-level failure) is, or holds,
    a trigger test."""
    return any(test == t or test == t.split("::")[0] for t in trigger_tests)


def record_of(
    outcome: Outcome,
    *,
    bug_id: str,
    hash: str,
    engine: str,
    fails_on_fix: frozenset[str] = frozenset(),
    passes_on_fix: frozenset[str] = frozenset(),
    keep_passed: bool = False,
) -> ValidationRecord:
    """The stored record of ``outcome``, its verdict :func:`verdict_of`'s. ``hash``: the candidate's
    (or the reference version's) id. ``keep_passed`` stores the names of the tests that passed (for
    the fixed version, whose passes every candidate's must cover)."""
    verdict, why = verdict_of(outcome, fails_on_fix, passes_on_fix)
    # a rejected candidate's test results (where its code ran before the check) say nothing
    held = (
        []
        if verdict is Verdict.REJECTED
        else [t for t in outcome.failing_tests + outcome.timed_out_tests if t not in fails_on_fix]
    )
    failing = [t for t in held if t in outcome.failing_tests]
    if verdict is Verdict.WRONG and not failing:
        failing = not_passed(outcome, passes_on_fix)
    ignored = [t for t in [*outcome.failing_tests, *outcome.timed_out_tests] if t in fails_on_fix]
    first = f"{failing[0]}: {outcome.messages.get(failing[0], '')}".rstrip(": ") if failing else ""
    detail = "; ".join(p for p in (why, first, outcome.detail) if p)
    return ValidationRecord(
        bug_id=bug_id,
        hash=hash,
        engine=engine,
        verdict=verdict,
        failing_tests=failing + [t for t in held if t not in failing],
        ignored_failures=ignored,
        compile_errors=outcome.compile_errors[:COMPILE_ERRORS_LIMIT],
        detail=detail,
        failure_message=outcome.messages.get(failing[0], "") if failing else "",
        failure_line=outcome.failure_lines.get(failing[0]) if failing else None,
        tests_run=outcome.tests_run,
        passed_tests=sorted(outcome.passed_tests or []) if keep_passed else [],
        all_tests_ran=outcome.phase is Phase.DONE and outcome.compiled and not outcome.harness_error,
        wall_seconds=round(outcome.wall_seconds, 3),
        cpu_seconds=round(outcome.cpu_seconds, 3),
    )


def passing_on_fix(fixed: ValidationRecord | None) -> frozenset[str]:
    """What a candidate must pass: every test the fixed version passed (recorded by engines that
    name their tests): the fail-to-pass and the pass-to-pass tests."""
    return frozenset(fixed.passed_tests) if fixed is not None else frozenset()


def fails_a_trigger(record: ValidationRecord, trigger_tests: Iterable[str]) -> bool:
    """Whether ``record``'s failing tests hold a trigger test (by name, or its class failing whole)."""
    return any(_of_trigger(t, trigger_tests) for t in record.failing_tests)


def ground_truth_validates(fixed: ValidationRecord, trigger_tests: Iterable[str]) -> bool:
    """Whether the fixed version's record makes it a ground truth: it passes, or fails only regression
    tests (no trigger test), which :func:`failing_on_fix` then excuses for every candidate."""
    return fixed.verdict is Verdict.PLAUSIBLE or (
        fixed.verdict is Verdict.WRONG and not fails_a_trigger(fixed, trigger_tests)
    )


def failing_on_fix(fixed: ValidationRecord | None, trigger_tests: Iterable[str] = ()) -> frozenset[str]:
    """Tests that fail on the fixed version (when its baseline ran them), except trigger tests: a
    trigger test is never excused, so a candidate that fails one is wrong whatever the fixed
    version does (that bug's ground truth then does not validate, and reports show it apart)."""
    if fixed is None or fixed.verdict not in (Verdict.WRONG, Verdict.TIMEOUT):
        return frozenset()
    return frozenset(t for t in fixed.failing_tests if not _of_trigger(t, trigger_tests))
