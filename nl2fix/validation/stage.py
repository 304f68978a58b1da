"""The validation stage: every unique candidate of a run gets a verdict, once per engine.

Per bug, once: prepare the workspace, then the baselines -- the fixed version (the ground truth
spliced in; the tests it fails are not held against candidates) and the buggy version (which
should fail its trigger tests) -- stored as validations with hash ``fixed`` / ``buggy``. Then
every unique candidate without a verdict from this engine (:class:`BugRun`). Where that runs is
an executor's choice (:mod:`nl2fix.validation.executors`: worker threads here, or a task per bug on a Ray
cluster); this process saves each verdict the moment it is known (a killed run resumes without
repeating one); ``error`` verdicts are retried on the next run, since they are the harness's
failures, not the candidate's. Raw logs are kept under ``run_dir/artifacts/<bug>/<hash>/``.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable

from defects4j_adapter.workspaces import cache
from defects4j_adapter.jvm import linkage
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.engines.base import (
    DEFAULT_CANDIDATE_TIMEOUT,
    DEFAULT_TEST_TIMEOUT,
    EngineOptions,
    Outcome,
    Phase,
    ValidationEngine,
    Workspace,
)
from defects4j_adapter.sandbox.base import SandboxKind, SandboxSpec, make_sandbox
from nl2fix.core.errors import Nl2FixError
from nl2fix.validation.executors import ExecutorSpec, make_executor
from nl2fix.validation.failure_site import source_line
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.core.progress import progress_bar
from nl2fix.store.records import CandidateRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdicts import judge, known_failures_of, required_of

if TYPE_CHECKING:
    from nl2fix.validation.executors import Executor

FIXED, BUGGY = "fixed", "buggy"
ARTIFACTS = "artifacts"


@dataclass(frozen=True)
class BaselineCheck:
    """Whether a bug's ground truth validates: the ceiling of the benchmark."""

    bug: Bug
    fixed: ValidationRecord | None = None
    buggy: ValidationRecord | None = None
    prepare_error: str = ""

    @property
    def problems(self) -> list[str]:
        if self.prepare_error:
            return [f"cannot be prepared: {self.prepare_error}"]
        out = []
        triggers = set(self.bug.trigger_tests)
        if self.fixed is not None and self.fixed.verdict is not Verdict.PLAUSIBLE:
            failing = self.fixed.failing_tests
            if self.fixed.verdict is Verdict.WRONG and not triggers & set(failing):
                out.append(f"the fixed version fails {len(failing)} regression test(s), not held against candidates: "
                           + "; ".join([", ".join(failing[:5]), *linkage.faults_in(self.fixed.detail)]))
            else:
                what = self.fixed.detail or self.fixed.compile_errors or ", ".join(failing)
                if self.fixed.verdict is Verdict.ERROR:  # the harness failed: nothing was learnt about the fix
                    out.append(f"the fixed version could not be validated (error): {what[:300]}")
                else:
                    out.append(f"the ground truth does not validate ({self.fixed.verdict.value}): {what[:300]}")
        if self.buggy is not None and self.fixed is not None and self.buggy.verdict is not Verdict.ERROR:
            if not triggers & set(self.buggy.failing_tests) or self.buggy.verdict is Verdict.PLAUSIBLE:
                out.append(f"the buggy version does not fail its trigger tests ({self.buggy.verdict.value})")
        return out

    @property
    def ground_truth_ok(self) -> bool:
        """The fixed version compiles and passes its trigger tests (some regression tests may fail)."""
        return not self.prepare_error and self.fixed is not None and (
            self.fixed.verdict is Verdict.PLAUSIBLE
            or (self.fixed.verdict is Verdict.WRONG and not set(self.bug.trigger_tests) & set(self.fixed.failing_tests))
        )


def problem_lines(checks: Iterable[BaselineCheck], only: Collection[str] | None = None) -> list[str]:
    """Each baseline problem (of ``only``, when given) once, after the bugs that have it: a cause
    they share (no Defects4J, say, with its long hint) is said once, not once a bug."""
    bugs_with: dict[str, list[str]] = {}
    for check in checks:
        for problem in check.problems:
            if only is not None and problem not in only:
                continue
            bugs_with.setdefault(problem, []).append(check.bug.id)
    return [f"{', '.join(ids[:3])}{f' and {len(ids) - 3} more' if len(ids) > 3 else ''}: {problem}"
            for problem, ids in bugs_with.items()]


@dataclass
class ValidateSummary:
    validated: int = 0
    """Candidates validated by this call."""
    skipped: int = 0
    """Candidates that already had a verdict from this engine."""
    by_verdict: dict[Verdict, int] = field(default_factory=dict)
    """Verdicts of every candidate of the selected bugs under this engine (old and new)."""
    cpu_seconds: float = 0.0
    """CPU seconds of this call's validations (baselines included)."""
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


SandboxChoice = SandboxSpec | SandboxKind | str | bool
"""What confines candidates: a spec, a kind (or its name), or True / False for bwrap / none."""


def engine_options(*, sandbox: SandboxChoice, workers: int, projects_dir: Path | None,
                   test_timeout: float, candidate_timeout: float) -> EngineOptions:
    return EngineOptions(
        sandbox=make_sandbox(sandbox),
        cache_dir=cache.cache_dir(),
        test_timeout=test_timeout,
        candidate_timeout=candidate_timeout,
        workers=workers,
        projects_dir=projects_dir,
    )


def projects_dir_of(store: RunStore) -> Path | None:
    """A bundled-style dataset keeps its projects beside its JSON."""
    if not store.has_config() or store.config.dataset == "example":
        return None
    candidate = Path(store.config.dataset).parent / "projects"
    return candidate if candidate.is_dir() else None


def _select(store: RunStore, bug_ids: list[str] | None) -> list[Bug]:
    bugs = store.bugs()
    if not bug_ids:
        return bugs
    wanted = {store.bug(b).id for b in bug_ids}
    return [b for b in bugs if b.id in wanted]


class BugRun:
    """One bug's validation on the machine that holds its workspace: prepare it once, then the
    baselines, then each candidate. ``done(hash)`` gives a stored baseline that needs no redoing;
    ``log_root`` is where each validation's raw logs go (``<log_root>/<hash>``); ``prepare`` gives the
    workspace when it is not the engine's own (a user's project, built by :mod:`nl2fix.fix.project_build`)."""

    def __init__(self, engine: ValidationEngine, bug: Bug, *, log_root: Path, all_tests: bool = False,
                 prepare: Callable[[Bug], Workspace] | None = None):
        self.engine, self.bug, self.log_root = engine, bug, log_root
        self.prepare = prepare or engine.prepare
        self.stop_first = not all_tests
        self.name = engine.name.value
        self.ws: Workspace | None = None
        self.error = ""
        self.known: frozenset[str] = frozenset()
        self.required: frozenset[str] = frozenset()

    def _judge(self, hash: str, code: str, known: frozenset[str], stop_first: bool,
               required: frozenset[str] = frozenset(), keep_passed: bool = False) -> ValidationRecord:
        if self.ws is None:
            outcome = Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"workspace: {self.error}")
        else:
            try:
                outcome = self.engine.run(self.ws, code, known_failures=known, stop_at_first_failure=stop_first,
                                          log_dir=self.log_root / hash)
            except (Nl2FixError, OSError) as exc:
                outcome = Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"harness: {exc}")
        record = judge(outcome, bug_id=self.bug.id, hash=hash, engine=self.name, known_failures=known,
                       required=required, keep_passed=keep_passed or hash == FIXED)
        if self.ws is not None and record.failure_line is not None:
            record.failure_source = source_line(self.ws, record.failing_tests[0], record.failure_line)
        return record

    def baselines(self, done: Callable[[str], ValidationRecord | None],
                  save: Callable[[ValidationRecord, bool], None]) -> BaselineCheck:
        """Prepare the workspace, then the fixed version (its failing tests are not held against
        candidates, its passing ones are required of them) and the buggy one, each unless ``done``."""
        bug = self.bug
        try:
            self.ws = self.prepare(bug)
        except Nl2FixError as exc:
            self.error = str(exc)
        if not bug.fixed_method:
            return self._without_fix(done, save)
        fixed = done(FIXED)
        if fixed is None:
            fixed = self._judge(FIXED, bug.fixed_method, frozenset(), False)
            save(fixed, False)
        self.known = known_failures_of(fixed, bug.trigger_tests)
        self.required = required_of(fixed)
        buggy = done(BUGGY)
        if buggy is None:
            buggy = self._judge(BUGGY, bug.buggy_method, self.known, False, self.required)
            save(buggy, False)
        return BaselineCheck(bug, fixed, buggy, self.error)

    def _without_fix(self, done: Callable[[str], ValidationRecord | None],
                     save: Callable[[ValidationRecord, bool], None]) -> BaselineCheck:
        """A user's bug has no known fix: the tree as it is stands in for the fixed version. The tests it
        fails other than the failing test are not held against candidates, and a candidate must pass every
        test it passed."""
        buggy = done(BUGGY)
        if buggy is None:
            buggy = self._judge(BUGGY, self.bug.buggy_method, frozenset(), False, keep_passed=True)
            save(buggy, False)
        self.known = known_failures_of(buggy, self.bug.trigger_tests)
        self.required = required_of(buggy)
        return BaselineCheck(self.bug, None, buggy, self.error)

    def candidate(self, hash: str, code: str) -> ValidationRecord:
        """One candidate's verdict (after :meth:`baselines`)."""
        return self._judge(hash, code, self.known, self.stop_first, self.required)


class _Validation:
    """The driver's side: what is left to do, read from the run store, and every verdict saved
    there as it arrives; an executor (:mod:`nl2fix.validation.executors`) decides where the work runs."""

    def __init__(self, store: RunStore, engine: Engine, bugs: list[Bug], *, progress: bool,
                 candidates: bool, all_tests: bool = False, workspaces: Callable[[Bug], Workspace] | None = None):
        self.store, self.bugs = store, bugs
        self.workspaces = workspaces
        self.all_tests = all_tests
        self.name = engine.value
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
        if self.all_tests and record.verdict is Verdict.WRONG and not record.all_tests_ran:
            return None
        return record

    def _baselines_needed(self, bug: Bug) -> int:
        return sum(self.done(bug.id, h) is None for h in ((FIXED, BUGGY) if bug.fixed_method else (BUGGY,)))

    def _todo(self, bug: Bug) -> list[CandidateRecord]:
        return [c for c in self.store.candidates(bug.id) if self.done(bug.id, c.hash) is None]

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
            self.summary.cpu_seconds += record.cpu_seconds
            self.summary.validated += candidate
        self.bar.update(1)

    def checked(self, check: BaselineCheck) -> None:
        with self.lock:
            self.checks[check.bug.id] = check

    def log_root(self, bug: Bug) -> Path:
        return self.store.run_dir / ARTIFACTS / bug.id

    def record_environment(self, environment: dict) -> None:
        """Where the tests ran (the test Java, or Defects4J), for the report."""
        self.store.set_meta_json(reference_java.environment_key(self.name), environment)

    def run(self, executor: Executor, engine: Engine, option_args: dict) -> ValidateSummary:
        try:
            executor.run(self, engine, option_args)
        finally:
            self.bar.close()
        counts: Counter = Counter()
        for bug in self.bugs:
            counts.update(r.verdict for r in self.store.validations(bug.id, self.name) if r.hash not in (FIXED, BUGGY))
        self.summary.by_verdict = dict(counts)
        self.summary.baselines = [self.checks[b.id] for b in self.bugs if b.id in self.checks]
        return self.summary


def validate(run_dir: Path, *, engine: Engine = Engine.FAST, workers: int = 2, sandbox: SandboxChoice = True,
             bug_ids: list[str] | None = None, progress: bool = True,
             test_timeout: float = DEFAULT_TEST_TIMEOUT,
             candidate_timeout: float = DEFAULT_CANDIDATE_TIMEOUT, all_tests: bool = False,
             executor: ExecutorSpec = ExecutorSpec(),
             workspaces: Callable[[Bug], Workspace] | None = None) -> ValidateSummary:
    """Validate every unique candidate of the run (of ``bug_ids`` when given) not yet validated
    by ``engine``; baselines first. ``all_tests`` runs every trigger and relevant test instead of
    stopping at the first failure (slower; needed for Table 2's regression-pass rate), and
    re-runs wrong verdicts that stopped early. ``executor`` says where the work runs (this
    machine, or a Ray cluster); the run store is written here either way. ``workspaces`` gives a
    bug's workspace instead of the engine's own preparation (a user's project, built by
    :mod:`nl2fix.fix.project_build`; local only)."""
    with RunStore(run_dir) as store:
        bugs = _select(store, bug_ids)
        if not bugs:
            raise Nl2FixError(f"{run_dir} has no bugs to validate", "sample candidates first with `nl2fix sample`")
        # engine_options' arguments, not the options: a Ray node builds its own from them (its own
        # cache, sandbox and projects), so whatever engine_options comes to take reaches the nodes too
        option_args = dict(sandbox=sandbox, workers=workers, projects_dir=projects_dir_of(store),
                           test_timeout=test_timeout, candidate_timeout=candidate_timeout)
        validation = _Validation(store, engine, bugs, progress=progress, candidates=True, all_tests=all_tests,
                                 workspaces=workspaces)
        return validation.run(make_executor(executor), engine, option_args)


def check_baselines(bugs: list[Bug], *, store_dir: Path, engine: Engine = Engine.FAST, workers: int = 2,
                    sandbox: SandboxChoice = True, projects_dir: Path | None = None, progress: bool = True,
                    test_timeout: float = DEFAULT_TEST_TIMEOUT,
                    candidate_timeout: float = DEFAULT_CANDIDATE_TIMEOUT,
                    executor: ExecutorSpec = ExecutorSpec()) -> list[BaselineCheck]:
    """Run (or reuse, from ``store_dir``) the buggy and fixed baselines of ``bugs``."""
    with RunStore(store_dir, create=True) as store:
        store.add_bugs(bugs)
        option_args = dict(sandbox=sandbox, workers=workers, projects_dir=projects_dir,
                           test_timeout=test_timeout, candidate_timeout=candidate_timeout)
        validation = _Validation(store, engine, bugs, progress=progress, candidates=False)
        return validation.run(make_executor(executor), engine, option_args).baselines
