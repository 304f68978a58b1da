"""The executor interface: where validation's work runs, chosen by an :class:`ExecutorSpec`
(``--executor local|ray``).

Either way the driver -- the process holding the run store -- is the store's only writer: an
executor hands every verdict to the driver (:class:`ValidationDriver`) as it arrives and each
bug's baseline check when it is known. Its interface is one call, ``run(driver, options)``, where
``options`` are the :class:`~nl2fix.validation.options.ValidationOptions` each engine is built from
(a Ray node builds its own engine from them). Executors register
themselves with :func:`register_executor`;
:func:`nl2fix.validation.executors.providers.make_executor` makes the one a spec asks for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from nl2fix.core.domain import Bug
from nl2fix.core.registry import Registry
from nl2fix.store.records import CandidateRecord, ValidationRecord
from nl2fix.validation.bug_work import BaselineCheck
from nl2fix.validation.options import ExecutorKind, ExecutorSpec, ValidationOptions, WorkspaceFactory


class ValidationDriver(Protocol):
    """The driver's side of a validation, as an executor sees it: the bugs, what each still needs,
    and where each result goes (the run store, which only the driver writes)."""

    bugs: list[Bug]
    projects_dir: Path | None
    """A bundled-style benchmark's ``projects/`` folder on the driver's machine (beside the run's dataset)."""
    workspaces: WorkspaceFactory | None
    """A bug's workspace when it is not the engine's own (a user's project, built on this machine)."""

    def done(self, bug_id: str, hash: str) -> ValidationRecord | None:
        """The stored record that needs no redoing, if any."""

    def todo(self, bug: Bug) -> list[CandidateRecord]:
        """The candidates of ``bug`` still to validate."""

    def save(self, record: ValidationRecord, candidate: bool) -> None:
        """Store a verdict (``candidate``: False for a baseline)."""

    def checked(self, check: BaselineCheck) -> None:
        """A bug's baselines are known."""

    def log_root(self, bug: Bug) -> Path:
        """Where the raw logs of ``bug``'s validations go."""

    def record_environment(self, environment: dict[str, Any]) -> None:
        """Where the tests ran (the test Java, or Defects4J), for the report."""


class Executor(Protocol):
    def run(self, driver: ValidationDriver, options: ValidationOptions) -> None:
        """Validate every bug of ``driver``: baselines, then the candidates it has still to do."""


ExecutorFactory = Callable[[ExecutorSpec], Executor]
EXECUTORS: Registry[ExecutorKind, ExecutorFactory] = Registry("executor")
register_executor = EXECUTORS.register
"""Decorator: the function that makes the executor of a kind from its spec."""
