"""What every call to an OpenAI-compatible endpoint shares, the sampling backend's and the
embedder's: the client, and one retry rule.

The client's own retries are off (``max_retries=0``): tenacity retries rate limits, 5xx answers,
malformed answers (a body that is not the JSON the API defines, as a server cut off mid-answer
sends), timeouts and connection errors with exponential back-off, honouring ``Retry-After``; an
exhausted quota (a 429 that waiting does not cure) is not retried. A retry's wait ends at once, and
no further attempt starts, when the caller is cancelled (Ctrl-C). A local server needs no API key, but the
client insists on one, so it is given a placeholder.

The ``openai`` package is imported when a client is made or an error is judged, not with this
module: it takes a good part of a second, and most commands never call a model.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

import tenacity

from nl2fix.core.errors import Nl2FixError

if TYPE_CHECKING:
    import openai

T = TypeVar("T")
_RETRY_STATUS = {408, 409, 429}
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    """Calls in all, the first included."""
    initial_wait: float = 1.0
    max_wait: float = 60.0


def endpoint(base_url: str | None) -> str | None:
    """The endpoint to call: ``base_url``, else ``$OPENAI_BASE_URL``; None: OpenAI's own API."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or None


def make_client(base_url: str | None, api_key: str | None, *, timeout: float, no_key: Nl2FixError) -> openai.OpenAI:
    """A client of ``base_url`` (None: OpenAI's API) with ``api_key``, else ``$OPENAI_API_KEY``;
    ``no_key`` is raised when there is no key and the endpoint is OpenAI's own."""
    import openai

    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key and not base_url:
        raise no_key
    return openai.OpenAI(api_key=key or "none", base_url=base_url, max_retries=0, timeout=timeout)


class MalformedResponse(Exception):
    """The server answered, but not with the JSON the API defines (a body cut short, or no choices)."""

    def __init__(self, detail: str):
        super().__init__(f"the model server sent a malformed response ({detail})")


def parsed(create: Callable[[], T]) -> T:
    """``create()``, the call of an API method, with a body the client cannot parse raised as
    :class:`MalformedResponse`."""
    try:
        return create()
    except ValueError as exc:  # json.JSONDecodeError: the client parses the body without checking it
        raise MalformedResponse(f"a body that is not valid JSON: {exc}") from exc


def quota_exhausted(exc: BaseException) -> bool:
    """A 429 that waiting does not cure: the account is out of credit."""
    import openai

    return isinstance(exc, openai.RateLimitError) and (
        exc.code == "insufficient_quota" or exc.type == "insufficient_quota"
    )


def retryable(exc: BaseException) -> bool:
    """Whether a failed call is worth making again: a connection error or timeout, a rate limit
    (not an exhausted quota), a conflict, a server error or a malformed answer."""
    import openai

    if isinstance(exc, (openai.APIConnectionError, MalformedResponse)):  # includes APITimeoutError
        return True
    if quota_exhausted(exc):
        return False
    return isinstance(exc, openai.APIStatusError) and (exc.status_code in _RETRY_STATUS or exc.status_code >= 500)


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms`` or ``retry-after``), if it said."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    if headers.get("retry-after-ms"):
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        try:
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds())
        except (TypeError, ValueError):
            return None


class RetryWait(tenacity.wait.wait_base):
    """The wait before the next attempt: what the server asked for (at most ``max_wait``), else
    exponential back-off with jitter."""

    def __init__(self, policy: RetryPolicy):
        self.policy = policy
        self.backoff = tenacity.wait_exponential(
            multiplier=policy.initial_wait, max=policy.max_wait
        ) + tenacity.wait_random(0, policy.initial_wait)

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        asked = retry_after(retry_state.outcome.exception() if retry_state.outcome else None)
        return min(asked, self.policy.max_wait) if asked is not None else self.backoff(retry_state)


def _say_retry(state: tenacity.RetryCallState) -> None:
    """A failed call is said before the wait, so a slow or absent server is not silence."""
    exc = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    log.warning(
        "the model server did not answer (%s: %s); attempt %d failed, trying again in %.0f s",
        type(exc).__name__,
        str(exc)[:200],
        state.attempt_number,
        wait,
    )


class _Cancelled(tenacity.stop.stop_base):
    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        return self.event.is_set()


def retrying(policy: RetryPolicy, cancelled: threading.Event | None = None) -> tenacity.Retrying:
    """Calls through this retry what :func:`retryable` allows, as ``policy`` says; the last error is raised.
    Once ``cancelled`` is set, a wait ends at once and no new attempt starts."""
    cancel = cancelled or threading.Event()

    def sleep(seconds: float) -> None:
        cancel.wait(seconds)

    return tenacity.Retrying(
        stop=tenacity.stop_any(tenacity.stop_after_attempt(policy.attempts), _Cancelled(cancel)),
        wait=RetryWait(policy),
        sleep=sleep,
        retry=tenacity.retry_if_exception(retryable),
        before_sleep=_say_retry,
        reraise=True,
    )


def check_reachable(base_url: str, timeout: float = 5.0) -> None:
    """Raise at once when nothing listens at ``base_url``'s host and port (a server not started,
    a mistyped port), rather than after every back-off of every request."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname or "localhost", port), timeout=timeout).close()
    except OSError as exc:
        raise Nl2FixError(
            f"cannot reach the model server at {base_url} ({exc.strerror or exc})",
            "start the server, or pass the right --base-url (or $OPENAI_BASE_URL)",
        ) from exc


def error_message(exc: openai.APIStatusError) -> str:
    """What the server said about a refused call: its body's ``message``, else the error's text."""
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else None
    return message if isinstance(message, str) else str(exc)
