"""A store nl2fix cannot use (damaged, not a database, another tool's SQLite file, another schema) or a disk
that fills up: every command says so in one line naming the file and what to do, exits 2 without a
traceback, and never writes to a file that is not nl2fix's own store; a full disk keeps what was stored,
and the same command resumes once there is room."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from nl2fix.store import migrations
from nl2fix.store.run_store import STORE_FILE, RunStore
from tests.helpers.report_run import build_run

SAMPLE = ["sample", "--dataset", "example", "--backend", "mutation", "--quiet"]


def _commands(run_dir: Path, tmp_path: Path) -> list[list]:
    return [
        ["report", "--run", run_dir],
        ["show", "--run", run_dir, "--bug", "Demo-1"],
        ["validate", "--run", run_dir],
        [*SAMPLE, "--bug", "Textkit-1", "-n", "2", "--run", run_dir],
        ["view", "--run", run_dir, "--export", tmp_path / "export"],
    ]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damaged(run_dir: Path) -> None:
    store = run_dir / STORE_FILE
    store.write_bytes(store.read_bytes()[:3000])


def _not_a_database(run_dir: Path) -> None:
    (run_dir / STORE_FILE).write_text("these are my notes, not a database\n" * 200)


def _foreign(run_dir: Path) -> None:
    (run_dir / STORE_FILE).unlink()
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        db.execute("INSERT INTO invoices (amount) VALUES (12.5)")
    db.close()


def _other_schema(run_dir: Path) -> None:
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.close()


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (_damaged, "is damaged or not an SQLite database"),
        (_not_a_database, "is damaged or not an SQLite database (file is not a database)"),
        (_foreign, "is not an nl2fix run store (another SQLite database, with tables invoices)"),
        (_other_schema, f"has store schema 99; this nl2fix reads {migrations.latest()} and older"),
    ],
)
def test_a_store_nl2fix_cannot_use_is_one_line_and_left_as_it_is(tmp_path, invoke_cli, spoil, said):
    run_dir = build_run(tmp_path / "run")
    spoil(run_dir)
    store = run_dir / STORE_FILE
    before, files = _digest(store), sorted(os.listdir(run_dir))
    for command in _commands(run_dir, tmp_path):
        result = invoke_cli(*command)
        assert result.exit_code == 2, (command, result.output)
        lines = result.stderr.splitlines()
        assert lines[0].startswith(f"error: {store} ") and said in lines[0], (command, result.stderr)
        assert len(lines) == 2 and lines[1].startswith("  hint: "), (command, result.stderr)
        assert _digest(store) == before, command  # nothing written
        # reading one of nl2fix's own stores (WAL) takes SQLite's index beside it; nothing else appears
        assert [f for f in sorted(os.listdir(run_dir)) if f not in _sidecars(spoil)] == files, command


def _sidecars(spoil) -> set[str]:
    return set() if spoil in (_foreign, _not_a_database) else {f"{STORE_FILE}-wal", f"{STORE_FILE}-shm"}


def test_a_full_disk_is_one_line_keeps_what_was_stored_and_the_run_resumes(tmp_path, invoke_cli):
    """On a small file system made for the test (a tmpfs of 2 MB, as root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        run_dir = disk / "run"
        assert invoke_cli(*SAMPLE, "--bug", "Textkit-1", "-n", "40", "--run", run_dir).exit_code == 0
        filler = disk / "filler"
        with filler.open("wb") as fill:
            try:
                while True:
                    fill.write(b"\0" * 65536)
                    fill.flush()
            except OSError:
                pass

        result = invoke_cli(*SAMPLE, "--bug", "Textkit-2", "-n", "40", "--run", run_dir)
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [
            f"error: the disk holding {run_dir / STORE_FILE} is full",
            f"  hint: everything stored before is kept in {STORE_FILE}; free space on that file system (or move the "
            "run directory to one with room), then re-run the same command to resume",
        ]

        filler.unlink()
        with RunStore(run_dir, read_only=True) as store:
            assert [s.index for s in store.samples("Textkit-1")] == list(range(40))
        result = invoke_cli(*SAMPLE, "--bug", "Textkit-2", "-n", "40", "--run", run_dir)
        assert result.exit_code == 0, result.output
        with RunStore(run_dir, read_only=True) as store:
            assert [s.index for s in store.samples("Textkit-2")] == list(range(40))
    finally:
        subprocess.run(["umount", "--lazy", disk], capture_output=True)
