"""Where validation's work runs: worker threads on this machine (``local``, the default) or a
task per bug on a Ray cluster (``ray``).

Either way the driver -- the process holding the run store -- is the store's only writer: an
executor hands every verdict to the validation as it arrives and each bug's baseline check when
it is known. Its interface is one call, ``run(validation, engine, option_args)``, where
``option_args`` are :func:`nl2fix.validation.stage.engine_options`' arguments (a Ray node builds its own
options from them).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.domain import Engine

if TYPE_CHECKING:
    from nl2fix.validation.stage import _Validation

RAY_ADDRESS_ENV = "RAY_ADDRESS"


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
            raise Nl2FixError("--ray-address is only used with --executor ray", "add --executor ray, or drop --ray-address")

    @property
    def address(self) -> str:
        return self.ray_address or os.environ.get(RAY_ADDRESS_ENV) or "auto"


class Executor(Protocol):
    def run(self, validation: "_Validation", engine: Engine, option_args: dict) -> None:
        """Validate every bug of ``validation``: baselines, then the candidates it has still to do."""


def make_executor(spec: ExecutorSpec) -> Executor:
    if spec.kind is ExecutorKind.LOCAL:
        from nl2fix.validation.executors.local import LocalExecutor

        return LocalExecutor()
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise Nl2FixError("--executor ray needs the ray package", "pip install 'nl2fix[ray]'") from exc
    from nl2fix.validation.executors.ray_executor import RayExecutor

    return RayExecutor(spec.address)
