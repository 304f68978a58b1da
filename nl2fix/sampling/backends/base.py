"""The backend interface: one small protocol, and the registry every backend module adds itself to.

A backend answers :class:`Request` s (a prompt and how many answers it wants) with
:class:`Choice` s, yielding each request's answers as soon as they arrive so the caller can store
them at once. A request may be answered in several parts (never more than ``n`` answers in all);
a request that failed for good is answered with the exception instead. A backend raises
:class:`~nl2fix.core.errors.Nl2FixError` only when nothing more can be done (bad credentials, a server
that has stopped answering); what was already answered stays answered.

A backend that knows its model also tells :func:`model_info`: the context length and the
tokenizer the model's server or vLLM counts with, so prompts are fitted to that model rather than to a
guess. A backend without a model (mutation, replay) has nothing to tell.

A backend module registers a factory with ``@backend("name")``; this module imports none of them
(:mod:`nl2fix.sampling.backends.providers` does, and creates the one a run names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from nl2fix.core.domain import Bug, ModelStyle
from nl2fix.core.registry import Registry
from nl2fix.core.tokenizer import Tokenizer
from nl2fix.store.records import RunConfig

AT_TEMPERATURE = ("openai", "vllm")
"""The backends that sample at the run's temperature: mutation and replay ignore it."""


@dataclass(eq=False)
class Request:
    """One prompt to answer ``n`` times (requests are compared by identity)."""

    bug: Bug
    messages: list[dict]
    """Chat messages; for the completion style, one user message holding the prompt text."""
    style: ModelStyle
    n: int
    max_tokens: int
    temperature: float
    indices: tuple[int, ...] = ()
    """The sample indices the answers are for; backends that tie answers to indices (mutation,
    replay) answer a prefix of them, in order."""
    stop: tuple[str, ...] = ()
    """Stop sequences: generation ends before the first of them (which the text then leaves out)."""


@dataclass(frozen=True)
class Choice:
    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    """This answer's share of the request's prompt tokens."""
    completion_tokens: int = 0
    stop_reason: str | int | None = None
    """The stop sequence (or stop token id) that ended the answer, when the backend knows; None
    for the model's own end and for ``max_tokens``."""
    seconds: float = 0.0
    """This answer's share of the wall-clock seconds its request took to generate."""


@dataclass(frozen=True)
class ModelInfo:
    """What a backend's model says about itself."""

    context_window: int | None = None
    """Most tokens of prompt and answer together (vLLM's ``max_model_len``); None: not known."""
    tokenizer: Tokenizer | None = None
    """The tokenizer the model's server or vLLM counts with; None: not available here (tiktoken counts)."""
    stop_reasons: bool = False
    """Whether answers say which stop sequence ended them (vLLM's ``stop_reason``; OpenAI does not),
    so that a stop sequence left out of the text can be put back."""
    devices: int = 1
    """Accelerators (or CPU processes) the model occupies: generation seconds times this is its
    device-seconds."""


class SamplingBackend(Protocol):
    name: str
    conversational: bool
    """Whether the backend is a model that holds a conversation (multi-turn strategies need one)."""

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]: ...

    def close(self) -> None: ...


def model_info(backend: SamplingBackend) -> ModelInfo:
    """What ``backend`` knows about its model; backends without one (and ones written before
    :class:`ModelInfo` existed) know nothing."""
    ask = getattr(backend, "model_info", None)
    return ask() if ask is not None else ModelInfo()


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` integers that differ by at most one and sum to ``total``."""
    if parts <= 0:
        return []
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


@dataclass(frozen=True)
class BackendSettings:
    """How a backend calls its model beyond what the run's configuration records (a resumed run may
    change them)."""

    concurrency: int = 8
    """Requests in flight (openai)."""
    retries: int | None = None
    """How often a failed request is retried (openai); None: the backend's default."""


BackendFactory = Callable[[RunConfig, BackendSettings], SamplingBackend]
"""Sets up a backend from the run's configuration (raises Nl2FixError for a configuration it cannot take)."""

BACKENDS: Registry[str, BackendFactory] = Registry("backend")
backend = BACKENDS.register
"""Decorator: the decorated factory is the backend ``--backend NAME`` creates."""
