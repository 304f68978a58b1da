"""Bounded retries with back-off, for harness steps that fail now and then for reasons of their own
(a Defects4J checkout under load, a JVM that does not start): a verdict of `error` costs a manual
re-run of the whole bug, a retry seconds. Every retry is logged, so a flaky machine shows.

The retrying itself is tenacity's, as for the model server's requests (:mod:`nl2fix.core.openai_client`):
one retry engine in the project. This module only says the harness's policy (:class:`Backoff`) and
its two shapes of failure, a raised one (:func:`retry`) and one reported in a result (:func:`retry_while`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity

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


def _retrying(
    backoff: Backoff, what: str, condition: tenacity.retry_base, why: Callable[[tenacity.RetryCallState], str]
) -> tenacity.Retrying:
    def say(state: tenacity.RetryCallState) -> None:
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "%s failed (try %d of %d: %s); trying again in %.3g s",
            what,
            state.attempt_number,
            backoff.attempts,
            why(state),
            wait,
        )

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(backoff.attempts),
        wait=tenacity.wait_exponential(multiplier=backoff.first_delay, exp_base=backoff.factor),
        sleep=backoff.sleep,
        retry=condition,
        before_sleep=say,
        reraise=True,
    )


def _first_line(state: tenacity.RetryCallState) -> str:
    exc = state.outcome.exception() if state.outcome else None
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def retry(
    action: Callable[[], T], *, what: str, transient: Callable[[Exception], bool], backoff: Backoff = Backoff()
) -> T:
    """``action()``'s value, trying again after a failure that ``transient`` accepts until
    ``backoff.attempts`` tries are spent; the last failure (or the first one that is not transient)
    is raised as it was. An interrupt (not an ``Exception``) is never retried."""
    condition = tenacity.retry_if_exception(lambda exc: isinstance(exc, Exception) and transient(exc))
    return _retrying(backoff, what, condition, _first_line)(action)


def retry_while(action: Callable[[], T], *, failed: Callable[[T], str], what: str, backoff: Backoff = Backoff()) -> T:
    """For actions that report a harness failure in their result rather than raise it (a Defects4J
    command's exit and output): ``action()`` again while ``failed`` names a transient failure of its
    result (empty: none), until ``backoff.attempts`` tries are spent; the last result, as it was."""

    def why(state: tenacity.RetryCallState) -> str:
        return failed(state.outcome.result()) if state.outcome else ""

    retrying = _retrying(backoff, what, tenacity.retry_if_result(lambda result: bool(failed(result))), why)
    retrying.retry_error_callback = lambda state: state.outcome.result() if state.outcome else None
    return retrying(action)
