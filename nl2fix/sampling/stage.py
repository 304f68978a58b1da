"""From bugs to stored samples: prompts, requests to a backend, extraction, the run store.

Resumable: each bug asks only for the sample indices the store does not hold yet, and each
answer is stored the moment it arrives; a run with nothing left to ask for never starts its
backend (loading a local model takes minutes). Prompts are fitted to the model the backend
serves: its context length and tokenizer (see :func:`nl2fix.sampling.backends.model_info`); the final
answer's request carries the stop sequences (:mod:`nl2fix.sampling.stops`). Multi-turn strategies
(``reasoning``) run one chain per sample: the first turn asks for all missing samples at once, then each answer is followed up on
its own; a sample is stored only when its chain completes, so an interrupted chain is asked
again from the start. ``conversation`` runs go through :mod:`nl2fix.sampling.conversation`, which validates
between its rounds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from nl2fix.sampling import backends
from nl2fix.sampling import stops
from nl2fix.sampling.backends import Choice, Request, SamplingBackend
from nl2fix.dataset.load import Dataset
from nl2fix.core.errors import Nl2FixError
from nl2fix.sampling.extraction import extract_method
from nl2fix.java_source.text import candidate_hash
from nl2fix.core.domain import Bug, Strategy
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.core.progress import progress_bar
from nl2fix.prompting.prompt import Prompt, build_prompt, context_window_for, target_method, turn_max_tokens
from nl2fix.store.records import RunConfig, SampleRecord
from nl2fix.store.run_store import RunStore
from nl2fix.core.tokens import Tokenizer
from nl2fix.validation.stage import ValidationOptions

MAX_ERRORS_SHOWN = 3


@dataclass
class SampleSummary:
    samples: int = 0
    """Samples stored for the selected bugs (this run and earlier ones)."""
    new_samples: int = 0
    unique_candidates: int = 0
    unextractable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_requests: int = 0
    """Requests that failed for good this run (their samples are asked again on the next run)."""
    short_bugs: list[str] = field(default_factory=list)
    """Bugs with fewer samples than asked for (failed requests, fewer mutants or replayed patches)."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Bugs that could not be prompted, with why."""
    errors: list[str] = field(default_factory=list)
    """The first few request errors."""
    failed_bugs: list[str] = field(default_factory=list)
    """Bugs with a request that failed for good this run."""

    @property
    def failed(self) -> bool:
        """Some bug was not fully asked for: a request failed, or the bug could not be prompted."""
        return bool(self.failed_requests or self.skipped)

    def __str__(self) -> str:
        lines = [
            f"{self.samples} samples ({self.new_samples} new), {self.unique_candidates} unique candidates, "
            f"{self.unextractable} without an extractable method; "
            f"tokens: {self.prompt_tokens} prompt + {self.completion_tokens} completion"
        ]
        if self.short_bugs:
            lines.append(f"{len(self.short_bugs)} bugs have fewer samples than asked for: {', '.join(self.short_bugs[:10])}"
                         + (" ..." if len(self.short_bugs) > 10 else ""))
        if self.failed_requests:
            lines.append(f"{self.failed_requests} requests failed for {len(self.failed_bugs)} bugs "
                         f"({', '.join(self.failed_bugs)}; re-run to ask again): " + "; ".join(self.errors))
        if self.skipped:
            lines.append(f"{len(self.skipped)} bugs could not be prompted ({', '.join(self.skipped)}):")
            lines += [f"  {bug}: {why}" for bug, why in self.skipped.items()]
        return "\n".join(lines)


@dataclass
class _Chain:
    """Where the samples asked for by one request stand."""

    bug: Bug
    prompt: Prompt
    turn: int
    indices: deque
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class ModelFit:
    """What prompts are fitted to: the served model's window and tokenizer."""

    context_window: int
    counter: str | Tokenizer
    """The model's own tokenizer, else its name (counted with its family's encoding)."""
    stop_reasons: bool
    """The backend reports which stop sequence ended an answer, so default stops can be sent."""


def model_fit(config: RunConfig, backend: SamplingBackend) -> ModelFit:
    info = backends.model_info(backend)
    # the window given (--context-window), else the model's own, else its family's
    return ModelFit(config.context_window or info.context_window or context_window_for(config.model),
                    info.tokenizer or config.model, info.stop_reasons)


class _Sampler:
    def __init__(self, store: RunStore, config: RunConfig, backend: SamplingBackend):
        self.store, self.config, self.backend = store, config, backend
        fit = model_fit(config, backend)
        self.context_window, self.counter, self.default_stops = fit.context_window, fit.counter, fit.stop_reasons

    def stop_sequences(self, bug: Bug, prompt: Prompt) -> tuple[str, ...]:
        if self.config.stop is not None:
            return tuple(self.config.stop)
        return stops.default_stops(prompt.style, target_method(bug)) if self.default_stops else ()

    def prompt_for(self, bug: Bug, examples) -> Prompt:
        stored = self.store.prompt(bug.id)
        if stored is not None:
            return Prompt.from_record(stored, self.config.model_style, bug)
        prompt = build_prompt(
            bug,
            self.config.strategy,
            self.config.model_style,
            model=self.counter,
            context_window=self.context_window,
            max_tokens=self.config.max_tokens,
            examples=examples(),
        )
        self.store.save_prompt(prompt.record())
        return prompt

    def first_request(self, bug: Bug, prompt: Prompt, missing: list[int]) -> tuple[Request, _Chain]:
        request = Request(
            bug=bug,
            messages=list(prompt.turns[0]),
            style=prompt.style,
            n=len(missing),
            max_tokens=turn_max_tokens(prompt.strategy, 1, self.config.max_tokens) if self._turns(prompt) > 1 else self.config.max_tokens,
            temperature=self.config.temperature,
            indices=tuple(missing),
            stop=self.stop_sequences(bug, prompt) if self._turns(prompt) == 1 else (),
        )
        return request, _Chain(bug, prompt, 1, deque(missing))

    def _turns(self, prompt: Prompt) -> int:
        return len(prompt.turns) if self.backend.conversational else 1

    def answer(self, request: Request, chain: _Chain, choices: list[Choice], follow_ups: dict) -> int:
        """Store finished samples, queue follow-up turns; returns the number of samples stored."""
        stored = 0
        for choice in choices:
            if not chain.indices:
                break
            index = chain.indices.popleft()
            prompt_tokens = chain.prompt_tokens + choice.prompt_tokens
            completion_tokens = chain.completion_tokens + choice.completion_tokens
            seconds = chain.seconds + choice.seconds
            if chain.turn < self._turns(chain.prompt):
                answer = {"role": "assistant", "content": choice.text}
                asked = list(chain.prompt.turns[chain.turn])
                later = Request(
                    bug=chain.bug,
                    messages=request.messages + [answer] + asked,
                    style=request.style,
                    n=1,
                    max_tokens=turn_max_tokens(chain.prompt.strategy, chain.turn + 1, self.config.max_tokens),
                    temperature=request.temperature,
                    indices=(index,),
                    stop=self.stop_sequences(chain.bug, chain.prompt) if chain.turn + 1 == self._turns(chain.prompt) else (),
                )
                follow_ups[later] = _Chain(chain.bug, chain.prompt, chain.turn + 1, deque([index]), prompt_tokens,
                                           completion_tokens, seconds)
                continue
            stored += self.store_sample(request, chain, index, choice, prompt_tokens, completion_tokens, seconds)
        return stored

    def store_sample(
        self, request: Request, chain: _Chain, index: int, choice: Choice, prompt_tokens: int, completion_tokens: int,
        seconds: float,
    ) -> int:
        # earlier turns as asked and answered: all that was sent, less the system message and the last question
        last_question = len(chain.prompt.turns[chain.turn - 1])
        transcript = [m for m in request.messages[:-last_question] if m["role"] != "system"] if chain.turn > 1 else []
        return store_answer(self.store, chain.bug, chain.prompt.header, index, choice, prompt_tokens=prompt_tokens,
                            completion_tokens=completion_tokens, generation_seconds=seconds, transcript=transcript)


def store_answer(store: RunStore, bug: Bug, header: str, index: int, choice: Choice, **fields) -> int:
    """Extract the method from one answer (its matched stop sequence put back) and store it as sample
    ``index`` (``fields``: the record's other fields); returns 1 if it was new."""
    response = stops.restore(choice.text, choice.stop_reason)
    extraction = extract_method(response, target_method(bug), header)
    record = SampleRecord(
        bug_id=bug.id,
        index=index,
        response=response,
        finish_reason=choice.finish_reason,
        candidate_hash=candidate_hash(extraction.code) if extraction.code is not None else None,
        extraction_error=extraction.error,
        **fields,
    )
    return int(store.add_sample(record, extraction.code))


def sample(
    run_dir: Path,
    config: RunConfig,
    bugs: list[Bug],
    *,
    dataset: Dataset,
    concurrency: int = 8,
    retries: int | None = None,
    progress: bool = True,
    backend: SamplingBackend | None = None,
    on_start: Callable[[], None] = lambda: None,
    validation: ValidationOptions = ValidationOptions(),
) -> SampleSummary:
    """Ask ``config.backend`` for ``config.n`` samples of every bug, store them in ``run_dir``.

    ``backend`` replaces the one the configuration names (tests pass one with short retry waits);
    else that one is created, with ``concurrency`` and ``retries``, only when some sample is
    missing. ``on_start`` is called once the run directory has taken the configuration and the bugs.
    A ``conversation`` run validates between its rounds with ``validation``.
    """
    summary = SampleSummary()
    with RunStore(run_dir, create=True) as store:
        config = _set_config(store, config)
        store.add_bugs(bugs)
        on_start()
        missing = {bug.id: sorted(set(range(config.n)) - store.sample_indices(bug.id)) for bug in bugs}
        work = [bug for bug in bugs if missing[bug.id]]
        if work:
            owned = backend is None
            backend = backend or backends.create(config, concurrency=concurrency, retries=retries)
            try:
                if config.conversation is not None:
                    from nl2fix.sampling.conversation import converse

                    converse(store, config, work, dataset, backend, summary, progress, validation)
                else:
                    _run(store, config, work, missing, dataset, backend, summary, progress)
            finally:
                if owned:
                    backend.close()
        _tally(store, config, bugs, summary)
    return summary


def _set_config(store: RunStore, config: RunConfig) -> RunConfig:
    """The run's configuration, and the one to sample with; resuming through another endpoint (a
    restarted local server on a new port) is the same run, and keeps the endpoint it started with
    on record; a run recorded with a context window, resumed without one given, keeps it."""
    if store.has_config():
        kept = store.config
        resumed = config.model_copy(update={"context_window": config.context_window or kept.context_window})
        if kept == resumed.model_copy(update={"base_url": kept.base_url}):
            return resumed
    store.set_config(config)
    return config


def _run(store, config, bugs, missing, dataset, backend, summary, progress) -> None:
    sampler = _Sampler(store, config, backend)
    index_cache: list[ExampleIndex] = []

    def examples() -> ExampleIndex | None:
        if config.strategy is not Strategy.ONE_SHOT:
            return None
        if not index_cache:
            index_cache.append(ExampleIndex(list(dataset.bugs.values())))
        return index_cache[0]

    chains: dict[Request, _Chain] = {}
    for bug in bugs:
        try:
            prompt = sampler.prompt_for(bug, examples)
        except Nl2FixError as exc:
            summary.skipped[bug.id] = exc.message
            continue
        request, chain = sampler.first_request(bug, prompt, missing[bug.id])
        chains[request] = chain

    with progress_bar(total=sum(len(c.indices) for c in chains.values()), unit="sample", enabled=progress) as bar:
        while chains:
            follow_ups: dict[Request, _Chain] = {}
            for request, result in backend.generate(list(chains)):
                if isinstance(result, Exception):
                    summary.failed_requests += 1
                    if request.bug.id not in summary.failed_bugs:
                        summary.failed_bugs.append(request.bug.id)
                    if len(summary.errors) < MAX_ERRORS_SHOWN:
                        summary.errors.append(f"{request.bug.id}: {result}")
                    continue
                stored = sampler.answer(request, chains[request], result, follow_ups)
                summary.new_samples += stored
                bar.update(stored)
            chains = follow_ups


def _tally(store: RunStore, config: RunConfig, bugs: list[Bug], summary: SampleSummary) -> None:
    for bug in bugs:
        samples = [s for s in store.samples(bug.id) if s.index < config.n]
        summary.samples += len(samples)
        if len(samples) < config.n:
            summary.short_bugs.append(bug.id)
        summary.unextractable += sum(1 for s in samples if s.candidate_hash is None)
        summary.prompt_tokens += sum(s.prompt_tokens for s in samples)
        summary.completion_tokens += sum(s.completion_tokens for s in samples)
        summary.unique_candidates += len({s.candidate_hash for s in samples if s.candidate_hash is not None})
