"""The run store: one SQLite file per run directory (``run_store``), written as results arrive and
keyed so that a re-run skips what is done; one pydantic model per kind of row (``records``: what is
persisted, a docstring per field); the schema as ordered migrations (``migrations``); where a run
lives when no ``--run`` is given (``run_dirs``).

May import: ``nl2fix.core``.
"""
