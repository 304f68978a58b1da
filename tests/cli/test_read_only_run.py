"""A run directory that cannot be written (archived, a read-only mount, immutable): the commands that
read open its store read-only and work; the commands that write say in one line that they cannot."""

import json
import sqlite3
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.store.records import ValidationRecord
from nl2fix.store.run_store import STORE_FILE, RunStore


@pytest.fixture
def run_dir(tmp_path, invoke_cli) -> Path:
    """A sampled, judged and ranked run of Textkit-1 (verdicts stored as the validation stage stores them)."""
    run = tmp_path / "run"
    sampled = invoke_cli(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--backend",
        "mutation",
        "-n",
        "4",
        "--run",
        run,
        "--quiet",
    )
    assert sampled.exit_code == 0, sampled.output
    with RunStore(run) as store:
        candidates = store.candidates("Textkit-1")
        for verdict, candidate in zip([Verdict.PLAUSIBLE] + [Verdict.WRONG] * len(candidates), candidates):
            store.save_validation(
                ValidationRecord(bug_id="Textkit-1", hash=candidate.hash, engine="fast", verdict=verdict)
            )
        store.save_validation(
            ValidationRecord(bug_id="Textkit-1", hash="fixed", engine="fast", verdict=Verdict.PLAUSIBLE)
        )
    ranked = invoke_cli("rank", "--run", run)
    assert ranked.exit_code == 0, ranked.output
    return run


def test_reading_commands_read_a_run_that_cannot_be_written(run_dir, read_only_dir, invoke_cli):
    before = sorted(p.name for p in run_dir.iterdir())
    view = read_only_dir(run_dir)

    report = invoke_cli("report", "--run", view)
    assert report.exit_code == 0, report.output
    assert "bugs with a plausible fix: 1/1" in report.stdout and "CodeBLEU by verdict" in report.stdout
    show = invoke_cli("show", "--run", view, "--bug", "textkit-1")
    assert show.exit_code == 0 and "Textkit-1" in show.stdout
    export = invoke_cli("export", "--run", view)
    assert export.exit_code == 0
    assert len([json.loads(line) for line in export.stdout.splitlines()]) == 4

    assert sorted(p.name for p in view.iterdir()) == before
    with sqlite3.connect(f"{(run_dir / STORE_FILE).as_uri()}?mode=ro", uri=True) as db:
        assert db.execute("SELECT COUNT(*) FROM codebleu").fetchone() == (0,)  # scored, but nowhere to keep them


def test_writing_commands_say_the_run_cannot_be_written(run_dir, read_only_dir, invoke_cli):
    view = read_only_dir(run_dir)
    for command in (
        ["validate", "--run", view],
        ["rank", "--run", view],
        [
            "sample",
            "--dataset",
            "example",
            "--bug",
            "Textkit-1",
            "--backend",
            "mutation",
            "-n",
            "4",
            "--run",
            view,
            "--quiet",
        ],
    ):
        result = invoke_cli(*command)
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.splitlines()[0] == (
            f"error: {view} is not writable (read-only mount, permissions or immutable attribute)"
        )
    html = invoke_cli("report", "--run", view, "--format", "html", "--no-codebleu")
    assert html.exit_code == 2 and html.stderr.startswith(f"error: cannot write {view / 'report.html'}: ")
    assert "--out FILE" in html.stderr
