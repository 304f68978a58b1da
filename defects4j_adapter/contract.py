"""The contract between the validation orchestrator, the workspaces and the engines.

An engine prepares a bug once (check out, compile, read test lists: a :class:`Workspace`) and
then judges single candidates against that preparation. Engines report raw outcomes
(:class:`Outcome`, immutable: an engine that amends one makes a new one); :func:`verdict_of` is the
one place an outcome becomes a verdict, for the orchestrator (which discounts tests that also fail on
the fixed version) and for an engine that must know whether a run passed (to confirm it elsewhere).

Every engine class registers itself here with :func:`register_engine` and is built as
``EngineClass(options: EngineOptions)``; :func:`defects4j_adapter.engines.providers.make_engine`
imports them all and makes the one asked for. ``run`` may be called from several threads at
once, for the same workspace too; each call must work in its own directory. Workspaces are
cached under :func:`defects4j_adapter.cache.workspace_root` (``$NL2FIX_CACHE_DIR/workspaces``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

from defects4j_adapter.sandbox.base import Sandbox
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.registry import Registry

DEFAULT_TEST_TIMEOUT = 10.0
DEFAULT_CANDIDATE_TIMEOUT = 120.0
DEFAULT_TIMEOUT_PACE = 10.0
DEFAULT_MEMORY_MB = 1024
COMPILER_MEMORY_MB = 512
"""Java heap of a JVM that only compiles candidates (javac on one file against a bug's class path)."""


@dataclass(frozen=True)
class EngineSettings:
    """What the user chooses of an engine's work (``--workers``, ``--test-timeout``, ``--timeout-pace``,
    ``--candidate-timeout``): small and picklable, it travels unchanged from the command line, inside
    the validation options, to every engine that judges a candidate, on this machine or a Ray node."""

    workers: int = 2
    """How many ``run`` calls the orchestrator makes at once (engines may keep that many warm JVMs)."""
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    """Seconds one test may take."""
    timeout_pace: float = DEFAULT_TIMEOUT_PACE
    """Where a time limit is the verdict, the fast engine gives a test 2 CPU-s plus this many times the longest
    the developer's fix took on a test, at most ``test_timeout`` (:mod:`defects4j_adapter.engines.pace`); 0:
    ``test_timeout`` always."""
    candidate_timeout: float = DEFAULT_CANDIDATE_TIMEOUT
    """Seconds one candidate's whole validation (compile + every test) may take."""
    memory_mb: int = DEFAULT_MEMORY_MB
    """Java heap (``-Xmx``) of a test JVM."""


@dataclass(frozen=True)
class EngineOptions:
    """What every engine is built with: the user's :class:`EngineSettings` and what the process that
    builds the engine has of its own (its sandbox, its cache, its copy of the benchmark's projects)."""

    sandbox: Sandbox | None
    """Candidate code runs only through it; None where nothing runs through it (``nl2fix prepare``
    only prepares workspaces; the defects4j engine only checks it). It pickles as its
    :class:`~defects4j_adapter.sandbox.base.SandboxSpec` and is made anew where it is unpickled, so
    these options can be shipped to another process."""
    cache_dir: Path
    """``$NL2FIX_CACHE_DIR`` (default ``~/.cache/nl2fix``): workspaces, the compiled test runner."""
    settings: EngineSettings = EngineSettings()
    projects_dir: Path | None = None
    """A bundled-style benchmark's ``projects/`` folder (``<Project>/fixed`` + ``patches/<N>.src.patch``),
    beside its dataset JSON; the example benchmark's is used for example bugs without it."""

    def confining_sandbox(self, engine: Engine) -> Sandbox:
        """``sandbox``, for an engine that runs candidate code (only through it)."""
        if self.sandbox is None:
            raise Nl2FixError(f"the {engine.value} engine runs candidates only through a sandbox")
        return self.sandbox


@dataclass(frozen=True)
class Workspace:
    """A checked-out, compiled buggy revision of one bug's project."""

    bug: Bug
    root: Path
    src_dir: Path
    """Main sources, e.g. ``root/src/main/java``."""
    test_dir: Path
    classes_dir: Path
    """Compiled main classes of the buggy revision."""
    test_classes_dir: Path
    classpath: tuple[Path, ...]
    """Everything else tests need: dependency jars, JUnit, resources."""
    trigger_tests: tuple[str, ...]
    """``pkg.Class::method``."""
    relevant_tests: tuple[str, ...]
    """Test classes that load a modified class."""
    encoding: str = "UTF-8"
    java_release: str = "8"
    target_file: Path | None = None
    """The source file holding the buggy method (``root/bug.path``)."""
    unbuilt_tests: tuple[str, ...] = ()
    """Relevant test classes the project's build lists but did not compile (left out of
    ``relevant_tests``: the build's own test run skips them too)."""

    def buggy_file(self) -> Path:
        """``target_file``, which splicing needs (every workspace module names it)."""
        if self.target_file is None:
            raise Nl2FixError(f"the workspace of {self.bug.id} names no buggy source file")
        return self.target_file


class Phase(str, enum.Enum):
    """Where a candidate's validation stopped."""

    SPLICE = "splice"
    COMPILE = "compile"
    TRIGGER = "trigger"
    RELEVANT = "relevant"
    DONE = "done"


@dataclass(frozen=True)
class Outcome:
    """What an engine observed for one candidate (or a baseline), before any verdict is drawn
    (:func:`verdict_of`). Immutable: a step that learns more makes a new one (``dataclasses.replace``,
    :meth:`noted`, :meth:`costing`)."""

    phase: Phase
    """The last phase reached; DONE when every test ran."""
    compiled: bool
    failing_tests: tuple[str, ...] = ()
    """``Class::method``, or ``Class`` for a class-level failure."""
    tests_run: int = 0
    timed_out: bool = False
    """The per-candidate wall-clock limit was hit, or a test hit the per-test limit."""
    timed_out_tests: tuple[str, ...] = ()
    """Tests stopped by the per-test limit (not repeated in ``failing_tests``)."""
    messages: Mapping[str, str] = field(default_factory=dict)
    """The first line of each failing test's failure, by test name (for the verdict's detail)."""
    failure_lines: Mapping[str, int] = field(default_factory=dict)
    """Where each failing test failed in its own class (its frame in the stack trace), by test name."""
    harness_error: str = ""
    """Set when the harness or environment failed: never the candidate's fault, never a pass."""
    passed_tests: tuple[str, ...] | None = None
    """The tests reported passed, by name; None from an engine that does not name them (Defects4J).
    A plausible verdict needs them to cover every test the fixed version passed."""
    left_out: tuple[str, ...] = ()
    """Tests the engine did not run because they cannot notice the change (they never executed the
    method on the buggy version: :mod:`defects4j_adapter.engines.narrowing`); a pass need not name them."""
    jvm_died: bool = False
    """The test JVM ended in the middle of the job, after the candidate's code could run; engines
    run such a job once more in a fresh JVM and judge that run."""
    ran_out: bool = False
    """A test failed because the JVM ran out of heap, memory or threads during it (an ``OutOfMemoryError``).
    Where other candidates' code ran first, an earlier one could have caused it (a JDK-wide cache left
    holding its heap): engines judge such a run again in a fresh JVM."""
    compile_errors: str = ""
    rejection: str = ""
    """Set when the candidate's compiled classes break the class-file check (what else changed, or
    the reference it added and why that is refused): a verdict of its own, never a pass."""
    detail: str = ""
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    log_dir: Path | None = None
    """Raw artifacts (compiler output, test logs) kept so a run can be re-graded."""

    def noted(self, note: str, *, first: bool = False) -> Outcome:
        """This outcome with ``note`` added to its detail (after what it says, or before with ``first``)."""
        if not note:
            return self
        parts = (note, self.detail) if first else (self.detail, note)
        return replace(self, detail="; ".join(p for p in parts if p))

    def costing(self, cpu_seconds: float) -> Outcome:
        """This outcome with ``cpu_seconds`` more spent on it (a compile, a recording, another JVM's run)."""
        return replace(self, cpu_seconds=self.cpu_seconds + cpu_seconds)


def not_passed(outcome: Outcome, passes_on_fix: frozenset[str]) -> list[str]:
    """The ``passes_on_fix`` tests (those the fixed version passed) that this run did not report
    passed: skipped (the code under test threw an assumption failure), or never run. Empty when
    the engine does not name the tests it passed (Defects4J). Tests the engine left out because
    they cannot notice the change are not asked for."""
    if outcome.passed_tests is None:
        return []
    passed = set(outcome.passed_tests) | set(outcome.left_out)
    return sorted(t for t in passes_on_fix if t not in passed)


def verdict_of(
    outcome: Outcome, fails_on_fix: frozenset[str] = frozenset(), passes_on_fix: frozenset[str] = frozenset()
) -> tuple[Verdict, str]:
    """The verdict and, when nothing else explains it, why: the one place an outcome becomes a
    verdict. ``passes_on_fix``: the tests the fixed version passed; a pass must account for every
    one of them. ``fails_on_fix``: the tests it failed, not held against the candidate.

    A run is plausible only when it compiled, reached the end of the tests it was given, ran at
    least one, and passed every test the fixed version passed: "did not run" (or "skipped") is never
    a pass, and a harness failure is ``error``, never the candidate's fault."""
    if outcome.rejection:
        return Verdict.REJECTED, outcome.rejection
    if outcome.harness_error:
        return Verdict.ERROR, outcome.harness_error
    if not outcome.compiled:
        if outcome.timed_out:
            return Verdict.TIMEOUT, "compilation ran out of time"
        return Verdict.UNCOMPILABLE, ""
    if [t for t in outcome.failing_tests if t not in fails_on_fix]:
        return Verdict.WRONG, ""
    held_timeouts = [t for t in outcome.timed_out_tests if t not in fails_on_fix]
    if held_timeouts or (outcome.timed_out and outcome.phase is not Phase.DONE):
        return Verdict.TIMEOUT, ""
    if outcome.tests_run == 0:
        return Verdict.ERROR, "no test ran"
    if outcome.phase is not Phase.DONE:
        return Verdict.ERROR, f"the tests stopped in the {outcome.phase.value} phase without a failure"
    missing = not_passed(outcome, passes_on_fix)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return Verdict.WRONG, (
            f"{len(missing)} test(s) the fixed version passed did not pass (skipped or not run): "
            f"{', '.join(missing[:3])}{more}"
        )
    return Verdict.PLAUSIBLE, ""


def passes(outcome: Outcome, fails_on_fix: frozenset[str] = frozenset()) -> bool:
    """Whether :func:`verdict_of` would pass this run (tests the fixed version fails aside): what an
    engine asks before it believes or confirms a run."""
    return verdict_of(outcome, fails_on_fix)[0] is Verdict.PLAUSIBLE


class ValidationEngine(Protocol):
    name: Engine

    def __init__(self, options: EngineOptions) -> None:
        """Every engine is built from the options alone."""

    def prepare(self, bug: Bug) -> Workspace:
        """Once per bug: check out, compile, and find the tests. Raises Nl2FixError on failure."""

    def run(
        self,
        workspace: Workspace,
        method: str,
        *,
        known_failures: frozenset[str] = frozenset(),
        stop_at_first_failure: bool = True,
        log_dir: Path | None = None,
    ) -> Outcome:
        """Splice ``method`` over the buggy method, compile, run trigger then relevant tests.

        With ``stop_at_first_failure`` the run ends at the first failing test that is not in
        ``known_failures`` (tests that also fail on the fixed version); baselines run everything.
        Raw artifacts (spliced file, compiler output, test logs) go to ``log_dir`` when given
        (the orchestrator passes ``run_dir/artifacts/<bug>/<hash>``); ``Outcome.log_dir`` names it.
        """

    def close(self) -> None:
        """Stop whatever the engine keeps running (warm JVMs); called once after a validation."""


EngineClass = TypeVar("EngineClass", bound="type[ValidationEngine]")
ENGINES: Registry[Engine, type[ValidationEngine]] = Registry("engine")


def register_engine(cls: EngineClass) -> EngineClass:
    """Class decorator: ``cls`` is the engine of its ``name``."""
    ENGINES.add(cls.name, cls)
    return cls
