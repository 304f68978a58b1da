"""Bounded retries with back-off: a fake flaky action, the waits recorded instead of slept."""

from __future__ import annotations

import logging

import pytest

from nl2fix.core.retry import Backoff, retry


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
        value = retry(Flaky(2, OSError("Tag post-fix revision failed\nmore")), what="checkout of Lang-1",
                      transient=lambda exc: True, backoff=_backoff(waits))
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
