"""The contract between the validation orchestrator and the engines.

An engine prepares a bug once (check out, compile, read test lists) and then judges single
candidates against that preparation. Engines report raw outcomes; the orchestrator turns them
into verdicts, discounting tests that also fail on the fixed version.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nl2fix.models import Bug, Engine


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


class Phase(str, enum.Enum):
    """Where a candidate's validation stopped."""

    SPLICE = "splice"
    COMPILE = "compile"
    TRIGGER = "trigger"
    RELEVANT = "relevant"
    DONE = "done"


@dataclass
class Outcome:
    """What an engine observed for one candidate (or a baseline), before any verdict is drawn."""

    phase: Phase
    """The last phase reached; DONE when every test ran."""
    compiled: bool
    failing_tests: list[str] = field(default_factory=list)
    """``Class::method``, or ``Class`` for a class-level failure."""
    tests_run: int = 0
    timed_out: bool = False
    harness_error: str = ""
    """Set when the harness or environment failed: never the candidate's fault, never a pass."""
    compile_errors: str = ""
    detail: str = ""
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    log_dir: Path | None = None
    """Raw artifacts (compiler output, test logs) kept so a run can be re-graded."""


class ValidationEngine(Protocol):
    name: Engine

    def prepare(self, bug: Bug) -> Workspace:
        """Once per bug: check out, compile, and find the tests. Raises Nl2FixError on failure."""

    def run(
        self,
        workspace: Workspace,
        method: str,
        *,
        known_failures: frozenset[str] = frozenset(),
        stop_at_first_failure: bool = True,
    ) -> Outcome:
        """Splice ``method`` over the buggy method, compile, run trigger then relevant tests.

        With ``stop_at_first_failure`` the run ends at the first failing test that is not in
        ``known_failures`` (tests that also fail on the fixed version); baselines run everything.
        """
