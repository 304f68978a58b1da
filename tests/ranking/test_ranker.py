"""Ranking maths on hand-computed values, and the same rankings from the same store in any process."""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import sys

import numpy as np
import pytest
import scipy.sparse

from nl2fix.core.domain import Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command
from nl2fix.store.records import CandidateRecord
from nl2fix.store.run_store import STORE_FILE, RunStore
from ranking.ranker import Scored, cosine_similarities, drop_unfit, median_similarity, order, resolve_threshold
from ranking.run import rank_run
from ranking.spec import MEDIAN, Method, RankerSpec, parse_methods, parse_threshold
from tests.helpers.ranking_run import build_run


def test_cosine_similarity_matches_hand_computed_values():
    rows = np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 3.0], [0.0, 0.0], [-1.0, 0.0], [3.0, 4.0]])
    expected = [1.0, 1 / math.sqrt(2), 0.0, 0.0, -1.0, 0.6]
    assert cosine_similarities(np.array([1.0, 0.0]), rows) == pytest.approx(expected, abs=1e-10)
    sparse = cosine_similarities(scipy.sparse.csr_matrix([[5.0, 0.0]]), scipy.sparse.csr_matrix(rows))
    assert sparse == pytest.approx(expected, abs=1e-10)
    assert cosine_similarities(np.array([1.0, 0.0]), np.zeros((0, 2))).shape == (0,)


def test_similarities_are_rounded_so_float_noise_cannot_reorder():
    # The same direction at another scale: raw cosines differ in the last bits, rounded ones do not.
    rows = np.array([[1.0, 2.0, 3.0], [0.001, 0.002, 0.003]])
    query = np.array([[0.3, 0.1, 0.7]])
    raw = rows @ query.T / (np.linalg.norm(rows, axis=1, keepdims=True) * np.linalg.norm(query))
    assert raw[0, 0] != raw[1, 0]
    sims = cosine_similarities(query, rows)
    assert sims[0] == sims[1]


def test_median_threshold_and_fixed_threshold():
    assert median_similarity([0.9, 0.2, 0.5]) == 0.5
    assert median_similarity([0.9, 0.2, 0.5, 0.7]) == pytest.approx(0.6)
    assert median_similarity([]) is None
    assert resolve_threshold(MEDIAN, [0.1, 0.3, 0.2]) == 0.2
    assert resolve_threshold(0.95, [0.1, 0.3]) == 0.95


def _scored(*triples):
    return [Scored(h, s, i) for h, s, i in triples]


def test_paper_order_drops_below_threshold_and_puts_least_similar_first():
    items = _scored(("same", 1.0, 0), ("far", 0.40, 1), ("near", 0.97, 2), ("mid", 0.95, 3), ("low", 0.94, 4))
    ranked = order(Method.PAPER, items, threshold=0.95)
    # Kept: >= 0.95 (the threshold itself stays); identical-to-buggy (1.0) is kept, last.
    assert [s.hash for s in ranked] == ["mid", "near", "same"]
    assert [s.hash for s in order(Method.PAPER, items, threshold=None)] == ["far", "low", "mid", "near", "same"]
    assert order(Method.PAPER, [], threshold=0.5) == []


def test_descending_orders_for_the_alternatives():
    items = _scored(("a", 1.0, 4), ("b", 3.0, 2), ("c", 2.0, 0))
    assert [s.hash for s in order(Method.FREQUENCY, items)] == ["b", "c", "a"]
    assert [s.hash for s in order(Method.SIMILARITY_DESC, items)] == ["b", "c", "a"]


def test_ties_break_by_first_index_then_hash_whatever_the_input_order():
    items = _scored(("zz", 0.5, 3), ("bb", 0.5, 1), ("aa", 0.5, 3), ("cc", 0.2, 9), ("dd", 0.9, 0))
    expected_up = ["cc", "bb", "aa", "zz", "dd"]
    expected_down = ["dd", "bb", "aa", "zz", "cc"]
    for perm in itertools.permutations(items):
        assert [s.hash for s in order(Method.PAPER, perm, threshold=None)] == expected_up
        assert [s.hash for s in order(Method.SIMILARITY_DESC, perm)] == expected_down


def test_pruning_drops_only_known_uncompilable_candidates():
    cands = [CandidateRecord(bug_id="B-1", hash=h, code="x") for h in ("ok", "bad", "new", "slow")]
    verdicts = {"ok": Verdict.PLAUSIBLE, "bad": Verdict.UNCOMPILABLE, "slow": Verdict.TIMEOUT}
    kept, dropped, unvalidated = drop_unfit(cands, verdicts)
    assert [c.hash for c in kept] == ["ok", "new", "slow"]
    assert (dropped, unvalidated) == (1, 1)


def test_ranker_keys_and_option_parsing():
    assert RankerSpec(Method.PAPER, "tfidf", MEDIAN).key == "paper:tfidf:median"
    assert RankerSpec(Method.PAPER, "openai:text-embedding-ada-002", 0.95, pruned=True).key == (
        "paper:openai:text-embedding-ada-002:0.95:pruned"
    )
    assert RankerSpec(Method.SIMILARITY_DESC, "tfidf").key == "similarity-desc:tfidf"
    assert RankerSpec(Method.FREQUENCY, pruned=True).key == "frequency:pruned"
    assert parse_threshold("0.95") == 0.95 and parse_threshold("Median") == MEDIAN
    for bad in ("high", "nan", "inf", ""):
        with pytest.raises(Nl2FixError):
            parse_threshold(bad)
    assert parse_methods("all") == list(Method)
    with pytest.raises(Nl2FixError) as err:
        parse_methods("random")
    assert "similarity-desc" in err.value.hint


_DUMP = """
import json, sys
from pathlib import Path
from nl2fix.store.run_store import RunStore
from ranking.run import rank_run
run = Path(sys.argv[1])
keys = rank_run(run, method="all") + rank_run(run, pruned=True)
with RunStore(run) as store:
    out = {k: {b.id: [(e.hash, e.score) for e in store.ranking(b.id, k)] for b in store.bugs()} for k in keys}
print(json.dumps(out, sort_keys=True))
"""


def test_same_store_gives_the_same_rankings_in_every_process(tmp_path):
    source = build_run(tmp_path / "source")
    runs = []
    for name in ("here", "p1", "p2"):
        (tmp_path / name).mkdir()
        shutil.copy(source / STORE_FILE, tmp_path / name / STORE_FILE)
        runs.append(tmp_path / name)
    outputs = []
    for run, seed in zip(runs[1:], ("1", "2")):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = run_command([sys.executable, "-c", _DUMP, str(run)], timeout=120, env=env)
        assert result.ok, result.stderr
        outputs.append(json.loads(result.stdout))
    keys = rank_run(runs[0], method="all") + rank_run(runs[0], pruned=True)
    with RunStore(runs[0]) as store:
        here = {k: {b.id: [[e.hash, e.score] for e in store.ranking(b.id, k)] for b in store.bugs()} for k in keys}
    assert outputs[0] == outputs[1] == here
    assert sorted(here) == [
        "cluster:tfidf",
        "frequency",
        "paper:tfidf:median",
        "paper:tfidf:median:pruned",
        "similarity-desc:tfidf",
    ]
    assert here["paper:tfidf:median"]["Demo-1"], "the fixture must give a non-empty ranking to compare"
