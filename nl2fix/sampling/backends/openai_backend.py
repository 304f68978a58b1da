"""Any OpenAI-compatible endpoint (OpenAI, Azure-style proxies, vLLM/llama.cpp servers ...).

Chat and edit styles go to ``/chat/completions``, the completion style to ``/completions``.
A request for ``n`` answers asks for them in one call when the server allows; a server that
rejects ``n`` or returns fewer choices is then asked with parallel ``n=1`` calls. Calls run on a
bounded number of threads. Failed calls are retried by the rule of :mod:`nl2fix.core.openai_client`
(rate limits, 5xx answers, malformed answers, timeouts and connection errors, with back-off honouring
``Retry-After``); an exhausted quota (a 429 that waiting does not cure) stops the run. Only a
rejection that names ``n`` makes later calls ask one answer at a time.

An interrupted generation (Ctrl-C) cancels its calls: none is retried or started any more, and the
threads of the calls in flight are daemons, so a call waiting on a server that never answers does not
hold the process up until its timeout.

A local server tells about its model: vLLM's ``/v1/models`` reports ``max_model_len`` and the
model's ``root`` (its folder, whose tokenizer is loaded when it is on this machine; else the
server's own ``/tokenize`` counts). A vLLM server is asked for each choice's token ids
(``return_token_ids``), so every sample's completion tokens are its own; other servers' usage is
per request, so the answers of an ``n > 1`` call are counted with the model's tokenizer.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from nl2fix.core import tokens
from nl2fix.core.domain import ModelStyle
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.model_tokenizers import ServerTokenizer, local_tokenizer
from nl2fix.core.openai_client import (
    MalformedResponse,
    RetryPolicy,
    endpoint,
    error_message,
    make_client,
    parsed,
    quota_exhausted,
    retrying,
)
from nl2fix.core.tokenizer import Tokenizer
from nl2fix.sampling.backends.base import BackendSettings, Choice, ModelInfo, Request, backend, split_evenly
from nl2fix.store.records import RunConfig

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionMessageParam

log = logging.getLogger(__name__)

MAX_N = 128
"""Most choices asked for in one call (OpenAI's limit)."""


def _about_n(exc: openai.BadRequestError) -> bool:
    """Whether a rejection names the ``n`` parameter (not, say, a prompt over the context length)."""
    return exc.param == "n" or bool(re.search(r"\bn\b|choices", error_message(exc)))


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
        base_url = endpoint(base_url)
        no_key = Nl2FixError(
            "the openai backend needs an API key",
            "set OPENAI_API_KEY, or pass --base-url for a local OpenAI-compatible server",
        )
        self.model = model
        self.base_url = base_url
        self.client = make_client(base_url, api_key, timeout=timeout, no_key=no_key)
        self.concurrency = max(1, concurrency)
        self.seed = seed
        self.retry = retry
        # what the server turned out to accept; only the generating thread changes these
        self._n_allowed = True
        self._token_param = "max_tokens"
        self._answered = False
        self._info: ModelInfo | None = None
        self._vllm = False
        """The server is vLLM (its /v1/models says so): ask it for per-choice token ids."""

    def close(self) -> None:
        self.client.close()

    # -- the model -----------------------------------------------------------------------------
    def model_info(self) -> ModelInfo:
        """The served model's context length and tokenizer, from the server's ``/v1/models``."""
        if self._info is None:
            self._info = self._ask_model_info()
        return self._info

    def _ask_model_info(self) -> ModelInfo:
        import openai

        if not self.base_url:  # OpenAI's own API: its models are known by name
            return ModelInfo()
        try:
            cards = list(self.client.models.list())
        except openai.APIError as exc:  # no /v1/models, or no server yet: generation will say
            log.info(
                "%s/models did not answer (%s); the model's context length is not known", self.client.base_url, exc
            )
            return ModelInfo()
        card = next((c for c in cards if c.id == self.model), None)
        if card is None:
            return ModelInfo()
        extra = card.model_extra or {}
        self._vllm = card.owned_by == "vllm" or "max_model_len" in extra
        root = extra.get("root") or self.model
        tokenizer: Tokenizer | None = local_tokenizer(root)
        if tokenizer is None and self._vllm:
            server = ServerTokenizer(str(self.client.base_url).rstrip("/").removesuffix("/v1"), self.model)
            tokenizer = server if server.available() else None
        window = extra.get("max_model_len")
        return ModelInfo(context_window=int(window) if window else None, tokenizer=tokenizer, stop_reasons=self._vllm)

    def _counter(self) -> str | Tokenizer:
        return (self._info.tokenizer if self._info is not None else None) or self.model

    # -- one call ------------------------------------------------------------------------------
    def _create(self, call: _Call):
        req = call.request
        params: dict[str, Any] = {"model": self.model, "n": call.n, "temperature": req.temperature}
        if req.stop:
            params["stop"] = list(req.stop)
        if self._vllm:
            params["extra_body"] = {"return_token_ids": True}
        if self.seed is not None:
            # calls of one request differ in seed, or a seed-honouring server answers n=1 calls alike
            params["seed"] = self.seed + call.first_index
        if req.style is ModelStyle.COMPLETION:
            response = parsed(
                lambda: self.client.completions.create(
                    prompt=req.messages[0]["content"], max_tokens=req.max_tokens, **params
                )
            )
        else:
            # the prompt's roles are the chat API's own (system, user, assistant)
            messages = cast(
                "list[ChatCompletionMessageParam]", [{"role": m["role"], "content": m["content"]} for m in req.messages]
            )
            params[self._token_param] = req.max_tokens
            response = parsed(lambda: self.client.chat.completions.create(messages=messages, **params))
        if not isinstance(response.choices, list):
            raise MalformedResponse("a body without a list of choices")
        return response

    def _call(self, call: _Call, cancelled: threading.Event) -> list[Choice]:
        started = time.monotonic()
        response = retrying(self.retry, cancelled)(self._create, call)
        seconds = time.monotonic() - started
        completion = call.request.style is ModelStyle.COMPLETION
        answers = [(c.text if completion else c.message.content) or "" for c in response.choices]
        extras = [c.model_extra or {} for c in response.choices]
        usage = response.usage
        if usage is not None:
            prompt_total = usage.prompt_tokens or 0
        else:  # some servers leave usage out: count it ourselves
            messages = call.request.messages
            prompt_total = (
                tokens.count_prompt(messages[0]["content"], self._counter())
                if completion
                else tokens.count_messages(messages, self._counter())
            )
        completion_each = [
            self._completion_tokens(answer, extra, usage, len(answers)) for answer, extra in zip(answers, extras)
        ]
        return [
            Choice(
                answer,
                c.finish_reason,
                prompt,
                done,
                stop_reason=extra.get("stop_reason"),
                seconds=seconds / len(answers),
            )
            for answer, c, extra, prompt, done in zip(
                answers, response.choices, extras, split_evenly(prompt_total, len(answers)), completion_each
            )
        ]

    def _completion_tokens(self, answer: str, extra: dict, usage, answers: int) -> int:
        """One answer's own completion tokens: its token ids (vLLM), the usage of a one-answer
        response, else the answer counted with the model's tokenizer (never a share of the total)."""
        if isinstance(extra.get("token_ids"), list):
            return len(extra["token_ids"])
        if usage is not None and answers == 1:
            return usage.completion_tokens or 0
        return tokens.count(answer, self._counter())

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
        import openai

        self.model_info()  # what the server is decides what to ask it
        cancelled = threading.Event()
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
                    running[_in_daemon(functools.partial(self._call, first, cancelled))] = first
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
                        else:  # this request alone is refused (a prompt over the context length ...)
                            yield call.request, RequestRejected(f"HTTP {exc.status_code}: {error_message(exc)}")
                        continue
                    except openai.RateLimitError as exc:
                        if not quota_exhausted(exc):
                            yield call.request, exc
                            continue
                        raise Nl2FixError(
                            f"the account's quota is exhausted: {error_message(exc)}",
                            "everything received so far is stored; add credit, then re-run the same command to resume",
                        ) from exc
                    except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
                        raise Nl2FixError(
                            f"the server refused the request ({exc.status_code}): {error_message(exc)}",
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
            # on an abort (Ctrl-C, an error that ends the run) the calls in flight are not waited for
            cancelled.set()

    def _unreachable(self, exc: openai.APIConnectionError) -> Nl2FixError:
        where = f"the server at {self.client.base_url}"
        if self._answered:
            return Nl2FixError(
                f"{where} stopped answering ({type(exc).__name__}: {exc})",
                "everything received so far is stored; re-run the same command to resume",
            )
        return Nl2FixError(
            f"{where} did not answer ({type(exc).__name__}: {exc})",
            "check that it is running and that --base-url (or $OPENAI_BASE_URL) is its address",
        )

    def _adapt(self, call: _Call, exc: openai.BadRequestError) -> list[_Call]:
        """What to ask instead of a rejected call, when the rejection is about a parameter we can change."""
        if "max_completion_tokens" in error_message(exc) and not call.adapted:
            self._token_param = "max_completion_tokens"
            return [_Call(call.request, call.n, adapted=True, first=call.first)]
        if call.n > 1 and _about_n(exc):
            self._n_allowed = False
            return [call]  # split into n=1 calls when it starts again
        return []


class RequestRejected(Exception):
    """The server refused one request (the others go on)."""


def _in_daemon(work: Callable[[], list[Choice]]) -> Future:
    """``work()`` on a daemon thread of its own (the caller bounds how many run): unlike a thread pool's,
    such a thread does not keep an interrupted process alive while its call waits for an answer."""
    future: Future = Future()

    def run() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, name="nl2fix-openai", daemon=True).start()
    return future


def _chunks(n: int, size: int) -> list[int]:
    return [min(size, n - start) for start in range(0, n, size)]


@backend("openai")
def create_openai(config: RunConfig, settings: BackendSettings) -> OpenAIBackend:
    retry = RetryPolicy() if settings.retries is None else RetryPolicy(attempts=settings.retries + 1)
    return OpenAIBackend(
        config.model, base_url=config.base_url, concurrency=settings.concurrency, seed=config.seed or None, retry=retry
    )
