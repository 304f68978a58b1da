"""``--strategy conversation``: rounds of samples, each round told how the earlier candidates fared.

Round 1 sends the first prompt (zero-shot, one-shot, title-only, test-driven as ChatRepair's, or
issue-and-test). Between rounds the new
candidates are validated (:func:`nl2fix.validation.stage.validate` of those bugs: only candidates without a
verdict cost anything), and the next round shows the earlier candidates with their test results
(:mod:`nl2fix.sampling.feedback`), deduplicated by candidate and fitted to the context window
(:mod:`nl2fix.prompting.conversation_prompt`). Once a candidate is plausible, the rounds ask for alternative
fixes (ChatRepair's second phase), so the ranker has plausible variety to choose from.

A bug stops after ``rounds`` rounds, when its sample budget (the run's ``n``) is spent, or once its
samples used ``token_budget`` tokens. Resumable without re-asking the model: each round is stored
before it is sent, each answer as it arrives; a restarted run first asks for the answers its last
stored round still lacks (with that round's stored messages), validates what has no verdict, and only
then builds the next round.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from nl2fix.core.domain import FIRST_PROMPTS, Bug, ConversationPhase, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.progress import progress_bar
from nl2fix.dataset.load import Dataset
from nl2fix.prompting.conversation_prompt import Attempt, build_round
from nl2fix.prompting.prompt import Prompt
from nl2fix.sampling.answers import store_answer
from nl2fix.sampling.backends.base import Request, SamplingBackend
from nl2fix.sampling.feedback import feedback
from nl2fix.sampling.model_fit import ModelFit, first_prompt, model_fit, one_shot_examples
from nl2fix.sampling.summary import MAX_ERRORS_SHOWN, SampleSummary
from nl2fix.store.records import RoundRecord, RunConfig
from nl2fix.store.run_store import RunStore
from nl2fix.validation.options import ValidationOptions, WorkspaceFactory
from nl2fix.validation.stage import validate


@dataclass
class _Asked:
    """A request in flight: which bug and round, and the sample indices its answers fill, in order."""

    bug: Bug
    base: Prompt
    round: RoundRecord
    indices: deque = field(default_factory=deque)


def attempts(store: RunStore, bug: Bug, engine: str) -> list[Attempt]:
    """The bug's candidates so far with their feedback, in the order they first appeared; candidates
    without a verdict, or with the harness's ``error``, are not shown."""
    out: list[Attempt] = []
    for candidate in store.candidates(bug.id):
        record = store.validation(bug.id, candidate.hash, engine)
        if record is None:
            continue
        text = feedback(record, candidate.code, bug.start_line)
        if text is not None:
            out.append(Attempt(candidate.hash, candidate.code, text, record.verdict is Verdict.PLAUSIBLE))
    return out


def _tokens_used(store: RunStore, bug: Bug) -> int:
    return sum(s.prompt_tokens + s.completion_tokens for s in store.samples(bug.id))


def next_round(
    store: RunStore, config: RunConfig, fit: ModelFit, bug: Bug, base: Prompt, engine: str
) -> tuple[RoundRecord, list[int]] | None:
    """The round to ask now and the sample indices it still needs, or None when the bug is done:
    the last stored round while some of its answers are missing, else a new round (stored here)."""
    conv = config.conversation
    assert conv is not None  # converse(), the only caller, checked it
    rounds = store.rounds(bug.id)
    have = store.sample_indices(bug.id)
    if rounds:
        missing = [i for i in rounds[-1].indices if i not in have]
        if missing:
            return rounds[-1], missing
    asked = sum(len(r.indices) for r in rounds)
    if len(rounds) >= conv.rounds or asked >= config.n:
        return None
    if conv.token_budget is not None and _tokens_used(store, bug) >= conv.token_budget:
        return None
    shown = attempts(store, bug, engine) if rounds else []
    phase = ConversationPhase.ALTERNATIVES if any(a.plausible for a in shown) else ConversationPhase.REPAIR
    built = build_round(
        base, shown, phase, model=fit.counter, context_window=fit.context_window, max_tokens=config.max_tokens
    )
    record = RoundRecord(
        bug_id=bug.id,
        round=len(rounds) + 1,
        phase=phase,
        messages=built.messages,
        prompt_tokens=built.prompt_tokens,
        indices=list(range(asked, asked + min(conv.samples_per_round, config.n - asked))),
        shown=built.shown,
        omitted=built.omitted,
        note=built.note,
    )
    store.save_round(record)
    return record, record.indices


def _unjudged(store: RunStore, bug: Bug, engine: str) -> bool:
    return any(store.validation(bug.id, c.hash, engine) is None for c in store.candidates(bug.id))


def converse(
    store: RunStore,
    config: RunConfig,
    bugs: list[Bug],
    dataset: Dataset,
    backend: SamplingBackend,
    summary: SampleSummary,
    progress: bool,
    validation: ValidationOptions,
    workspaces: WorkspaceFactory | None = None,
) -> None:
    """Run (or resume) the conversation of every bug; ``summary`` counts what happened; ``validation``:
    how candidates are validated between rounds, in ``workspaces`` when given (``nl2fix fix``: the
    user's built project)."""
    conv = config.conversation
    if conv is None:
        raise Nl2FixError("the run has no conversation settings", "use --strategy conversation")
    if conv.first_prompt not in FIRST_PROMPTS:
        raise Nl2FixError(
            f"a conversation cannot start from the {conv.first_prompt.value} strategy",
            f"use --first-prompt {', '.join(s.value for s in FIRST_PROMPTS)}",
        )
    engine = validation.engine.value
    examples = one_shot_examples(conv.first_prompt, dataset)
    fit = model_fit(config, backend)
    active: dict[str, tuple[Bug, Prompt]] = {}
    for bug in bugs:
        try:
            active[bug.id] = (bug, first_prompt(store, config, fit, bug, conv.first_prompt, examples))
        except Nl2FixError as exc:
            summary.skipped[bug.id] = exc.message

    with progress_bar(total=len(active) * config.n, unit="sample", enabled=progress, desc="conversation") as bar:
        bar.update(sum(len(store.sample_indices(b)) for b in active))
        while active:
            unjudged = [bug.id for bug, _ in active.values() if _unjudged(store, bug, engine)]
            if unjudged:
                validate(store.run_dir, validation, bug_ids=unjudged, progress=False, workspaces=workspaces)
            asked: dict[Request, _Asked] = {}
            for bug, base in list(active.values()):
                found = next_round(store, config, fit, bug, base, engine)
                if found is None:
                    del active[bug.id]
                    continue
                record, missing = found
                request = Request(
                    bug=bug,
                    messages=record.messages,
                    style=base.style,
                    n=len(missing),
                    max_tokens=config.max_tokens,
                    temperature=config.temperature,
                    indices=tuple(missing),
                )
                asked[request] = _Asked(bug, base, record, deque(missing))
            for request, result in backend.generate(list(asked)):
                entry = asked[request]
                if isinstance(result, Exception):
                    summary.failed_requests += 1
                    if len(summary.errors) < MAX_ERRORS_SHOWN:
                        summary.errors.append(f"{entry.bug.id} round {entry.round.round}: {result}")
                    active.pop(entry.bug.id, None)  # asked again on the next run, from the stored round
                    continue
                for choice in result:
                    if not entry.indices:
                        break
                    stored = store_answer(
                        store,
                        entry.bug,
                        entry.base.header,
                        entry.indices.popleft(),
                        choice,
                        prompt_tokens=choice.prompt_tokens,
                        completion_tokens=choice.completion_tokens,
                        generation_seconds=choice.seconds,
                        round=entry.round.round,
                    )
                    summary.new_samples += stored
                    bar.update(stored)
            for entry in asked.values():
                if entry.indices and entry.bug.id in active:  # answered short: the rest is asked on the next run
                    del active[entry.bug.id]
