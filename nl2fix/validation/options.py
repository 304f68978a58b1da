"""How candidates are validated: one frozen value, :class:`ValidationOptions`, that the command line
builds once and that reaches the engine unchanged.

The command (``nl2fix validate``, ``sample``, ``run``, ``fix``, ``dataset check``) builds it from its
options; the stage hands it to an executor; the executor (this machine's threads, or a Ray task on a
node, to which it is pickled) makes its engine from it with :meth:`ValidationOptions.engine_options`,
whose ``settings`` are the options' own :class:`~defects4j_adapter.contract.EngineSettings`. Another
stage that validates (sampling, between a conversation's rounds) passes on the same value.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions, EngineSettings, Workspace
from defects4j_adapter.sandbox.base import SandboxSpec
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Bug, Engine
from nl2fix.core.errors import Nl2FixError

RAY_ADDRESS_ENV = "RAY_ADDRESS"

WorkspaceFactory = Callable[[Bug], Workspace]
"""Prepares a bug's workspace (checkout, build, tests) on demand; a stage that validates passes one on,
so a stage above validation never names the engines' contract itself."""


class ExecutorKind(str, enum.Enum):
    LOCAL = "local"
    RAY = "ray"


@dataclass(frozen=True)
class ExecutorSpec:
    """Where to validate: ``--executor`` and ``--ray-address``."""

    kind: ExecutorKind = ExecutorKind.LOCAL
    ray_address: str | None = None
    """A Ray cluster's address (``HOST:PORT``, ``ray://HOST:PORT``); default ``$RAY_ADDRESS``, else
    ``auto`` (the cluster this machine belongs to)."""

    def __post_init__(self) -> None:
        if self.ray_address and self.kind is not ExecutorKind.RAY:
            raise Nl2FixError(
                "--ray-address is only used with --executor ray", "add --executor ray, or drop --ray-address"
            )

    @property
    def address(self) -> str:
        return self.ray_address or os.environ.get(RAY_ADDRESS_ENV) or "auto"


@dataclass(frozen=True)
class ValidationOptions:
    """Everything the user chooses about validating (``--engine``, ``--sandbox``, ``--executor``,
    ``--workers``, the time limits, ``--all-tests``): small and picklable, so a Ray node builds its
    engine from the same value."""

    engine: Engine = Engine.FAST
    sandbox: SandboxSpec = SandboxSpec()
    """What confines candidates; each process makes its own sandbox from it."""
    executor: ExecutorSpec = ExecutorSpec()
    settings: EngineSettings = EngineSettings()
    """What the engine itself is told (workers, time limits): handed to it as they are."""
    all_tests: bool = False
    """Run every trigger and relevant test instead of stopping at the first failure (and redo wrong
    verdicts that stopped early)."""

    def engine_options(self, projects_dir: Path | None) -> EngineOptions:
        """The engine options in this process: its sandbox (said loudly when it is ``none``), its
        cache, and ``projects_dir`` (a bundled-style benchmark's projects on this machine)."""
        return EngineOptions(
            sandbox=make_sandbox(self.sandbox),
            cache_dir=cache.cache_dir(),
            settings=self.settings,
            projects_dir=projects_dir,
        )
