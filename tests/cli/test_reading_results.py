"""What a new user reads from a run of the example benchmark, judged for real (mutation candidates,
javac and JUnit in the fast engine): `nl2fix validate --bug` takes bugs in the order given, `nl2fix
export` carries what each verdict rests on, and `nl2fix show` works before `nl2fix rank` has run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.store.run_store import STORE_FILE, RunStore

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

ORDER = ["Rangekit-2", "Textkit-1"]
"""The order validation is asked for: the reverse of the run's own (sampled Textkit-1 first)."""


@pytest.fixture(scope="module")
def run(tmp_path_factory, confined) -> Path:
    """Textkit-1 and Rangekit-2, 8 mutants each, validated (one worker) but never ranked."""
    from click.testing import CliRunner

    from nl2fix.cli.main import cli

    base = tmp_path_factory.mktemp("reading")
    run = base / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NL2FIX_CACHE_DIR", str(base / "cache"))
        invoke = CliRunner().invoke
        sampled = invoke(
            cli,
            [
                "sample",
                "--dataset",
                "example",
                "--bug",
                "Textkit-1",
                "--bug",
                "Rangekit-2",
                "--backend",
                "mutation",
                "-n",
                "8",
                "--run",
                str(run),
                "--quiet",
            ],
        )
        assert sampled.exit_code == 0, sampled.output
        # each bug named once however spelt, the first twice
        validated = invoke(
            cli,
            [
                "validate",
                "--run",
                str(run),
                "--workers",
                "1",
                "--quiet",
                "--bug",
                "rangekit-2",
                "--bug",
                "Textkit-1",
                "--bug",
                "RANGEKIT_2",
            ],
        )
        assert validated.exit_code == 0, validated.output
    return run


def test_validate_takes_the_bugs_in_the_order_given_each_once(run):
    with sqlite3.connect(run / STORE_FILE) as db:
        saved = [bug for (bug,) in db.execute("SELECT bug_id FROM validations ORDER BY rowid")]
    assert list(dict.fromkeys(saved)) == ORDER
    # one worker: all of the first bug's verdicts, baselines first, before any of the second's
    assert saved == sorted(saved, key=ORDER.index)
    with RunStore(run, read_only=True) as store:
        assert len(saved) == sum(len(store.candidates(b)) + 2 for b in ORDER)  # none judged twice


def test_export_carries_failing_tests_compile_errors_and_cpu_seconds(run, invoke_cli):
    result = invoke_cli("export", "--run", run)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    with RunStore(run, read_only=True) as store:
        records = {(v.bug_id, v.hash): v for v in store.validations(engine="fast")}
    assert len(rows) == 16
    for row in rows:
        record = records[(row["bug"], row["candidate_hash"])]
        assert (row["failing_tests"], row["compile_errors"], row["cpu_seconds"], row["tests_run"]) == (
            record.failing_tests,
            record.compile_errors,
            record.cpu_seconds,
            record.tests_run,
        )
    wrong = [r for r in rows if r["verdict"] == Verdict.WRONG.value]
    uncompilable = [r for r in rows if r["verdict"] == Verdict.UNCOMPILABLE.value]
    assert wrong and all(r["failing_tests"] and "::" in r["failing_tests"][0] for r in wrong)
    assert uncompilable and all("error:" in r["compile_errors"] for r in uncompilable)
    assert all(r["cpu_seconds"] > 0 and r["wall_seconds"] > 0 for r in wrong + uncompilable)


def test_show_before_rank_lists_the_candidates_unranked_and_says_so(run, invoke_cli):
    with RunStore(run, read_only=True) as store:
        assert store.rankers() == []
        candidates = store.candidates("Textkit-1")
        verdicts = {v.hash: v.verdict.value for v in store.validations("Textkit-1", "fast")}
    result = invoke_cli("show", "--run", run, "--bug", "textkit-1", "-k", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "not ranked: `nl2fix rank` has not run on this run" in lines[1]
    assert "showing 3 of 8 candidates" in lines[1]
    heads = [line for line in lines if line.startswith("#")]
    first = sorted(candidates, key=lambda c: (-c.count, c.first_index, c.hash))[:3]
    assert [h.split()[0] for h in heads] == ["#1", "#2", "#3"] and "score" not in " ".join(heads)
    for head, candidate in zip(heads, first):
        assert f"{candidate.hash}  {verdicts[candidate.hash]}" in head
    asked = invoke_cli("show", "--run", run, "--bug", "textkit-1", "--ranker", "frequency")
    assert asked.exit_code == 2 and "no rankings yet" in asked.output
