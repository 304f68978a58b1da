"""Engine lookup: every engine module imported (each registers itself with
:func:`defects4j_adapter.contract.register_engine`), and an :class:`~nl2fix.core.domain.Engine` value
made into a ready engine object."""

from __future__ import annotations

from defects4j_adapter.contract import ENGINES, EngineOptions, ValidationEngine
from defects4j_adapter.engines import defects4j, fast, rebuild  # noqa: F401 - each registers its engine
from nl2fix.core.domain import Engine


def make_engine(engine: Engine, options: EngineOptions) -> ValidationEngine:
    return ENGINES.get(engine)(options)
