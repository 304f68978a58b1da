"""Schema migrations, on a store that the nl2fix of schema version 1 wrote (tests/fixtures/store_v1,
made by its make.py): opened by this nl2fix it is migrated (or, read-only, read through a migrated copy)
and every record reads back as it was written."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.store import migrations
from nl2fix.store.run_store import STORE_FILE, RunStore

V1 = Path(__file__).resolve().parents[1] / "fixtures" / "store_v1" / STORE_FILE


@pytest.fixture
def v1_run(tmp_path) -> Path:
    shutil.copy(V1, tmp_path / STORE_FILE)
    return tmp_path


def _history(path: Path) -> list[int]:
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT version FROM schema_migrations ORDER BY version")]


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def _reads_back(store: RunStore) -> None:
    """What make.py wrote, read through today's store."""
    assert store.config.dataset == "example" and store.config.n == 3
    assert [b.id for b in store.bugs()] == ["Textkit-1"]
    assert [(s.index, s.candidate_hash) for s in store.samples("Textkit-1")] == [(0, "h1"), (1, "h2"), (2, "h1")]
    assert [(c.hash, c.count) for c in store.candidates("Textkit-1")] == [("h1", 2), ("h2", 1)]
    assert {v.hash: v.verdict for v in store.validations("Textkit-1")} == {"h1": Verdict.PLAUSIBLE, "h2": Verdict.WRONG}
    assert [(e.hash, e.score) for e in store.ranking("Textkit-1", "paper")] == [("h1", 0.9), ("h2", 0.1)]
    assert store.rounds("Textkit-1") == [] and store.codebleu_scores() == {}


def test_the_fixture_is_a_version_1_store():
    with sqlite3.connect(f"{V1.as_uri()}?mode=ro&immutable=1", uri=True) as db:  # no -shm beside the fixture
        assert migrations.stored_version(db) == 1
        assert "schema_migrations" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}


def test_a_version_1_store_opened_for_writing_is_migrated_and_its_records_read_back(v1_run):
    with RunStore(v1_run) as store:
        _reads_back(store)
    path = v1_run / STORE_FILE
    assert _history(path) == list(range(2, migrations.latest() + 1))
    assert "samples_by_candidate" in _indexes(path)
    with RunStore(v1_run) as store:  # migrated once: opening again changes nothing
        _reads_back(store)
    assert _history(path) == list(range(2, migrations.latest() + 1))


def test_a_version_1_store_opened_read_only_is_read_through_a_migrated_copy_and_left_as_it_was(v1_run):
    path = v1_run / STORE_FILE
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with RunStore(v1_run, read_only=True) as store:
        _reads_back(store)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_version_1_store_made_before_its_late_tables_gets_them(v1_run):
    with sqlite3.connect(v1_run / STORE_FILE) as db:
        db.execute("DROP TABLE rounds")
        db.execute("DROP TABLE codebleu")
    with RunStore(v1_run) as store:
        _reads_back(store)


def test_a_new_store_has_every_migration_in_its_history(tmp_path):
    RunStore(tmp_path, create=True).close()
    assert _history(tmp_path / STORE_FILE) == list(range(1, migrations.latest() + 1))


def test_a_migration_that_fails_leaves_the_store_at_the_version_before(v1_run, monkeypatch):
    def breaks(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half_done (x)")
        raise sqlite3.OperationalError("disk I/O error")

    broken = migrations.Migration(migrations.latest() + 1, "fails half-way", breaks)
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, broken])
    with pytest.raises(Nl2FixError, match=r"run.sqlite .*\(disk I/O error\)"):
        RunStore(v1_run)
    path = v1_run / STORE_FILE
    assert _history(path) == list(range(2, broken.version))
    assert "half_done" not in {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    monkeypatch.undo()
    with RunStore(v1_run) as store:
        _reads_back(store)


def test_the_migrations_are_numbered_in_order():
    assert [m.version for m in migrations.MIGRATIONS] == list(range(1, migrations.latest() + 1))
