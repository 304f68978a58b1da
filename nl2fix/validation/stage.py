"""The validation stage: every unique candidate of a run gets a verdict, once per engine.

Per bug, once: prepare the workspace, then the baselines -- the fixed version (the ground truth
spliced in; the tests it fails are not held against candidates) and the buggy version (which
should fail its trigger tests) -- stored as validations with hash ``fixed`` / ``buggy``. Then
every unique candidate without a verdict from this engine (:class:`~nl2fix.validation.bug_work.BugRun`).
Where that runs is an executor's choice (:mod:`nl2fix.validation.executors`: worker threads here,
or a task per bug on a Ray cluster); this process saves each verdict the moment it is known (a
killed run resumes without repeating one); ``error`` verdicts are retried on the next run, since
they are the harness's failures, not the candidate's. Raw logs are kept under
``run_dir/artifacts/<bug>/<hash>/``.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.workspaces import confined_defects4j
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.progress import progress_bar
from nl2fix.store.records import CandidateRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED, STORY_FILE, BaselineCheck, problem_lines
from nl2fix.validation.executors.base import Executor
from nl2fix.validation.executors.providers import make_executor
from nl2fix.validation.options import ValidationOptions, WorkspaceFactory

ARTIFACTS = "artifacts"


@dataclass
class ValidateSummary:
    validated: int = 0
    """Candidates validated by this call."""
    skipped: int = 0
    """Candidates that already had a verdict from this engine."""
    by_verdict: dict[Verdict, int] = field(default_factory=dict)
    """Verdicts of every candidate of the selected bugs under this engine (old and new)."""
    cpu_seconds: float = 0.0
    """CPU seconds of this call's validations (baselines and behaviour probes included)."""
    engine: str = ""
    baselines: list[BaselineCheck] = field(default_factory=list)

    def __str__(self) -> str:
        counts = ", ".join(f"{n} {v.value}" for v, n in sorted(self.by_verdict.items(), key=lambda kv: kv[0].value))
        lines = [
            f"validated {self.validated} candidate(s) with the {self.engine} engine, {self.skipped} already done; "
            f"{self.cpu_seconds:.1f} CPU-s",
            f"verdicts: {counts or 'none'}",
        ]
        lines += [f"  {line}" for line in problem_lines(self.baselines)]
        return "\n".join(lines)

    @property
    def nothing_judged(self) -> bool:
        """Every candidate ended in ``error``: the harness failed, so no number would mean anything."""
        return set(self.by_verdict) == {Verdict.ERROR}


def projects_dir_of(store: RunStore) -> Path | None:
    """A bundled-style dataset keeps its projects beside its JSON."""
    if not store.has_config() or store.config.dataset == "example":
        return None
    candidate = Path(store.config.dataset).parent / "projects"
    return candidate if candidate.is_dir() else None


def private_paths(store: RunStore, projects_dir: Path | None) -> tuple[str, ...]:
    """What no job of this run may read: the run's folder, its dataset file and the projects beside it, and
    the copies of the fixes in the Defects4J installed here (a fast or rebuild job sees them where the
    installation lies in the system's folders, ``/usr/local`` or ``/var``)."""
    paths = [store.run_dir, *([projects_dir] if projects_dir else [])]
    if store.has_config() and store.config.dataset != "example":
        paths.append(Path(store.config.dataset))
    d4j = d4j_cli.locate()
    if d4j is not None:
        paths += confined_defects4j.fix_sources(d4j, os.environ)
    return tuple(dict.fromkeys(str(Path(p).resolve()) for p in paths))


def candidate_hash_of(store: RunStore, bugs: list[Bug], given: str) -> str:
    """The hash of the one candidate of ``bugs`` whose hash is or starts with ``given``."""
    found = {c.hash for bug in bugs for c in store.candidates(bug.id) if c.hash.startswith(given)}
    if len(found) != 1:
        which = ", ".join(b.id for b in bugs)
        raise Nl2FixError(
            f"{len(found) or 'no'} candidate(s) of {which} have a hash starting with {given!r}",
            f"give more of the hash (the folders under {store.run_dir / ARTIFACTS}/BUG/ are named by it)",
        )
    return found.pop()


def _select(store: RunStore, bug_ids: list[str] | None) -> list[Bug]:
    """The run's bugs, or those named, in the order named (each once, however spelt): the user said
    which to judge first."""
    if not bug_ids:
        return store.bugs()
    return list({bug.id: bug for bug in map(store.bug, bug_ids)}.values())


class RunStoreDriver:
    """The driver's side (:class:`~nl2fix.validation.executors.base.ValidationDriver`): what is left
    to do, read from the run store, and every verdict saved there as it arrives; an executor
    (:mod:`nl2fix.validation.executors`) decides where the work runs."""

    def __init__(
        self,
        store: RunStore,
        options: ValidationOptions,
        bugs: list[Bug],
        *,
        progress: bool,
        candidates: bool,
        projects_dir: Path | None,
        workspaces: WorkspaceFactory | None = None,
        again: frozenset[str] = frozenset(),
        only: dict[str, set[str]] | None = None,
    ):
        self.store, self.bugs = store, bugs
        self.options = replace(options, sandbox=replace(options.sandbox, private=private_paths(store, projects_dir)))
        self.again = again
        """Candidates judged again whatever is stored (then the only ones judged)."""
        self.only = only
        """Just these candidates (bug id -> hashes), those without a verdict (``--rejudge-unexplained``)."""
        self.projects_dir = projects_dir
        self.workspaces = workspaces
        self.name = options.engine.value
        self.with_candidates = candidates
        self.lock = threading.Lock()
        self.summary = ValidateSummary(engine=self.name)
        self.checks: dict[str, BaselineCheck] = {}
        total = sum(self._baselines_needed(b) + (len(self._todo(b)) if candidates else 0) for b in bugs)
        self.bar = progress_bar(total=total, enabled=progress, unit="job", desc=f"validate ({self.name})")

    def done(self, bug_id: str, hash: str) -> ValidationRecord | None:
        """The stored record that needs no redoing: not a harness error, and, when every test is
        asked for, not a wrong verdict that stopped at its first failure."""
        record = self.store.validation(bug_id, hash, self.name)
        if record is None or record.verdict is Verdict.ERROR:
            return None
        if self.options.all_tests and record.verdict is Verdict.WRONG and not record.all_tests_ran:
            return None
        return record

    def _baselines_needed(self, bug: Bug) -> int:
        return sum(self.done(bug.id, h) is None for h in ((FIXED, BUGGY) if bug.fixed_method else (BUGGY,)))

    def _todo(self, bug: Bug) -> list[CandidateRecord]:
        if self.again:
            return [c for c in self.store.candidates(bug.id) if c.hash in self.again]
        return [
            c
            for c in self.store.candidates(bug.id)
            if self.done(bug.id, c.hash) is None and (self.only is None or c.hash in self.only.get(bug.id, ()))
        ]

    def todo(self, bug: Bug) -> list[CandidateRecord]:
        """The candidates still to validate (none when only the baselines are asked for); the
        others count as skipped."""
        if not self.with_candidates:
            return []
        todo = self._todo(bug)
        with self.lock:
            self.summary.skipped += len(self.store.candidates(bug.id)) - len(todo)
        return todo

    def save(self, record: ValidationRecord, candidate: bool) -> None:
        self.store.save_validation(record)
        with self.lock:
            self.summary.cpu_seconds += record.cpu_seconds + (record.behaviour.cpu_seconds if record.behaviour else 0.0)
            self.summary.validated += candidate
        self.bar.update(1)

    def checked(self, check: BaselineCheck) -> None:
        with self.lock:
            self.checks[check.bug.id] = check

    def log_root(self, bug: Bug) -> Path:
        return self.store.run_dir / ARTIFACTS / bug.id

    def record_environment(self, environment: dict[str, Any]) -> None:
        """Where the tests ran (the test Java, or Defects4J), for the report."""
        self.store.set_meta_json(reference_java.environment_key(self.name), environment)

    def run(self, executor: Executor) -> ValidateSummary:
        try:
            executor.run(self, self.options)
        finally:
            self.bar.close()
        counts: Counter[Verdict] = Counter()
        for bug in self.bugs:
            counts.update(r.verdict for r in self.store.validations(bug.id, self.name) if r.hash not in (FIXED, BUGGY))
        self.summary.by_verdict = dict(counts)
        self.summary.baselines = [self.checks[b.id] for b in self.bugs if b.id in self.checks]
        return self.summary


def validate(
    run_dir: Path,
    options: ValidationOptions = ValidationOptions(),
    *,
    bug_ids: list[str] | None = None,
    progress: bool = True,
    workspaces: WorkspaceFactory | None = None,
    again: Collection[str] = (),
    only: dict[str, set[str]] | None = None,
) -> ValidateSummary:
    """Validate every unique candidate of the run (of ``bug_ids`` when given) not yet validated
    by ``options.engine``; baselines first. ``options.all_tests`` runs every trigger and relevant test
    instead of stopping at the first failure (slower; needed for Table 2's regression-pass rate), and
    re-runs wrong verdicts that stopped early. ``options.executor`` says where the work runs (this
    machine, or a Ray cluster); the run store is written here either way. ``workspaces`` gives a
    bug's workspace instead of the engine's own preparation (a user's project, built by
    :mod:`nl2fix.fix.project_build`; local only). ``again``: candidates (hashes, or unique prefixes
    of them) judged again, their stored verdicts replaced, and no other candidate judged.
    ``only``: just these candidates (bug id -> hashes) that have no verdict yet, as
    ``validate --rejudge-unexplained`` asks."""
    with RunStore(run_dir) as store:
        bugs = _select(store, bug_ids)
        if not bugs:
            raise Nl2FixError(f"{run_dir} has no bugs to validate", "sample candidates first with `nl2fix sample`")
        driver = RunStoreDriver(
            store,
            options,
            bugs,
            progress=progress,
            candidates=True,
            projects_dir=projects_dir_of(store),
            workspaces=workspaces,
            again=frozenset(candidate_hash_of(store, bugs, given) for given in again),
            only=only,
        )
        return driver.run(make_executor(options.executor))


def stories(run_dir: Path, engine: Engine, bug_ids: list[str] | None, candidates: Collection[str]) -> list[str]:
    """Each of ``candidates``' verdict under ``engine`` and the story of its last validation (its
    artifact folder's :data:`~nl2fix.validation.bug_work.STORY_FILE`)."""
    out = []
    with RunStore(run_dir, read_only=True) as store:
        bugs = _select(store, bug_ids)
        for hash in (candidate_hash_of(store, bugs, given) for given in candidates):
            bug = next(b for b in bugs if any(c.hash == hash for c in store.candidates(b.id)))
            record = store.validation(bug.id, hash, engine.value)
            path = store.run_dir / ARTIFACTS / bug.id / hash / STORY_FILE
            told = path.read_text(encoding="utf-8") if path.is_file() else "(no story: it was judged elsewhere)\n"
            out.append(f"== {bug.id} {hash}: {record.verdict.value if record else 'no verdict'} ==\n{told}")
    return out


def check_baselines(
    bugs: list[Bug],
    options: ValidationOptions = ValidationOptions(),
    *,
    store_dir: Path,
    projects_dir: Path | None = None,
    progress: bool = True,
) -> list[BaselineCheck]:
    """Run (or reuse, from ``store_dir``) the buggy and fixed baselines of ``bugs``."""
    with RunStore(store_dir, create=True) as store:
        store.add_bugs(bugs)
        driver = RunStoreDriver(store, options, bugs, progress=progress, candidates=False, projects_dir=projects_dir)
        return driver.run(make_executor(options.executor)).baselines
