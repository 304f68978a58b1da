"""Engine lookup: an :class:`~nl2fix.core.domain.Engine` value to a ready engine object."""

from __future__ import annotations

import importlib

from defects4j_adapter.engines.base import EngineOptions, ValidationEngine
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.domain import Engine

D4J_MODULE, D4J_CLASS = "defects4j_adapter.engines.defects4j", "Defects4JEngine"


def make_engine(engine: Engine, options: EngineOptions) -> ValidationEngine:
    if engine is Engine.FAST:
        from defects4j_adapter.engines.fast import FastEngine

        return FastEngine(options)
    if engine is Engine.REBUILD:
        from defects4j_adapter.engines.rebuild import RebuildEngine

        return RebuildEngine(options)
    if engine is Engine.DEFECTS4J:
        # imported by name: the Defects4J engine needs a Defects4J install only when chosen
        try:
            cls = getattr(importlib.import_module(D4J_MODULE), D4J_CLASS)
        except (ImportError, AttributeError) as exc:
            raise Nl2FixError(f"the defects4j engine is not available: {exc}") from exc
        return cls(options)
    raise Nl2FixError(f"unknown engine {engine!r}", f"choose one of {', '.join(e.value for e in Engine)}")
