"""The reference engine: every candidate goes through the real Defects4J command line, as the
paper's scripts do -- ``defects4j compile``, ``defects4j test -t`` for each trigger test, then
``defects4j test -r`` for the relevant tests.

Candidates run as Defects4J runs them (Ant, JUnit inside Ant's JVM), confined: each candidate in a
fresh copy of the pristine checkout (:func:`~defects4j_adapter.workspaces.defects4j.candidate_slot`),
every Defects4J call in the sandbox (bubblewrap by default:
:mod:`~defects4j_adapter.workspaces.confined_defects4j`; inside nl2fix's docker image, the container),
which shows it that copy and nothing else writable. Its result files are read after the sandbox
ended (no process of the candidate is left to change them), from its own copy, never through a
link. Within its run the candidate's tests share Ant's JVM with Defects4J's result formatter, so
what stops a candidate rewriting its own ``failing_tests`` there is the class-file check (wall 2),
which runs before any test.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from defects4j_adapter.contract import EngineOptions, Outcome, Phase, Workspace, passes, register_engine
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j.cli import CommandResult, CompileResult, Defects4J, TestRun
from defects4j_adapter.d4j.parsers import ALL_TESTS_FILE, FAILING_TESTS_FILE, FailureKind
from defects4j_adapter.engines import class_check, jobs, linkage, own_judgement
from defects4j_adapter.sandbox.base import Sandbox
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.workspaces import confined_defects4j
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from nl2fix.core.domain import Bug, Engine
from nl2fix.core.retry import Backoff, retry_while
from nl2fix.core.story import tell
from nl2fix.java_source.splice import RefusedCandidate, SpliceError, encode_source, splice_method
from nl2fix.java_source.text import text_hash

log = logging.getLogger(__name__)

# Defects4J's own JUnit watchdog kills a test run after 180 s (defects4j.build.xml); one
# `defects4j test` call also starts ant and recompiles the tests, so a host-side limit below
# this would kill Defects4J before its watchdog can report which test hung. The fast engine's
# limits (seconds per test) are raised to these.
MIN_TEST_SECONDS = 300.0
MIN_CANDIDATE_SECONDS = 900.0


@dataclass(frozen=True)
class Step:
    """One Defects4J call of a candidate's validation."""

    phase: Phase
    args: tuple[str, ...]
    """``defects4j`` arguments."""
    test: str | None = None
    """The trigger test a ``-t`` step runs."""


def plan(workspace: Workspace) -> list[Step]:
    """The paper's sequence: compile, each trigger test alone, then the relevant test classes.
    A class-level trigger entry cannot be run alone (``-t`` takes ``Class::method``); the
    relevant tests include its class."""
    root = workspace.root
    return [
        Step(Phase.COMPILE, d4j_cli.compile_args(root)),
        *(Step(Phase.TRIGGER, d4j_cli.test_args(root, test=t), t) for t in workspace.trigger_tests if "::" in t),
        Step(Phase.RELEVANT, d4j_cli.test_args(root, relevant=True)),
    ]


@dataclass
class TestStepResult:
    """What one ``defects4j test`` call says about the candidate."""

    failing: list[str] = field(default_factory=list)
    timed_out: list[str] = field(default_factory=list)
    causes: dict[str, str] = field(default_factory=dict)
    tests_run: int = 0
    killed: bool = False
    """The host-side limit stopped Defects4J itself."""
    harness_error: str = ""


def judge_test_run(run: TestRun) -> TestStepResult:
    """Judge one ``defects4j test`` call from its stdout and the files it wrote."""
    if run.result.timed_out:
        return TestStepResult(failing=list(run.failing.names), killed=True, causes=dict(run.failing.causes))
    if (run.failure is not None and not run.failure.kind.candidates_fault) or (not run.ok and run.failure is None):
        return TestStepResult(harness_error=run.describe())
    if run.report is None:
        return TestStepResult(harness_error=f"no `Failing tests:` summary: {run.describe()}")
    if run.report.count != len(run.report.failing) or run.report.count != run.failing.count:
        return TestStepResult(
            harness_error=f"Defects4J reported {run.report.count} failing tests but listed "
            f"{len(run.report.failing)} and its failing_tests file {run.failing.count}"
        )
    if run.started is None:
        return TestStepResult(
            harness_error="Defects4J wrote no all_tests file, so nothing shows that a test ran "
            "(Defects4J >= 2.0's JUnit formatter writes it)"
        )
    if not run.started and not run.report.failing:
        return TestStepResult(harness_error=f"Defects4J ran no test: {' '.join(run.result.args[1:])}")
    timed_out = run.timed_out_tests
    return TestStepResult(
        failing=[t for t in run.report.failing if t not in timed_out],
        timed_out=list(timed_out),
        causes=dict(run.failing.causes),
        tests_run=len(run.started),
    )


COMMAND_BACKOFF = Backoff(attempts=3, first_delay=5.0, factor=3.0)
"""A candidate's ``defects4j compile`` or ``test`` that fails on the harness's side (Ant or Perl under
load, a lock) is tried again before its verdict becomes ``error``."""


@register_engine
class Defects4JEngine:
    """:class:`~defects4j_adapter.contract.ValidationEngine` through the Defects4J command line."""

    name = Engine.DEFECTS4J

    def __init__(self, options: EngineOptions, d4j: Defects4J | None = None):
        self.d4j = confined_defects4j.confined(d4j or Defects4J.find(), options.sandbox)
        self.cache_dir = Path(options.cache_dir)
        self.slots = max(1, options.settings.workers)
        self.test_timeout = max(options.settings.test_timeout, MIN_TEST_SECONDS)
        self.candidate_timeout = max(options.settings.candidate_timeout, MIN_CANDIDATE_SECONDS)
        self.backoff = COMMAND_BACKOFF
        self.options = options

    def prepare(self, bug: Bug) -> Workspace:
        d4j_workspace.require_defects4j_bug(bug)
        return d4j_workspace.workspace_for(bug, d4j_workspace.ensure_checkout(self.d4j, bug.id, self.cache_dir))

    def close(self) -> None:
        """Nothing stays running between calls."""

    def run(
        self,
        workspace: Workspace,
        method: str,
        *,
        known_failures: frozenset[str] = frozenset(),
        stop_at_first_failure: bool = True,
        log_dir: Path | None = None,
    ) -> Outcome:
        start = time.monotonic()
        bug = workspace.bug
        log_dir = log_dir or self.cache_dir / "d4j-logs" / bug.id / text_hash(method)[:16]
        log_dir.mkdir(parents=True, exist_ok=True)
        with d4j_workspace.candidate_slot(workspace.root, self.slots) as slot:
            outcome = self._judge(workspace, slot, method, known_failures, stop_at_first_failure, log_dir, start)
        outcome = replace(outcome, wall_seconds=time.monotonic() - start, log_dir=log_dir)
        tell(
            log,
            "defects4j: compiled and tested by Defects4J's own command line in slot %s: %s",
            slot.name,
            jobs.summary(outcome),
        )
        return linkage.noted(outcome, workspace, "Defects4J's Java")

    def _judge(
        self,
        workspace: Workspace,
        slot: Path,
        method: str,
        known: frozenset[str],
        stop_early: bool,
        log_dir: Path,
        start: float,
    ) -> Outcome:
        target = slot / workspace.bug.path
        try:
            spliced = splice_method(target.read_bytes().decode(workspace.encoding), workspace.bug, method)
        except RefusedCandidate as exc:
            return Outcome(phase=Phase.SPLICE, compiled=False, compile_errors=str(exc))
        except SpliceError as exc:
            return Outcome(
                phase=Phase.SPLICE, compiled=False, harness_error=f"cannot splice into {workspace.bug.path}: {exc}"
            )
        outcome = Outcome(phase=Phase.SPLICE, compiled=False, detail=spliced.detail)
        data = encode_source(spliced.text, workspace.encoding)
        target.write_bytes(data)
        # the copy holds the buggy build's classes; the target file's go, so that what Defects4J
        # compiles for the candidate is all the class-file check sees (no stale anonymous class)
        class_check.remove_compiled(workspace, slot / workspace.classes_dir.relative_to(workspace.root))
        (log_dir / target.name).write_bytes(data)
        deadline = start + self.candidate_timeout
        slot_space = replace(workspace, root=slot)
        for index, step in enumerate(plan(slot_space)):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                budget = f"the {self.candidate_timeout:.0f} s budget ran out before {step.phase.value}"
                return replace(outcome, timed_out=True).noted(budget)
            outcome = replace(outcome, phase=step.phase)
            if step.phase is Phase.COMPILE:
                built = retry_while(
                    functools.partial(self.d4j.compile, slot, timeout=min(d4j_cli.COMPILE_TIMEOUT, remaining)),
                    failed=harness_hiccup,
                    what=f"`defects4j compile` of a {workspace.bug.id} candidate",
                    backoff=self.backoff,
                )
                _keep(log_dir, index, "compile", built)
                outcome, go_on = absorb_compile(outcome, built)
                if go_on:
                    # Defects4J's verdict is files the test JVM writes: what the candidate may call is
                    # checked on its classes before any test runs
                    classes = slot / workspace.classes_dir.relative_to(workspace.root)
                    outcome = class_check.checked(
                        outcome, functools.partial(class_check.rejection_in, workspace, classes)
                    )
                    go_on = not (outcome.rejection or outcome.harness_error)
            else:
                run = retry_while(
                    functools.partial(
                        self.d4j.test,
                        slot,
                        timeout=min(self.test_timeout, remaining),
                        test=step.test,
                        relevant=step.phase is Phase.RELEVANT,
                    ),
                    failed=harness_hiccup,
                    what=f"`defects4j test` of a {workspace.bug.id} candidate",
                    backoff=self.backoff,
                )
                _keep(log_dir, index, f"test-{step.test or 'relevant'}", run)
                outcome, go_on = absorb_test(outcome, step, run, known, stop_early)
            if not go_on:
                return outcome
        outcome = replace(outcome, phase=Phase.DONE)
        if passes(outcome, known):
            return self._judge_passed(outcome, own_judgement.in_slot(workspace, slot), known, deadline)
        return outcome

    @functools.cached_property
    def runner_sandbox(self) -> Sandbox:
        """Where nl2fix's runner judges what Defects4J passed: the engine's own confinement (the
        container it runs in, or none when so asked)."""
        return self.options.sandbox or make_sandbox(False)

    def _judge_passed(self, outcome: Outcome, slot_space: Workspace, known: frozenset[str], deadline: float) -> Outcome:
        """What Defects4J passed, judged again by nl2fix's runner on the same classes
        (:mod:`~defects4j_adapter.engines.own_judgement`)."""
        judged = own_judgement.runner_outcome(
            slot_space,
            sandbox=self.runner_sandbox,
            cache_dir=self.cache_dir,
            known=known,
            test_timeout=self.options.settings.test_timeout,
            seconds=deadline - time.monotonic(),
            memory_mb=self.options.settings.memory_mb,
        )
        return own_judgement.fold(outcome.costing(judged.cpu_seconds), judged, tuple(slot_space.trigger_tests))


def harness_hiccup(result: CommandResult) -> str:
    """Why a ``defects4j compile`` or ``test`` call failed on the harness's side for no reason it
    names, worth a try again (empty otherwise). A timeout is the candidate's budget, and a failure
    with a known signature (the candidate's compile errors, a set-up fault) says the same every time."""
    if result.result.timed_out or result.failure is not None:
        return ""
    if isinstance(result, TestRun):
        return judge_test_run(result).harness_error
    return "" if result.ok else result.describe(300)


def absorb_compile(outcome: Outcome, built: CompileResult) -> tuple[Outcome, bool]:
    """``outcome`` with ``defects4j compile``'s result, and whether validation goes on."""
    outcome = outcome.costing(built.result.cpu_seconds)
    if built.ok:
        return replace(outcome, compiled=True), True
    if built.failure is not None and built.failure.kind is FailureKind.COMPILE_FAILURE and not built.result.timed_out:
        return replace(outcome, compile_errors=built.errors or built.describe()), False
    return replace(outcome, harness_error=built.describe()), False


def absorb_test(
    outcome: Outcome, step: Step, run: TestRun, known: frozenset[str], stop_early: bool
) -> tuple[Outcome, bool]:
    """``outcome`` with one ``defects4j test`` call's result, and whether validation goes on. Tests in
    ``known`` (they fail on the fixed version too) are recorded but neither stop the run nor count as
    timeouts."""
    outcome = outcome.costing(run.result.cpu_seconds)
    result = judge_test_run(run)
    if result.harness_error:
        return replace(outcome, harness_error=result.harness_error), False
    outcome = replace(
        outcome,
        # the verdict's detail names the first failure by its message
        messages={**outcome.messages, **{t: result.causes[t] for t in result.failing if t in result.causes}},
        tests_run=outcome.tests_run + result.tests_run,
        failing_tests=_added(outcome.failing_tests, result.failing),
        timed_out_tests=_added(outcome.timed_out_tests, result.timed_out),
    )
    if result.killed:
        what = f"-t {step.test}" if step.test else "-r"
        killed = f"`defects4j test {what}` killed after {run.result.wall_seconds:.0f} s"
        return replace(outcome, timed_out=True).noted(killed), False
    new = [t for t in result.failing + result.timed_out if t not in known]
    if any(t in new for t in result.timed_out):
        outcome = replace(outcome, timed_out=True)
    return outcome, not (new and stop_early)


def _added(into: tuple[str, ...], items: list[str]) -> tuple[str, ...]:
    """``into`` and then those of ``items`` it does not hold yet."""
    return (*into, *(t for t in dict.fromkeys(items) if t not in into))


def _keep(log_dir: Path, index: int, name: str, outcome: CommandResult) -> None:
    """Keep a call's raw output (and Defects4J's result files) so the run can be re-graded."""
    stem = f"{index:02d}-{name.replace('::', '.').replace('/', '_')}"
    (log_dir / f"{stem}.out").write_text(outcome.result.stdout, encoding="utf-8")
    (log_dir / f"{stem}.err").write_text(outcome.result.stderr, encoding="utf-8")
    if isinstance(outcome, TestRun):
        for produced, text in ((FAILING_TESTS_FILE, outcome.failing_text), (ALL_TESTS_FILE, outcome.started_text)):
            if text is not None:
                (log_dir / f"{stem}.{produced}").write_text(text, encoding="utf-8")
