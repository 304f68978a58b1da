"""From bugs to stored samples: prompts, requests to a backend, extraction, the run store.

Resumable: each bug asks only for the sample indices the store does not hold yet, and each
answer is stored the moment it arrives; a run with nothing left to ask for never starts its
backend (loading a local model takes minutes). Prompts are fitted to the model the backend
serves: its context length and tokenizer (:mod:`nl2fix.sampling.model_fit`). Most strategies go
through :mod:`nl2fix.sampling.chains` (one chain of turns per sample; ``reasoning`` has several
turns); ``conversation`` runs go through :mod:`nl2fix.sampling.conversation`, which validates
between its rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import Dataset
from nl2fix.sampling.backends.base import SamplingBackend
from nl2fix.sampling.backends.providers import create
from nl2fix.sampling.chains import run_chains
from nl2fix.sampling.conversation import converse
from nl2fix.sampling.summary import SampleSummary
from nl2fix.store.records import RunConfig
from nl2fix.store.run_store import STORE_FILE, RunStore, discard_if_empty
from nl2fix.validation.options import ValidationOptions, WorkspaceFactory

MAX_SAMPLES = 100_000
"""Most samples a run asks for per bug (``-n``): far beyond any study's budget, and what a run's store,
report and viewer handle in seconds."""
BATCH = 1_000
"""Most sample indices of a bug asked for at once: whatever ``-n``, what is held in memory is bounded
and every answer is stored as it comes."""


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
    workspaces: WorkspaceFactory | None = None,
) -> SampleSummary:
    """Ask ``config.backend`` for ``config.n`` samples of every bug, store them in ``run_dir``.

    ``backend`` replaces the one the configuration names (tests pass one with short retry waits);
    else that one is created, with ``concurrency`` and ``retries``, only when some sample is
    missing. ``on_start`` is called once the run directory has taken the configuration and the bugs.
    A ``conversation`` run validates between its rounds with ``validation`` (in ``workspaces`` when
    given: ``nl2fix fix``'s built project). A run directory this call
    creates is removed again when the call fails before a sample is stored (a missing replay file, an
    unreachable server): what is left behind is a run.
    """
    if config.n > MAX_SAMPLES:
        raise Nl2FixError(
            f"-n {config.n} is more samples per bug than a run holds ({MAX_SAMPLES:,})",
            f"ask for at most {MAX_SAMPLES:,}",
        )
    new_dir, new_store = not run_dir.exists(), not (run_dir / STORE_FILE).exists()
    try:
        return _sample(
            run_dir, config, bugs, dataset, concurrency, retries, progress, backend, on_start, validation, workspaces
        )
    except BaseException:
        if new_store:
            discard_if_empty(run_dir, directory=new_dir)
        raise


def _sample(
    run_dir: Path,
    config: RunConfig,
    bugs: list[Bug],
    dataset: Dataset,
    concurrency: int,
    retries: int | None,
    progress: bool,
    backend: SamplingBackend | None,
    on_start: Callable[[], None],
    validation: ValidationOptions,
    workspaces: WorkspaceFactory | None,
) -> SampleSummary:
    summary = SampleSummary()
    with RunStore(run_dir, create=True) as store:
        config = _set_config(store, config)
        store.add_bugs(bugs)
        on_start()
        owned = backend is None
        try:
            if config.conversation is not None:
                work = [bug for bug in bugs if _missing(store, bug, 0, config.n)]
                if work:
                    backend = backend or create(config, concurrency=concurrency, retries=retries)
                    converse(store, config, work, dataset, backend, summary, progress, validation, workspaces)
            else:
                for start in range(0, config.n, BATCH):
                    missing = {bug.id: _missing(store, bug, start, min(config.n, start + BATCH)) for bug in bugs}
                    work = [bug for bug in bugs if missing[bug.id]]
                    if work:
                        backend = backend or create(config, concurrency=concurrency, retries=retries)
                        run_chains(store, config, work, missing, dataset, backend, summary, progress)
        finally:
            if owned and backend is not None:
                backend.close()
        _tally(store, config, bugs, summary)
    return summary


def _missing(store: RunStore, bug: Bug, start: int, end: int) -> list[int]:
    """The sample indices from ``start`` to ``end`` the store does not hold for ``bug``."""
    have = store.sample_indices(bug.id)
    return [i for i in range(start, end) if i not in have]


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
