"""One bug's validation, wherever it runs (this machine's worker threads, or a Ray node): the
baselines and candidates of the bug (:class:`BugRun`) and what its baselines say
(:class:`BaselineCheck`).

This is what an executor (:mod:`nl2fix.validation.executors`) needs of validation; the stage
(:mod:`nl2fix.validation.stage`) reads what is to do from the run store and hands it to one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.contract import Outcome, Phase, ValidationEngine, Workspace
from defects4j_adapter.engines import linkage
from nl2fix.core.domain import Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.behaviour import Prober, Probing
from nl2fix.validation.failure_site import source_line
from nl2fix.validation.verdicts import judge, known_failures_of, required_of

FIXED, BUGGY = "fixed", "buggy"


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
        self.prober: Prober | None = None

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
        if self.ws is not None and isinstance(self.engine, Probing):
            self.prober = Prober(self.engine, self.ws, bug.fixed_method or bug.buggy_method,
                                 developer_fix=bool(bug.fixed_method))
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
        """One candidate's verdict (after :meth:`baselines`); a plausible one's behaviour beside the
        developer's fix too (or, for a user's bug, its behaviour for clusters), where the engine probes."""
        record = self._judge(hash, code, self.known, self.stop_first, self.required)
        if record.verdict is Verdict.PLAUSIBLE and self.prober is not None:
            record.behaviour = self.prober.behaviour(code)
        return record
