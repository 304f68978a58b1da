"""Bounded retries with back-off: a fake flaky action, the waits recorded instead of slept."""

from __future__ import annotations

import logging

import pytest

from nl2fix.core.retry import Backoff, retry, retry_while


class Flaky:
    """Fails with ``error`` the first ``failures`` calls, then returns the number of calls."""

    def __init__(self, failures: int, error: Exception):
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.calls


def _backoff(waits: list[float], attempts: int = 3) -> Backoff:
    return Backoff(attempts=attempts, first_delay=0.5, factor=3.0, sleep=waits.append)


def test_a_transient_failure_is_tried_again_after_growing_waits_each_logged(caplog):
    waits: list[float] = []
    with caplog.at_level(logging.WARNING, logger="nl2fix.core.retry"):
        value = retry(
            Flaky(2, OSError("Tag post-fix revision failed\nmore")),
            what="checkout of Lang-1",
            transient=lambda exc: True,
            backoff=_backoff(waits),
        )
    assert value == 3 and waits == [0.5, 1.5]
    assert [r.getMessage() for r in caplog.records] == [
        "checkout of Lang-1 failed (try 1 of 3: Tag post-fix revision failed); trying again in 0.5 s",
        "checkout of Lang-1 failed (try 2 of 3: Tag post-fix revision failed); trying again in 1.5 s",
    ]


def test_tries_are_bounded_and_the_last_failure_is_raised():
    waits: list[float] = []
    action = Flaky(5, OSError("still down"))
    with pytest.raises(OSError, match="still down"):
        retry(action, what="x", transient=lambda exc: True, backoff=_backoff(waits))
    assert action.calls == 3 and len(waits) == 2


def test_a_failure_that_is_not_transient_is_raised_at_once():
    waits: list[float] = []
    action = Flaky(1, ValueError("Java 11 is required!"))
    with pytest.raises(ValueError):
        retry(action, what="x", transient=lambda exc: not isinstance(exc, ValueError), backoff=_backoff(waits))
    assert action.calls == 1 and waits == []


def test_a_result_that_reports_a_transient_failure_is_asked_for_again_and_the_last_one_kept(caplog):
    waits: list[float] = []
    results = iter([(1, "lost the lock"), (1, "lost the lock"), (0, "")])
    with caplog.at_level(logging.WARNING, logger="nl2fix.core.retry"):
        got = retry_while(
            lambda: next(results), failed=lambda r: r[1], what="`defects4j test`", backoff=_backoff(waits)
        )
    assert got == (0, "") and waits == [0.5, 1.5] and len(caplog.records) == 2
    # still failing after every try: the last result comes back as it was, nothing is raised
    always = Flaky(0, OSError())
    got = retry_while(lambda: ("exit 1", always()), failed=lambda r: r[0], what="x", backoff=_backoff(waits := []))
    assert got == ("exit 1", 3) and len(waits) == 2
    # a result without a failure is taken at once
    assert retry_while(lambda: "ok", failed=lambda r: "", what="x", backoff=_backoff(waits := [])) == "ok" and not waits
