"""Any OpenAI-compatible endpoint (OpenAI, Azure-style proxies, vLLM/llama.cpp servers ...).

Chat and edit styles go to ``/chat/completions``, the completion style to ``/completions``.
A request for ``n`` answers asks for them in one call when the server allows; a server that
rejects ``n`` or returns fewer choices is then asked with parallel ``n=1`` calls. Calls run on a
bounded thread pool. The client's own retries are off (``max_retries=0``): tenacity retries rate
limits, 5xx answers, timeouts and connection errors with exponential back-off, honouring
``Retry-After``; an exhausted quota (a 429 that waiting does not cure) stops the run. Only a
rejection that names ``n`` makes later calls ask one answer at a time.
"""

from __future__ import annotations

import os
import re
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Iterator, Sequence

import openai
import tenacity

from nl2fix import tokens
from nl2fix.backends import Choice, Request, split_evenly
from nl2fix.errors import Nl2FixError
from nl2fix.models import ModelStyle

MAX_N = 128
"""Most choices asked for in one call (OpenAI's limit)."""
_RETRY_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    """Calls in all, the first included."""
    initial_wait: float = 1.0
    max_wait: float = 60.0


def _quota_exhausted(exc: BaseException) -> bool:
    """A 429 that waiting does not cure: the account is out of credit."""
    return isinstance(exc, openai.RateLimitError) and (exc.code == "insufficient_quota" or exc.type == "insufficient_quota")


def _about_n(exc: openai.BadRequestError) -> bool:
    """Whether a rejection names the ``n`` parameter (not, say, a prompt over the context length)."""
    return exc.param == "n" or bool(re.search(r"\bn\b|choices", _message(exc)))


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if _quota_exhausted(exc):
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
            from datetime import datetime, timezone

            return max(0.0, (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds())
        except (TypeError, ValueError):
            return None


class _Wait(tenacity.wait.wait_base):
    def __init__(self, policy: RetryPolicy):
        self.policy = policy
        self.backoff = tenacity.wait_exponential(multiplier=policy.initial_wait, max=policy.max_wait) + tenacity.wait_random(
            0, policy.initial_wait
        )

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        asked = retry_after(retry_state.outcome.exception() if retry_state.outcome else None)
        return min(asked, self.policy.max_wait) if asked is not None else self.backoff(retry_state)


@dataclass(frozen=True)
class _Call:
    request: Request
    n: int
    adapted: bool = False
    """Already asked again after a rejected parameter (never loop on a rejection)."""
    first: int = 0
    """How many of the request's answers come before this call's: its first sample's position."""

    @property
    def first_index(self) -> int:
        """The sample index of this call's first answer (its seed offset, stable across resumes)."""
        indices = self.request.indices
        return indices[self.first] if self.first < len(indices) else self.first


class OpenAIBackend:
    name = "openai"
    conversational = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 8,
        seed: int | None = None,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 120.0,
    ):
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            if not base_url:
                raise Nl2FixError(
                    "the openai backend needs an API key",
                    "set OPENAI_API_KEY, or pass --base-url for a local OpenAI-compatible server",
                )
            api_key = "none"  # local servers accept any key
        self.model = model
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)
        self.concurrency = max(1, concurrency)
        self.seed = seed
        self.retry = retry
        # what the server turned out to accept; only the generating thread changes these
        self._n_allowed = True
        self._token_param = "max_tokens"
        self._answered = False

    def close(self) -> None:
        self.client.close()

    # -- one call ------------------------------------------------------------------------------
    def _create(self, call: _Call):
        req = call.request
        params = {"model": self.model, "n": call.n, "temperature": req.temperature}
        if self.seed is not None:
            # calls of one request differ in seed, or a seed-honouring server answers n=1 calls alike
            params["seed"] = self.seed + call.first_index
        if req.style is ModelStyle.COMPLETION:
            return self.client.completions.create(prompt=req.messages[0]["content"], max_tokens=req.max_tokens, **params)
        messages = [{"role": m["role"], "content": m["content"]} for m in req.messages]
        return self.client.chat.completions.create(messages=messages, **{self._token_param: req.max_tokens}, **params)

    def _call(self, call: _Call) -> list[Choice]:
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retry.attempts),
            wait=_Wait(self.retry),
            retry=tenacity.retry_if_exception(_retryable),
            reraise=True,
        )
        response = retrying(self._create, call)
        completion = call.request.style is ModelStyle.COMPLETION
        answers = [(c.text if completion else c.message.content) or "" for c in response.choices]
        finishes = [c.finish_reason for c in response.choices]
        if response.usage is not None:
            prompt_total = response.usage.prompt_tokens or 0
            completion_each = split_evenly(response.usage.completion_tokens or 0, len(answers))
        else:  # some servers leave usage out: count it ourselves
            messages = call.request.messages
            prompt_total = tokens.count(messages[0]["content"], self.model) if completion else tokens.count_messages(messages, self.model)
            completion_each = [tokens.count(a, self.model) for a in answers]
        prompt_each = split_evenly(prompt_total, len(answers))
        return [Choice(*fields) for fields in zip(answers, finishes, prompt_each, completion_each)]

    # -- many requests ---------------------------------------------------------------------------
    def _split(self, call: _Call) -> list[_Call]:
        """The calls that ask for ``call.n`` answers as the server currently allows."""
        if call.n == 1:
            return [call]
        if self._n_allowed:
            parts = _chunks(call.n, MAX_N)
            return [_Call(call.request, part, first=call.first + sum(parts[:i])) for i, part in enumerate(parts)]
        return [_Call(call.request, 1, first=call.first + i) for i in range(call.n)]

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="nl2fix-openai")
        running: dict[Future, _Call] = {}
        # calls are split only when they start, so what was learnt about n applies to all later ones
        waiting = deque(_Call(r, r.n) for r in requests)

        def later(calls: list[_Call]) -> None:
            waiting.extendleft(reversed(calls))  # finish a request before starting the next

        try:
            while waiting or running:
                while waiting and len(running) < self.concurrency:
                    first, *rest = self._split(waiting.popleft())
                    later(rest)
                    running[pool.submit(self._call, first)] = first
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    call = running.pop(future)
                    # any answer, an error status too, shows the server is there
                    self._answered = self._answered or not isinstance(future.exception(), openai.APIConnectionError)
                    try:
                        choices = future.result()
                    except openai.BadRequestError as exc:
                        retry_as = self._adapt(call, exc)
                        if retry_as:
                            later(retry_as)
                        else:
                            yield call.request, exc
                        continue
                    except openai.RateLimitError as exc:
                        if not _quota_exhausted(exc):
                            yield call.request, exc
                            continue
                        raise Nl2FixError(
                            f"the account's quota is exhausted: {_message(exc)}",
                            "everything received so far is stored; add credit, then re-run the same command to resume",
                        ) from exc
                    except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
                        raise Nl2FixError(
                            f"the server refused the request ({exc.status_code}): {_message(exc)}",
                            "check OPENAI_API_KEY, --base-url and --model",
                        ) from exc
                    except openai.APIConnectionError as exc:
                        raise self._unreachable(exc) from exc
                    except Exception as exc:  # an error status that survived the retries
                        yield call.request, exc
                        continue
                    if not choices:
                        yield call.request, RuntimeError("the server returned no choices")
                        continue
                    yield call.request, choices[: call.n]
                    if len(choices) < call.n:
                        if len(choices) == 1:
                            self._n_allowed = False  # the server ignores n
                        later([_Call(call.request, call.n - len(choices), first=call.first + len(choices))])
        finally:
            # on an abort, calls in flight end on their own (bounded by the timeout); nobody waits
            pool.shutdown(wait=False, cancel_futures=True)

    def _unreachable(self, exc: openai.APIConnectionError) -> Nl2FixError:
        where = f"the server at {self.client.base_url}"
        if self._answered:
            return Nl2FixError(f"{where} stopped answering ({type(exc).__name__}: {exc})",
                               "everything received so far is stored; re-run the same command to resume")
        return Nl2FixError(f"{where} did not answer ({type(exc).__name__}: {exc})",
                           "check that it is running and that --base-url (or $OPENAI_BASE_URL) is its address")

    def _adapt(self, call: _Call, exc: openai.BadRequestError) -> list[_Call]:
        """What to ask instead of a rejected call, when the rejection is about a parameter we can change."""
        if "max_completion_tokens" in _message(exc) and not call.adapted:
            self._token_param = "max_completion_tokens"
            return [_Call(call.request, call.n, adapted=True, first=call.first)]
        if call.n > 1 and _about_n(exc):
            self._n_allowed = False
            return [call]  # split into n=1 calls when it starts again
        return []


def _chunks(n: int, size: int) -> list[int]:
    return [min(size, n - start) for start in range(0, n, size)]


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return str(exc)
