"""Bounded retries with back-off, for harness steps that fail now and then for reasons of their own
(a Defects4J checkout under load, a JVM that does not start): a verdict of `error` costs a manual
re-run of the whole bug, a retry seconds. Every retry is logged, so a flaky machine shows."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Backoff:
    """At most ``attempts`` tries, waiting ``first_delay`` seconds after the first failure and
    ``factor`` times longer after each next one."""

    attempts: int = 3
    first_delay: float = 5.0
    factor: float = 3.0
    sleep: Callable[[float], None] = time.sleep
    """Injectable, so that tests need not wait."""

    def delay(self, failures: int) -> float:
        return self.first_delay * self.factor ** (failures - 1)


def retry(action: Callable[[], T], *, what: str, transient: Callable[[Exception], bool],
          backoff: Backoff = Backoff()) -> T:
    """``action()``'s value, trying again after a failure that ``transient`` accepts until
    ``backoff.attempts`` tries are spent; the last failure (or the first one that is not transient)
    is raised as it was."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return action()
        except Exception as exc:
            if attempt >= backoff.attempts or not transient(exc):
                raise
            delay = backoff.delay(attempt)
            first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            log.warning("%s failed (try %d of %d: %s); trying again in %.3g s", what, attempt, backoff.attempts,
                        first_line, delay)
            backoff.sleep(delay)


class _Hiccup(Exception):
    """A result :func:`retry_while` tries again after; it carries the result, for the last try."""

    def __init__(self, why: str, result: object):
        super().__init__(why)
        self.result = result


def retry_while(action: Callable[[], T], *, failed: Callable[[T], str], what: str,
                backoff: Backoff = Backoff()) -> T:
    """For actions that report a harness failure in their result rather than raise it (a Defects4J
    command's exit and output): ``action()`` again while ``failed`` names a transient failure of its
    result (empty: none), until ``backoff.attempts`` tries are spent; the last result, as it was."""
    def attempt() -> T:
        result = action()
        why = failed(result)
        if why:
            raise _Hiccup(why, result)
        return result

    try:
        return retry(attempt, what=what, transient=lambda exc: isinstance(exc, _Hiccup), backoff=backoff)
    except _Hiccup as last:
        return last.result  # type: ignore[return-value]
