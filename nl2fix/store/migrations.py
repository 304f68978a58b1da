"""The run store's schema as an ordered list of migrations, and the code that brings a store up to date.

Migration ``n`` (counted from 1) brings a store from schema version ``n - 1`` to ``n``; a new store is
version 0 and gets them all. Each one runs in its own transaction, together with its row in the
version table ``schema_migrations`` and the ``schema_version`` key of ``meta`` (which every nl2fix
reads first: an older nl2fix refuses a store newer than it knows). A migration that fails leaves the
store at the version before it.

To change the schema, append one function at the end of this module (never edit or reorder the
ones above it: stores in the field have run them)::

    @migration("imported answers: a table of published candidates")
    def _imported_answers(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE imported (bug_id TEXT NOT NULL, ...)")

and a test that opens a store of the version before and reads the new table.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from nl2fix.core.errors import Nl2FixError


@dataclass(frozen=True)
class Migration:
    version: int
    """The schema version the store has once this migration ran."""
    name: str
    """What it changes, as the version table records it."""
    apply: Callable[[sqlite3.Connection], None]
    """Runs its statements in the open transaction (``executescript`` would commit it: use ``execute``)."""


MIGRATIONS: list[Migration] = []
"""In order: ``MIGRATIONS[n - 1]`` makes version ``n``."""


def migration(name: str) -> Callable[[Callable[[sqlite3.Connection], None]], Callable[[sqlite3.Connection], None]]:
    """Decorator: append ``apply`` as the next migration."""

    def append(apply: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
        MIGRATIONS.append(Migration(len(MIGRATIONS) + 1, name, apply))
        return apply

    return append


def latest() -> int:
    """The schema version this nl2fix writes."""
    return len(MIGRATIONS)


_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"""


def stored_version(db: sqlite3.Connection) -> int:
    """The schema version of the store ``db`` (0: a new, empty database)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def check_known(db: sqlite3.Connection, path: Path) -> int:
    """The store's version; a store newer than this nl2fix is refused (its tables may mean other things)."""
    version = stored_version(db)
    if version > latest():
        raise Nl2FixError(
            f"{path} has store schema {version}; this nl2fix reads {latest()} and older",
            "use the nl2fix version that wrote this run (or a newer one), or a new --run directory",
        )
    return version


def migrate(db: sqlite3.Connection, path: Path) -> int:
    """Bring the store up to :func:`latest` (``db`` in autocommit mode, ``isolation_level=None``); the
    number of migrations run."""
    start = check_known(db, path)
    for step in MIGRATIONS[start:]:
        db.execute("BEGIN IMMEDIATE")
        try:
            if stored_version(db) >= step.version:  # another process migrated it meanwhile
                db.execute("ROLLBACK")
                continue
            step.apply(db)
            db.execute(_VERSION_TABLE)
            db.execute(
                "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                (step.version, step.name, datetime.now(timezone.utc).isoformat(timespec="seconds")),
            )
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(step.version),))
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return latest() - start


# -- the migrations, oldest first -----------------------------------------------------------------

_LATE_TABLES_OF_VERSION_1 = (
    """CREATE TABLE IF NOT EXISTS rounds (bug_id TEXT NOT NULL, round INTEGER NOT NULL, record TEXT NOT NULL,
           PRIMARY KEY (bug_id, round))""",
    """CREATE TABLE IF NOT EXISTS codebleu (bug_id TEXT NOT NULL, hash TEXT NOT NULL, reference TEXT NOT NULL,
           score REAL NOT NULL, PRIMARY KEY (bug_id, hash, reference))""",
)
"""Tables version 1 gained without a new version number (an nl2fix of then added missing tables on
every writable open): a version 1 store made before them lacks them."""


@migration("the first schema: run configuration, bugs, prompts, samples, candidates, verdicts, rankings")
def _first_schema(db: sqlite3.Connection) -> None:
    for statement in (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE bugs (bug_id TEXT PRIMARY KEY, position INTEGER NOT NULL, record TEXT NOT NULL)",
        "CREATE TABLE prompts (bug_id TEXT PRIMARY KEY, record TEXT NOT NULL)",
        """CREATE TABLE samples (bug_id TEXT NOT NULL, idx INTEGER NOT NULL, candidate_hash TEXT,
               record TEXT NOT NULL, PRIMARY KEY (bug_id, idx))""",
        """CREATE TABLE candidates (bug_id TEXT NOT NULL, hash TEXT NOT NULL, code TEXT NOT NULL,
               PRIMARY KEY (bug_id, hash))""",
        """CREATE TABLE validations (bug_id TEXT NOT NULL, hash TEXT NOT NULL, engine TEXT NOT NULL,
               verdict TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (bug_id, hash, engine))""",
        """CREATE TABLE embeddings (embedder TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
               PRIMARY KEY (embedder, text_hash))""",
        """CREATE TABLE rankings (bug_id TEXT NOT NULL, ranker TEXT NOT NULL, rank INTEGER NOT NULL,
               hash TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (bug_id, ranker, rank))""",
        *_LATE_TABLES_OF_VERSION_1,
    ):
        db.execute(statement)


@migration(
    "version 1's late tables where missing; samples indexed by candidate (a bug's unique "
    "candidates are read by joining on it)"
)
def _late_tables_and_samples_by_candidate(db: sqlite3.Connection) -> None:
    for statement in _LATE_TABLES_OF_VERSION_1:
        db.execute(statement)
    db.execute("CREATE INDEX samples_by_candidate ON samples (bug_id, candidate_hash)")
