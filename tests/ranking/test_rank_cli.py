"""`nl2fix rank` and `nl2fix show` on a real run store, through the click command group."""

from __future__ import annotations

import statistics

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.java_source.text import candidate_hash
from nl2fix.store.run_store import RunStore
from ranking.spec import ranking_info
from tests.helpers.ranking_run import CLAMP_FIX, CLAMP_REWRITE, CLAMP_SAME, CLAMP_TYPO, JOIN_STREAM, build_run


@pytest.fixture(scope="module")
def invoke():
    runner = CliRunner()

    def run(*args, color=False):
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False, color=color)

    return run


@pytest.fixture(scope="module")
def ranked_run(tmp_path_factory, invoke):
    run = build_run(tmp_path_factory.mktemp("ranked"))
    result = invoke("rank", "--run", run, "--method", "all")
    assert result.exit_code == 0, result.output
    result = invoke("rank", "--run", run, "--pruned")
    assert result.exit_code == 0, result.output
    return run, result.output


def _ranking(run, bug_id, key):
    with RunStore(run) as store:
        return store.ranking(bug_id, key)


def test_paper_ranking_keeps_at_or_above_the_median_least_similar_first(ranked_run):
    run, _ = ranked_run
    with RunStore(run) as store:
        keys = store.rankers()
        assert keys == [
            "cluster:tfidf",
            "frequency",
            "paper:tfidf:median",
            "paper:tfidf:median:pruned",
            "similarity-desc:tfidf",
        ]
        # similarity-desc keeps every candidate with its similarity: the paper ranking must be exactly
        # those at or above their median, in ascending order.
        all_sims = {(b.id, e.hash): e.score for b in store.bugs() for e in store.ranking(b.id, "similarity-desc:tfidf")}
        median = statistics.median(all_sims.values())
        info = ranking_info(store, "paper:tfidf:median")
        assert info.threshold_value == pytest.approx(median)
        for bug in store.bugs():
            paper = store.ranking(bug.id, "paper:tfidf:median")
            expected = sorted(
                ((s, h) for (b, h), s in all_sims.items() if b == bug.id and s >= median),
                key=lambda sh: sh[0],
            )
            assert [(e.score, e.hash) for e in paper] == expected
            assert [e.rank for e in paper] == list(range(1, len(paper) + 1))
    clamp = _ranking(run, "Demo-1", "paper:tfidf:median")
    # Identical to the buggy method up to comments: similarity 1, kept, last.
    assert clamp[-1].hash == candidate_hash(CLAMP_SAME) and clamp[-1].score == pytest.approx(1.0)
    assert candidate_hash(CLAMP_REWRITE) not in {e.hash for e in clamp}
    assert _ranking(run, "Demo-3", "paper:tfidf:median") == []


def test_frequency_and_pruned_rankings(ranked_run):
    run, output = ranked_run
    freq = _ranking(run, "Demo-1", "frequency")
    assert [(e.hash, e.score) for e in freq[:2]] == [
        (candidate_hash(CLAMP_FIX), 3.0),
        (candidate_hash(CLAMP_SAME), 2.0),
    ]
    # The three single samples keep sample order (first index 3, 4, 7).
    assert [e.hash for e in freq[2:]] == [
        candidate_hash(CLAMP_REWRITE),
        candidate_hash(CLAMP_TYPO),
        candidate_hash(CLAMP_FIX.replace("value > high", "value >= high")),
    ]
    pruned_hashes = {e.hash for bug in ("Demo-1", "Demo-2") for e in _ranking(run, bug, "paper:tfidf:median:pruned")}
    assert candidate_hash(CLAMP_TYPO) not in pruned_hashes
    assert candidate_hash(CLAMP_TYPO) in {e.hash for e in _ranking(run, "Demo-1", "similarity-desc:tfidf")}
    assert "1 uncompilable or rejected dropped (fast verdicts)" in output
    assert "1 kept without a verdict yet" in output  # JOIN_STREAM was never validated


def test_fixed_threshold_gets_its_own_key(tmp_path, invoke):
    run = build_run(tmp_path)
    result = invoke("rank", "--run", run, "--threshold", "0.98")
    assert result.exit_code == 0, result.output
    assert "paper:tfidf:0.98:" in result.output and "fixed" in result.output
    scores = [e.score for e in _ranking(run, "Demo-1", "paper:tfidf:0.98")]
    assert scores and min(scores) >= 0.98 and scores == sorted(scores)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--method", "frequency", "--embedder", "tfidf"], "uses no --embedder"),
        (["--method", "similarity-desc", "--threshold", "0.9"], "--threshold applies to --method paper"),
        (["--base-url", "http://127.0.0.1:9/v1"], "--base-url is for --embedder openai:MODEL"),
        (["--threshold", "high"], "neither `median` nor a number"),
        (["--embedder", "bert"], "unknown embedder 'bert'"),
    ],
)
def test_option_mistakes_are_explained(tmp_path, invoke, args, message):
    run = build_run(tmp_path)
    result = invoke("rank", "--run", run, *args)
    assert result.exit_code == 2
    assert message in result.output
    with RunStore(run) as store:
        assert store.rankers() == []


def test_pruning_without_verdicts_is_a_clear_error(tmp_path, invoke):
    run = build_run(tmp_path, validate=False)
    result = invoke("rank", "--run", run, "--pruned")
    assert result.exit_code == 2
    assert "--pruned needs verdicts" in result.output and "nl2fix validate" in result.output


def test_show_prints_verdicts_and_diffs_of_the_top_k(ranked_run, invoke):
    run, _ = ranked_run
    result = invoke("show", "--run", run, "--bug", "demo_1", "-k", "2")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "ranker paper:tfidf:median" in out and "showing 2 of 3 ranked candidates" in out
    assert "#1 " in out and "#2 " in out and "#3 " not in out
    assert "uncompilable" in out and "cannot find symbol hgh" in out and "plausible" in out
    assert "-        return low;" in out and "+        return hgh;" in out and "+        return high;" in out
    assert "values outside the range" not in out  # the diff is between comment-free methods
    assert "\x1b[" not in out  # not a terminal: no colour codes
    coloured = invoke("show", "--run", run, "--bug", "demo_1", "-k", "2", color=True).output
    assert "\x1b[32m+        return high;" in coloured and "\x1b[31m-        return low;" in coloured


def test_show_marks_unvalidated_candidates_and_failing_tests(ranked_run, invoke):
    run, _ = ranked_run
    out = invoke("show", "--run", run, "--bug", "Demo-2", "--ranker", "frequency", "-k", "5").output
    assert "failing: demo.DemoTest::testIt" in out
    stream_line = next(l for l in out.splitlines() if candidate_hash(JOIN_STREAM) in l)
    assert stream_line.endswith("not validated")
    assert "+    return String.join(separator, parts);" in out
    same = invoke("show", "--run", run, "--bug", "Demo-1", "-k", "3").output
    assert "(same code as the buggy method)" in same
    empty = invoke("show", "--run", run, "--bug", "Demo-3").output
    assert "no candidates in this ranking" in empty


def test_show_errors_name_what_to_do(tmp_path, ranked_run, invoke):
    run, _ = ranked_run
    unknown = invoke("show", "--run", run, "--bug", "Demo-9")
    assert unknown.exit_code == 2 and "unknown bug id" in unknown.output and "Demo-3" in unknown.output
    missing = invoke("show", "--run", run, "--bug", "Demo-1", "--ranker", "paper:tfidf:0.5")
    assert missing.exit_code == 2 and "rankings here: cluster:tfidf, frequency" in missing.output
    fresh = build_run(tmp_path / "fresh")
    none = invoke("show", "--run", fresh, "--bug", "Demo-1", "--ranker", "frequency")
    assert none.exit_code == 2 and "no rankings yet" in none.output and "nl2fix rank" in none.output
    assert invoke("rank", "--run", fresh, "--method", "frequency").exit_code == 0
    assert invoke("rank", "--run", fresh, "--method", "similarity-desc").exit_code == 0
    several = invoke("show", "--run", fresh, "--bug", "Demo-1")
    assert several.exit_code == 2 and "pass --ranker" in several.output
