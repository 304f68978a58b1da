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
    """The engine that judged the most candidates, the preferred one (``defects4j``, else ``fast``, else
    ``rebuild``) among equals; None if nothing was validated. An engine that re-judged only some
    candidates (``validate --rejudge-unexplained``) does not take over: the others would have no verdict."""
    judged = store.validation_engines()
    present = [engine.value for engine in ENGINE_PREFERENCE if engine.value in judged]
    return max(present, key=lambda name: judged[name], default=None)
