"""Sampling as chains of turns: each bug's prompt asks for all its missing samples at once; a
single-turn strategy's answers are the samples, a multi-turn one's (``reasoning``) are each
followed up on their own, one chain per sample, until the final turn. A sample is stored only when
its chain completes, so an interrupted chain is asked again from the start. The final answer's
request carries the stop sequences (:mod:`nl2fix.sampling.stops`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.progress import progress_bar
from nl2fix.dataset.load import Dataset
from nl2fix.prompting.prompt import Prompt, target_method, turn_max_tokens
from nl2fix.sampling import stops
from nl2fix.sampling.answers import store_answer
from nl2fix.sampling.backends.base import Choice, Request, SamplingBackend
from nl2fix.sampling.model_fit import first_prompt, model_fit, one_shot_examples
from nl2fix.sampling.summary import MAX_ERRORS_SHOWN, SampleSummary
from nl2fix.store.records import RunConfig
from nl2fix.store.run_store import RunStore


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


class _Sampler:
    def __init__(self, store: RunStore, config: RunConfig, backend: SamplingBackend):
        self.store, self.config, self.backend = store, config, backend
        self.fit = model_fit(config, backend)

    def stop_sequences(self, bug: Bug, prompt: Prompt) -> tuple[str, ...]:
        if self.config.stop is not None:
            return tuple(self.config.stop)
        return stops.default_stops(prompt.style, target_method(bug)) if self.fit.stop_reasons else ()

    def first_request(self, bug: Bug, prompt: Prompt, missing: list[int]) -> tuple[Request, _Chain]:
        request = Request(
            bug=bug,
            messages=list(prompt.turns[0]),
            style=prompt.style,
            n=len(missing),
            max_tokens=(
                turn_max_tokens(prompt.strategy, 1, self.config.max_tokens)
                if self._turns(prompt) > 1
                else self.config.max_tokens
            ),
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
                    stop=(
                        self.stop_sequences(chain.bug, chain.prompt)
                        if chain.turn + 1 == self._turns(chain.prompt)
                        else ()
                    ),
                )
                follow_ups[later] = _Chain(
                    chain.bug, chain.prompt, chain.turn + 1, deque([index]), prompt_tokens, completion_tokens, seconds
                )
                continue
            stored += self.store_sample(request, chain, index, choice, prompt_tokens, completion_tokens, seconds)
        return stored

    def store_sample(
        self,
        request: Request,
        chain: _Chain,
        index: int,
        choice: Choice,
        prompt_tokens: int,
        completion_tokens: int,
        seconds: float,
    ) -> int:
        # earlier turns as asked and answered: all that was sent, less the system message and the last question
        last_question = len(chain.prompt.turns[chain.turn - 1])
        transcript = [m for m in request.messages[:-last_question] if m["role"] != "system"] if chain.turn > 1 else []
        return store_answer(
            self.store,
            chain.bug,
            chain.prompt.header,
            index,
            choice,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            generation_seconds=seconds,
            transcript=transcript,
        )


def run_chains(
    store: RunStore,
    config: RunConfig,
    bugs: list[Bug],
    missing: dict[str, list[int]],
    dataset: Dataset,
    backend: SamplingBackend,
    summary: SampleSummary,
    progress: bool,
) -> None:
    """Ask for the ``missing`` sample indices of every bug, one chain of turns per sample, storing
    each sample as its chain completes; ``summary`` counts what happened."""
    sampler = _Sampler(store, config, backend)
    examples = one_shot_examples(config.strategy, dataset)
    chains: dict[Request, _Chain] = {}
    for bug in bugs:
        try:
            prompt = first_prompt(store, config, sampler.fit, bug, config.strategy, examples)
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
