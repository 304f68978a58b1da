"""What prompts are fitted to, the model the backend serves (its context window and tokenizer),
and each bug's first prompt, fitted to it and stored, so a resumed run asks what it asked before."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from nl2fix.core.domain import Bug, Strategy
from nl2fix.core.tokenizer import Tokenizer
from nl2fix.dataset.load import Dataset
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.prompting.prompt import Prompt, build_prompt, context_window_for
from nl2fix.sampling.backends.base import SamplingBackend, model_info
from nl2fix.store.records import RunConfig
from nl2fix.store.run_store import RunStore


@dataclass(frozen=True)
class ModelFit:
    """What prompts are fitted to: the served model's window and tokenizer."""

    context_window: int
    counter: str | Tokenizer
    """The model's own tokenizer, else its name (counted with its family's encoding)."""
    stop_reasons: bool
    """The backend reports which stop sequence ended an answer, so default stops can be sent."""


def model_fit(config: RunConfig, backend: SamplingBackend) -> ModelFit:
    info = model_info(backend)
    # the window given (--context-window), else the model's own, else its family's
    return ModelFit(
        config.context_window or info.context_window or context_window_for(config.model),
        info.tokenizer or config.model,
        info.stop_reasons,
    )


def one_shot_examples(strategy: Strategy, dataset: Dataset) -> Callable[[], ExampleIndex | None]:
    """The examples ``strategy`` chooses from (one-shot's only), indexed on first use: indexing reads
    every bug of the dataset."""

    @functools.cache
    def examples() -> ExampleIndex | None:
        return ExampleIndex(list(dataset.bugs.values())) if strategy is Strategy.ONE_SHOT else None

    return examples


def first_prompt(
    store: RunStore,
    config: RunConfig,
    fit: ModelFit,
    bug: Bug,
    strategy: Strategy,
    examples: Callable[[], ExampleIndex | None],
) -> Prompt:
    """The bug's stored prompt, else its ``strategy`` prompt fitted to the model (stored here)."""
    stored = store.prompt(bug.id)
    if stored is not None:
        return Prompt.from_record(stored, config.model_style, bug)
    prompt = build_prompt(
        bug,
        strategy,
        config.model_style,
        model=fit.counter,
        context_window=fit.context_window,
        max_tokens=config.max_tokens,
        examples=examples(),
    )
    store.save_prompt(prompt.record())
    return prompt
