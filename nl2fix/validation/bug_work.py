"""One bug's validation, wherever it runs (this machine's worker threads, or a Ray node): the
baselines and candidates of the bug (:class:`BugRun`) and what its baselines say
(:class:`BaselineCheck`).

This is what an executor (:mod:`nl2fix.validation.executors`) needs of validation; the stage
(:mod:`nl2fix.validation.stage`) reads what is to do from the run store and hands it to one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, get_args

from defects4j_adapter.contract import Outcome, Phase, ValidationEngine, Workspace
from defects4j_adapter.engines import linkage
from nl2fix.core import story
from nl2fix.core.domain import Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.story import tell
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.behaviour import Prober, Probing
from nl2fix.validation.failure_site import source_line
from nl2fix.validation.verdicts import (
    failing_on_fix,
    fails_a_trigger,
    ground_truth_validates,
    passing_on_fix,
    record_of,
)

Reference = Literal["fixed", "buggy"]
"""The id of one of the project's own versions, validated as a baseline beside the candidates: where
a candidate's validation has the candidate's hash, a reference version's has this name."""
FIXED: Final[Reference] = "fixed"
"""The developer's fix (a user's bug has none: the tree as it is stands in for it)."""
BUGGY: Final[Reference] = "buggy"
STORY_FILE = "validation.log"
"""In each validation's artifact folder: what was done to it, step by step, and its verdict."""
log = logging.getLogger(__name__)


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
        triggers = self.bug.trigger_tests
        if self.fixed is not None and self.fixed.verdict is not Verdict.PLAUSIBLE:
            failing = self.fixed.failing_tests
            if ground_truth_validates(self.fixed, triggers):
                out.append(
                    f"the fixed version fails {len(failing)} regression test(s), not held against candidates: "
                    + "; ".join([", ".join(failing[:5]), *linkage.faults_in(self.fixed.detail)])
                )
            else:
                what = self.fixed.detail or self.fixed.compile_errors or ", ".join(failing)
                if self.fixed.verdict is Verdict.ERROR:  # the harness failed: nothing was learnt about the fix
                    out.append(f"the fixed version could not be validated (error): {what[:300]}")
                else:
                    out.append(f"the ground truth does not validate ({self.fixed.verdict.value}): {what[:300]}")
        if self.buggy is not None and self.fixed is not None and self.buggy.verdict is not Verdict.ERROR:
            if not fails_a_trigger(self.buggy, triggers) or self.buggy.verdict is Verdict.PLAUSIBLE:
                out.append(f"the buggy version does not fail its trigger tests ({self.buggy.verdict.value})")
        return out

    @property
    def ground_truth_ok(self) -> bool:
        """The fixed version compiles and passes its trigger tests (some regression tests may fail)."""
        return (
            not self.prepare_error
            and self.fixed is not None
            and ground_truth_validates(self.fixed, self.bug.trigger_tests)
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
    return [
        f"{', '.join(ids[:3])}{f' and {len(ids) - 3} more' if len(ids) > 3 else ''}: {problem}"
        for problem, ids in bugs_with.items()
    ]


class BugRun:
    """One bug's validation on the machine that holds its workspace: prepare it once, then the
    baselines, then each candidate. ``done(id)`` gives a stored baseline that needs no redoing;
    ``log_root`` is where each validation's raw logs go (``<log_root>/<id>``, with the story of what
    was done to it in :data:`STORY_FILE`); ``prepare`` gives the workspace when it is not the engine's
    own (a user's project, built by :mod:`nl2fix.fix.project_build`)."""

    def __init__(
        self,
        engine: ValidationEngine,
        bug: Bug,
        *,
        log_root: Path,
        all_tests: bool = False,
        prepare: Callable[[Bug], Workspace] | None = None,
    ):
        self.engine, self.bug, self.log_root = engine, bug, log_root
        self.prepare = prepare or engine.prepare
        self.stop_first = not all_tests
        self.name = engine.name.value
        self.ws: Workspace | None = None
        self.error = ""
        self.fails_on_fix: frozenset[str] = frozenset()
        """Tests the reference version fails (not held against candidates)."""
        self.passes_on_fix: frozenset[str] = frozenset()
        """Tests the reference version passes (every candidate must pass them too)."""
        self.prober: Prober | None = None

    @contextmanager
    def _story(self, id: str, stop_first: bool) -> Iterator[None]:
        """Keeps the story of validating ``id`` (candidate or reference) in its artifact folder."""
        with story.kept() as lines:
            try:
                tell(
                    log,
                    "%s of %s, %s engine, %s",
                    _what(id),
                    self.bug.id,
                    self.name,
                    "stopping at the first failure" if stop_first else "every test",
                )
                yield
            finally:
                folder = self.log_root / id
                folder.mkdir(parents=True, exist_ok=True)
                (folder / STORY_FILE).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")

    def _validated(
        self,
        id: str,
        code: str,
        fails_on_fix: frozenset[str],
        stop_first: bool,
        passes_on_fix: frozenset[str] = frozenset(),
        keep_passed: bool = False,
    ) -> ValidationRecord:
        """The record of ``code`` (candidate or reference ``id``) run by the engine."""
        if self.ws is None:
            outcome = Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"workspace: {self.error}")
        else:
            try:
                outcome = self.engine.run(
                    self.ws,
                    code,
                    known_failures=fails_on_fix,
                    stop_at_first_failure=stop_first,
                    log_dir=self.log_root / id,
                )
            except (Nl2FixError, OSError) as exc:
                outcome = Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"harness: {exc}")
        record = record_of(
            outcome,
            bug_id=self.bug.id,
            hash=id,
            engine=self.name,
            fails_on_fix=fails_on_fix,
            passes_on_fix=passes_on_fix,
            keep_passed=keep_passed or id == FIXED,
        )
        if self.ws is not None and record.failure_line is not None:
            record.failure_source = source_line(self.ws, record.failing_tests[0], record.failure_line)
        tell(log, "verdict: %s%s", record.verdict.value, f" ({record.detail})" if record.detail else "")
        if record.ignored_failures:
            tell(log, "not held against it (the fixed version fails them too): %s", ", ".join(record.ignored_failures))
        return record

    def _baseline(
        self,
        id: Reference,
        code: str,
        fails_on_fix: frozenset[str] = frozenset(),
        passes_on_fix: frozenset[str] = frozenset(),
        keep_passed: bool = False,
    ) -> ValidationRecord:
        """A reference version's record: every test runs."""
        with self._story(id, stop_first=False):
            return self._validated(id, code, fails_on_fix, False, passes_on_fix, keep_passed)

    def baselines(
        self, done: Callable[[Reference], ValidationRecord | None], save: Callable[[ValidationRecord, bool], None]
    ) -> BaselineCheck:
        """Prepare the workspace, then the fixed version (its failing tests are not held against
        candidates, its passing ones are required of them) and the buggy one, each unless ``done``."""
        bug = self.bug
        try:
            self.ws = self.prepare(bug)
        except Nl2FixError as exc:
            self.error = str(exc)
        if self.ws is not None and isinstance(self.engine, Probing):
            self.prober = Prober(
                self.engine, self.ws, bug.fixed_method or bug.buggy_method, developer_fix=bool(bug.fixed_method)
            )
        if not bug.fixed_method:
            return self._without_fix(done, save)
        fixed = done(FIXED)
        if fixed is None:
            fixed = self._baseline(FIXED, bug.fixed_method)
            save(fixed, False)
        self.fails_on_fix = failing_on_fix(fixed, bug.trigger_tests)
        self.passes_on_fix = passing_on_fix(fixed)
        buggy = done(BUGGY)
        if buggy is None:
            buggy = self._baseline(BUGGY, bug.buggy_method, self.fails_on_fix, self.passes_on_fix)
            save(buggy, False)
        return BaselineCheck(bug, fixed, buggy, self.error)

    def _without_fix(
        self, done: Callable[[Reference], ValidationRecord | None], save: Callable[[ValidationRecord, bool], None]
    ) -> BaselineCheck:
        """A user's bug has no known fix: the tree as it is stands in for the fixed version. The tests it
        fails other than the failing test are not held against candidates, and a candidate must pass every
        test it passed."""
        buggy = done(BUGGY)
        if buggy is None:
            buggy = self._baseline(BUGGY, self.bug.buggy_method, keep_passed=True)
            save(buggy, False)
        self.fails_on_fix = failing_on_fix(buggy, self.bug.trigger_tests)
        self.passes_on_fix = passing_on_fix(buggy)
        return BaselineCheck(self.bug, None, buggy, self.error)

    def candidate(self, hash: str, code: str) -> ValidationRecord:
        """One candidate's verdict (after :meth:`baselines`); a plausible one's behaviour beside the
        developer's fix too (or, for a user's bug, its behaviour for clusters), where the engine probes."""
        with self._story(hash, self.stop_first):
            record = self._validated(hash, code, self.fails_on_fix, self.stop_first, self.passes_on_fix)
            if record.verdict is Verdict.PLAUSIBLE and self.prober is not None:
                record.behaviour = self.prober.behaviour(code)
                tell(
                    log,
                    "behaviour beside the %s version: %s%s",
                    record.behaviour.reference,
                    record.behaviour.label.value,
                    f" ({record.behaviour.note})" if record.behaviour.note else "",
                )
        return record


def _what(id: str) -> str:
    return f"the {id} version" if id in get_args(Reference) else f"candidate {id}"
