"""Reports, rankings and comparisons of runs in awkward states: rankings emptied by the threshold,
runs with no candidate to validate, runs whose directories share their last names."""

from __future__ import annotations

import json

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.java_source.text import candidate_hash
from nl2fix.report.compare import compare_runs
from nl2fix.report.data import collect
from nl2fix.store.records import SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from ranking.run import rank_run
from tests.helpers.ranking_run import build_run as build_rank_run
from tests.helpers.report_run import build_run

STALE = "run `nl2fix rank` again"


def _stale_warnings(run_dir) -> list[str]:
    return [w for w in collect(run_dir, codebleu=False).warnings if STALE in w]


def test_a_ranking_emptied_by_the_threshold_is_not_called_stale(tmp_path):
    run = build_rank_run(tmp_path / "run")
    (key,) = rank_run(run, threshold=0.999)
    with RunStore(run) as store:
        # Demo-2 has candidates, all less similar than 0.999 to its buggy method: ranked, and empty
        assert store.candidates("Demo-2") and not store.ranking("Demo-2", key)
    assert _stale_warnings(run) == []


def test_a_ranking_pruned_to_nothing_is_not_called_stale(tmp_path):
    run = build_rank_run(tmp_path / "run")
    code = "public int clamp(int v) { return v; }"
    with RunStore(run) as store:
        # Demo-3's only candidate is uncompilable: the pruned ranking of Demo-3 is empty by design
        store.add_sample(
            SampleRecord(bug_id="Demo-3", index=2, response=code, candidate_hash=candidate_hash(code)), code
        )
        store.save_validation(
            ValidationRecord(bug_id="Demo-3", hash=candidate_hash(code), engine="fast", verdict=Verdict.UNCOMPILABLE)
        )
    rank_run(run, pruned=True)
    assert _stale_warnings(run) == []


def test_candidates_sampled_after_ranking_still_ask_for_a_new_ranking(tmp_path):
    run = build_rank_run(tmp_path / "run")
    rank_run(run, method="frequency")
    code = "public int clamp(int v) { return v; }"
    with RunStore(run) as store:
        store.add_sample(
            SampleRecord(bug_id="Demo-3", index=2, response=code, candidate_hash=candidate_hash(code)), code
        )
    (warning,) = _stale_warnings(run)
    assert warning.startswith("ranking frequency covers 2 of 3 bugs")


def test_runs_whose_directories_end_alike_keep_their_own_rows(tmp_path):
    a = build_run(tmp_path / "gpt-4" / "t0.8" / "run")
    b = build_run(tmp_path / "gpt-3.5" / "t0.8" / "run", temperature=0.2)
    data = compare_runs([a, b])
    labels = [r.label for r in data.runs]
    assert labels == ["gpt-4/t0.8/run", "gpt-3.5/t0.8/run"]
    assert data.overlap.labels == labels and len(data.overlap.pairwise) == 2 and list(data.curves) == labels
    assert [r.temperature for r in data.runs] == [0.8, 0.2]


def test_the_same_run_twice_gets_two_labels(tmp_path):
    a = build_run(tmp_path / "run")
    data = compare_runs([a, a])
    assert len({r.label for r in data.runs}) == 2 and len(data.overlap.pairwise) == 2


@pytest.mark.slow
def test_run_whose_bugs_gave_no_candidate_still_ranks_and_reports(tmp_path, monkeypatch, invoke_cli):
    """Every bug too long for the context window: sampling fails the run (as a failed request does),
    and there is nothing to validate, so nothing to prune, but a report."""
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NL2FIX_DATA_DIR", str(tmp_path / "data"))
    run, out = tmp_path / "run", tmp_path / "report.json"
    result = invoke_cli(
        "run",
        "--dataset",
        "example",
        "--bug",
        "Rangekit-1",
        "--backend",
        "mutation",
        "-n",
        "3",
        "--context-window",
        "256",
        "--max-tokens",
        "200",
        "--run",
        run,
        "--quiet",
        "--format",
        "json",
        "--out",
        out,
        "--no-codebleu",
    )
    assert result.exit_code == 1 and "1 bugs could not be prompted (Rangekit-1)" in result.output
    assert invoke_cli("validate", "--run", run, "--quiet").exit_code == 0
    assert invoke_cli("rank", "--run", run).exit_code == 0
    result = invoke_cli("report", "--run", run, "--format", "json", "--out", out, "--no-codebleu")
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["bugs"][0]["samples"] == 0 and report["pass_at_k"] == {"1": 0.0}  # missing samples fail
    assert report["run"]["rankers"] == [] and report["run"]["engine"] is None
