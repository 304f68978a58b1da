"""Which engine's verdicts a run is judged by, when several engines validated it.

Ranking (``--pruned``), ``nl2fix show`` and the reports all read verdicts through this one choice,
so they never disagree about a candidate.
"""

from __future__ import annotations

from nl2fix.core.domain import Engine
from nl2fix.store.run_store import RunStore

# Defects4J's own command line is the reference; the fast engine must agree with it; rebuild is the fallback.
ENGINE_PREFERENCE = (Engine.DEFECTS4J, Engine.FAST, Engine.REBUILD)


def verdict_engine(store: RunStore) -> str | None:
    """The engine (``defects4j``, else ``fast``, else ``rebuild``) whose verdicts count; None if nothing was
    validated."""
    present = store.validation_engines()
    return next((engine.value for engine in ENGINE_PREFERENCE if engine.value in present), None)
