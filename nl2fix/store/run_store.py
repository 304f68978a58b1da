"""The run store: one SQLite file per run directory, written as results arrive.

Every write commits at once, so a killed run keeps everything it had received; every stage
asks the store what is already done before doing work, so re-running a stage resumes.
The store is shared between worker threads: one connection, serialised by a lock.
Commands that only read open it read-only, so an archived or read-only run directory can still
be reported, shown and exported. A file that is not nl2fix's own store (another tool's SQLite
database) is recognised before anything is written to it, and every SQLite error (damaged, locked,
disk full ...) is raised as one :class:`Nl2FixError` naming the file and what to do.
A store of an older schema is migrated when opened for writing, and read through a migrated copy in
memory when opened read-only (:mod:`nl2fix.store.migrations`); a newer one is refused.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from nl2fix.core import bug_ids
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.store import migrations
from nl2fix.store.records import (
    CandidateRecord,
    PromptRecord,
    RankingEntry,
    RoundRecord,
    RunConfig,
    SampleRecord,
    ValidationRecord,
)

STORE_FILE = "run.sqlite"


def _bug_to_json(bug: Bug) -> str:
    return json.dumps(dataclasses.asdict(bug))


def _bug_from_json(text: str) -> Bug:
    data = json.loads(text)
    for name in ("comments", "trigger_tests", "relevant_tests", "modified_classes"):
        data[name] = tuple(data[name])
    for name in ("trigger_test_sources", "trigger_failures"):  # (name, text) pairs; absent from older stores
        data[name] = tuple(tuple(pair) for pair in data.get(name, ()))
    return Bug(**data)


def _sidecars(path: Path) -> list[Path]:
    """SQLite's write-ahead log and its index beside the store."""
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]


def writable(run_dir: Path | str) -> bool:
    """Whether the run directory and its store files can be written. ``os.access`` also answers
    for root, who ignores permissions but not read-only mounts or immutable files."""
    run_dir = Path(run_dir)
    paths = [run_dir, run_dir / STORE_FILE, *_sidecars(run_dir / STORE_FILE)]
    return all(os.access(p, os.W_OK) for p in paths if p.exists())


_NEARLY_FULL = 1 << 20
"""Free bytes below which a file system counts as full (SQLite writes in pages, its index in 32 kB parts)."""


def _free_bytes(folder: Path) -> int:
    try:
        usage = os.statvfs(folder)
    except OSError:
        return _NEARLY_FULL
    return usage.f_bavail * usage.f_frsize


def store_error(path: Path, exc: sqlite3.Error | OSError) -> Nl2FixError:
    """What went wrong with the store at ``path``, and what to do, as one error the CLI prints in a line."""
    text = str(exc)
    code = getattr(exc, "sqlite_errorname", "")
    full = code.startswith("SQLITE_FULL") or "disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC
    # on a full disk SQLite may fail first at its index file (SQLITE_IOERR_SHMSIZE), which says no more
    if full or (code.startswith("SQLITE_IOERR") and _free_bytes(path.parent) < _NEARLY_FULL):
        return Nl2FixError(
            f"the disk holding {path} is full",
            f"everything stored before is kept in {path.name}; free space on that file system (or "
            "move the run directory to one with room), then re-run the same command to resume",
        )
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return Nl2FixError(
            f"{path} is locked by another process",
            "wait for the other nl2fix command on this run to end, or use another --run directory",
        )
    if code.startswith("SQLITE_READONLY") or "readonly" in text:
        return Nl2FixError(
            f"{path} cannot be written (read-only file, mount or directory)",
            "`nl2fix report`, `show` and `export` read it as it is; to add to the run, copy the "
            "directory somewhere writable and use the copy",
        )
    if code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "not a database" in text or "malformed" in text:
        return Nl2FixError(
            f"{path} is damaged or not an SQLite database ({text})",
            "restore it from a copy, or start the run again in a new --run directory",
        )
    if code.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")) or isinstance(exc, OSError):
        return Nl2FixError(
            f"{path} cannot be read or written ({text})",
            "check the disk and the directory's permissions, then re-run the same command",
        )
    return Nl2FixError(
        f"{path} is not a store this nl2fix can use ({text})",
        "use a new --run directory (or the nl2fix version that wrote this run)",
    )


@contextmanager
def _translated(path: Path) -> Iterator[None]:
    """SQLite's errors on the store as :func:`store_error` says them."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_error(path, exc) from exc


def _recognise(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the database at ``path`` is an nl2fix store (True) or a new, empty one (False); anything
    else (another tool's SQLite file) is refused before a byte of it is written."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return False
    if "meta" in tables and conn.execute("SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone():
        return True
    shown = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
    raise Nl2FixError(
        f"{path} is not an nl2fix run store (another SQLite database, with tables {shown})",
        "nl2fix leaves it as it is: choose another --run directory",
    )


def _open_for_writing(run_dir: Path, path: Path) -> sqlite3.Connection:
    if not writable(run_dir):
        raise Nl2FixError(
            f"{run_dir} is not writable (read-only mount, permissions or immutable attribute)",
            "`nl2fix report`, `show` and `export` read it as it is; to add to the run, copy the directory "
            "somewhere writable and use the copy",
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Nl2FixError(
            f"cannot create the run directory {run_dir}: {exc.strerror or exc}",
            "choose a --run directory where you can write",
        ) from exc
    conn = sqlite3.connect(path, check_same_thread=False, timeout=60, isolation_level=None)
    try:
        with _translated(path):
            _recognise(conn, path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            migrations.migrate(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def _open_read_only(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opening is lazy: make it happen here
        return conn
    except sqlite3.OperationalError:
        conn.close()
    # Reading a WAL store takes its -shm index, which cannot be created in a directory that cannot be
    # written. Nobody can be writing there either, so with no pending writes in the -wal file the main
    # file is the whole store and is read as immutable; pending writes cannot be read in place.
    wal = _sidecars(path)[0]
    if wal.exists() and wal.stat().st_size:
        raise Nl2FixError(
            f"{path} cannot be read in place: its last writes are still in {wal.name} and the directory is not "
            "writable",
            "copy the run directory somewhere writable and use the copy",
        )
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False)


def _read_migrated(conn: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    """``conn`` itself for a store of this nl2fix's schema; for an older one, a copy in memory brought up to
    date (reading must not write the store, and the queries ask for today's tables)."""
    if migrations.check_known(conn, path) == migrations.latest():
        return conn
    copy = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    try:
        conn.backup(copy)
        conn.close()
        migrations.migrate(copy, path)
    except BaseException:
        copy.close()
        raise
    return copy


def discard_if_empty(run_dir: Path, *, directory: bool) -> None:
    """Remove the store of ``run_dir`` when it holds no sample (a run that failed before its first answer),
    and with ``directory`` the directory too when nothing else is in it; a store that cannot be read as
    nl2fix's own is left as it is."""
    path = run_dir / STORE_FILE
    if path.is_file():
        try:
            with RunStore(run_dir, read_only=True) as store:
                if store.has_samples():
                    return
        except Nl2FixError:
            return
        for file in (path, *_sidecars(path)):
            file.unlink(missing_ok=True)
    if directory and run_dir.is_dir() and not any(run_dir.iterdir()):
        run_dir.rmdir()


class RunStore:
    """All persisted state of one run directory; ``read_only`` for commands that only read."""

    def __init__(self, run_dir: Path | str, *, create: bool = False, read_only: bool = False):
        self.run_dir = Path(run_dir)
        path = self.run_dir / STORE_FILE
        if not path.exists() and not create:
            raise Nl2FixError(
                f"{self.run_dir} is not a run directory (no {STORE_FILE})",
                "start one with `nl2fix sample --run DIR ...` or `nl2fix run --run DIR ...`",
            )
        self.path = path
        self._lock = threading.RLock()
        if read_only:
            with _translated(path):
                conn = _open_read_only(path)
                try:
                    if not _recognise(conn, path):
                        raise Nl2FixError(
                            f"{path} is an empty database, not a run store",
                            "start a run there with `nl2fix sample --run DIR ...`",
                        )
                    self._conn = _read_migrated(conn, path)
                except BaseException:
                    conn.close()
                    raise
        else:
            self._conn = _open_for_writing(self.run_dir, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, _translated(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Iterable[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock, _translated(self.path):
            return self._conn.execute(sql, tuple(params)).fetchall()

    def _get_meta(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def _set_meta(self, key: str, value: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- configuration -------------------------------------------------------------------
    @property
    def config(self) -> RunConfig:
        text = self._get_meta("config")
        if text is None:
            raise Nl2FixError(f"{self.run_dir} has no run configuration yet", "start it with `nl2fix sample`")
        return RunConfig.model_validate_json(text)

    def has_config(self) -> bool:
        return self._get_meta("config") is not None

    def set_config(self, config: RunConfig) -> None:
        """Fix the run's configuration; a different one for an existing run is an error."""
        old = self._get_meta("config")
        if old is not None:
            previous = RunConfig.model_validate_json(old)
            if previous != config:
                diff = {
                    k: (getattr(previous, k), getattr(config, k))
                    for k in RunConfig.model_fields
                    if getattr(previous, k) != getattr(config, k)
                }
                changes = ", ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in diff.items())
                raise Nl2FixError(
                    f"{self.run_dir} was started with another configuration ({changes})",
                    "use a new --run directory for a new configuration",
                )
            return
        self._set_meta("config", config.model_dump_json())

    def get_meta_json(self, key: str) -> Any:
        text = self._get_meta(key)
        return None if text is None else json.loads(text)

    def set_meta_json(self, key: str, value: Any) -> None:
        self._set_meta(key, json.dumps(value))

    # -- bugs ----------------------------------------------------------------------------
    def add_bugs(self, bugs: Iterable[Bug]) -> None:
        with self._tx() as c:
            start = c.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM bugs").fetchone()[0]
            for i, bug in enumerate(bugs):
                c.execute(
                    "INSERT OR IGNORE INTO bugs (bug_id, position, record) VALUES (?, ?, ?)",
                    (bug.id, start + i, _bug_to_json(bug)),
                )

    def bugs(self) -> list[Bug]:
        return [_bug_from_json(r[0]) for r in self._query("SELECT record FROM bugs ORDER BY position")]

    def bug(self, bug_id: str) -> Bug:
        known = [r[0] for r in self._query("SELECT bug_id FROM bugs ORDER BY position")]
        resolved = bug_ids.resolve(bug_id, known)
        return _bug_from_json(self._query("SELECT record FROM bugs WHERE bug_id = ?", (resolved,))[0][0])

    # -- prompts and samples ---------------------------------------------------------------
    def save_prompt(self, prompt: PromptRecord) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO prompts (bug_id, record) VALUES (?, ?)",
                (prompt.bug_id, prompt.model_dump_json()),
            )

    def prompt(self, bug_id: str) -> PromptRecord | None:
        rows = self._query("SELECT record FROM prompts WHERE bug_id = ?", (bug_id,))
        return PromptRecord.model_validate_json(rows[0][0]) if rows else None

    def add_sample(self, sample: SampleRecord, code: str | None) -> bool:
        """Store a sample and, when it has one, its candidate; False if the index was stored already."""
        return self.add_samples([(sample, code)]) == 1

    def add_samples(self, samples: Iterable[tuple[SampleRecord, str | None]]) -> int:
        """Store samples, each with its candidate's code when it has one, in one transaction (an import
        of thousands commits once per bug, not once per answer); returns how many were new."""
        items = list(samples)
        if any((sample.candidate_hash is None) != (code is None) for sample, code in items):
            raise ValueError("a sample has a candidate hash exactly when it has code")
        added = 0
        with self._tx() as c:
            for sample, code in items:
                cur = c.execute(
                    "INSERT OR IGNORE INTO samples (bug_id, idx, candidate_hash, record) VALUES (?, ?, ?, ?)",
                    (sample.bug_id, sample.index, sample.candidate_hash, sample.model_dump_json()),
                )
                if cur.rowcount and code is not None:
                    c.execute(
                        "INSERT OR IGNORE INTO candidates (bug_id, hash, code) VALUES (?, ?, ?)",
                        (sample.bug_id, sample.candidate_hash, code),
                    )
                added += cur.rowcount
        return added

    def has_samples(self) -> bool:
        return bool(self._query("SELECT 1 FROM samples LIMIT 1"))

    def sample_indices(self, bug_id: str) -> set[int]:
        return {r[0] for r in self._query("SELECT idx FROM samples WHERE bug_id = ?", (bug_id,))}

    def samples(self, bug_id: str | None = None) -> list[SampleRecord]:
        if bug_id is None:
            rows = self._query("SELECT record FROM samples ORDER BY bug_id, idx")
        else:
            rows = self._query("SELECT record FROM samples WHERE bug_id = ? ORDER BY idx", (bug_id,))
        return [SampleRecord.model_validate_json(r[0]) for r in rows]

    def candidates(self, bug_id: str) -> list[CandidateRecord]:
        """Unique candidates of a bug, in the order of the first sample that produced each."""
        rows = self._query(
            """SELECT c.hash, c.code, COUNT(s.idx), MIN(s.idx) FROM candidates c
               JOIN samples s ON s.bug_id = c.bug_id AND s.candidate_hash = c.hash
               WHERE c.bug_id = ? GROUP BY c.hash ORDER BY MIN(s.idx)""",
            (bug_id,),
        )
        return [CandidateRecord(bug_id=bug_id, hash=h, code=code, count=n, first_index=i) for h, code, n, i in rows]

    # -- conversation rounds ---------------------------------------------------------------
    def save_round(self, record: RoundRecord) -> None:
        """Store a round before its request is sent; a round is never rewritten (resume re-sends it as stored)."""
        with self._tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO rounds (bug_id, round, record) VALUES (?, ?, ?)",
                (record.bug_id, record.round, record.model_dump_json()),
            )

    def rounds(self, bug_id: str) -> list[RoundRecord]:
        rows = self._query("SELECT record FROM rounds WHERE bug_id = ? ORDER BY round", (bug_id,))
        return [RoundRecord.model_validate_json(r[0]) for r in rows]

    # -- validation ------------------------------------------------------------------------
    def save_validation(self, record: ValidationRecord) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO validations (bug_id, hash, engine, verdict, record) VALUES (?, ?, ?, ?, ?)",
                (record.bug_id, record.hash, record.engine, record.verdict.value, record.model_dump_json()),
            )

    def validation(self, bug_id: str, hash: str, engine: str) -> ValidationRecord | None:
        rows = self._query(
            "SELECT record FROM validations WHERE bug_id = ? AND hash = ? AND engine = ?", (bug_id, hash, engine)
        )
        return ValidationRecord.model_validate_json(rows[0][0]) if rows else None

    def validations(self, bug_id: str | None = None, engine: str | None = None) -> list[ValidationRecord]:
        sql = "SELECT record FROM validations WHERE 1=1"
        params: list[str] = []
        if bug_id is not None:
            sql, params = sql + " AND bug_id = ?", params + [bug_id]
        if engine is not None:
            sql, params = sql + " AND engine = ?", params + [engine]
        return [ValidationRecord.model_validate_json(r[0]) for r in self._query(sql + " ORDER BY bug_id, hash", params)]

    def validation_engines(self) -> dict[str, int]:
        """Engines that judged at least one candidate, with how many candidates each judged (the
        ``buggy``/``fixed`` baselines do not count)."""
        rows = self._query(
            "SELECT engine, COUNT(*) FROM validations WHERE hash NOT IN ('buggy', 'fixed') GROUP BY engine"
        )
        return {engine: count for engine, count in rows}

    # -- embeddings and rankings -------------------------------------------------------------
    def embeddings(self, embedder: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        hashes = list(text_hashes)
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), 500):
            chunk = hashes[start : start + 500]
            rows = self._query(
                "SELECT text_hash, vector FROM embeddings WHERE embedder = ? "
                f"AND text_hash IN ({','.join('?' * len(chunk))})",
                [embedder, *chunk],
            )
            found.update({h: np.frombuffer(v, dtype=np.float32) for h, v in rows})
        return found

    def save_embeddings(self, embedder: str, vectors: dict[str, np.ndarray]) -> None:
        with self._tx() as c:
            c.executemany(
                "INSERT OR REPLACE INTO embeddings (embedder, text_hash, vector) VALUES (?, ?, ?)",
                [(embedder, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def save_ranking(self, bug_id: str, ranker: str, entries: list[RankingEntry]) -> None:
        """Replace a bug's ranking under ``ranker`` as a whole."""
        with self._tx() as c:
            c.execute("DELETE FROM rankings WHERE bug_id = ? AND ranker = ?", (bug_id, ranker))
            c.executemany(
                "INSERT INTO rankings (bug_id, ranker, rank, hash, score) VALUES (?, ?, ?, ?, ?)",
                [(e.bug_id, e.ranker, e.rank, e.hash, e.score) for e in entries],
            )

    def ranking(self, bug_id: str, ranker: str) -> list[RankingEntry]:
        rows = self._query(
            "SELECT rank, hash, score FROM rankings WHERE bug_id = ? AND ranker = ? ORDER BY rank", (bug_id, ranker)
        )
        return [RankingEntry(bug_id=bug_id, ranker=ranker, rank=r, hash=h, score=s) for r, h, s in rows]

    def rankers(self) -> list[str]:
        return [r[0] for r in self._query("SELECT DISTINCT ranker FROM rankings ORDER BY ranker")]

    # -- CodeBLEU cache (reports) -------------------------------------------------------------
    def codebleu_scores(self) -> dict[tuple[str, str, str], float]:
        """Cached CodeBLEU by (bug id, candidate hash, reference ``buggy``/``fixed``)."""
        return {(b, h, r): s for b, h, r, s in self._query("SELECT bug_id, hash, reference, score FROM codebleu")}

    def save_codebleu_scores(self, scores: dict[tuple[str, str, str], float]) -> None:
        with self._tx() as c:
            c.executemany(
                "INSERT OR REPLACE INTO codebleu (bug_id, hash, reference, score) VALUES (?, ?, ?, ?)",
                [(b, h, r, s) for (b, h, r), s in scores.items()],
            )
