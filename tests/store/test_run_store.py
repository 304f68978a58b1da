import dataclasses
import json
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.store.records import RankingEntry, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import STORE_FILE, RunStore, _bug_from_json


def _bug(n=1):
    return Bug(
        project="Demo",
        number=n,
        path="src/A.java",
        start_line=3,
        end_line=5,
        buggy_method="int f() { return 1; }",
        fixed_method="int f() { return 2; }",
        title="f is off by one",
        trigger_tests=("a.ATest::testF",),
        relevant_tests=("a.ATest",),
    )


def _config(**kw):
    base = dict(
        dataset="example", backend="mutation", model="mutation", strategy=Strategy.ZERO_SHOT, temperature=0.8, n=3
    )
    base.update(kw)
    return RunConfig(**base)


def test_opening_a_missing_run_is_a_user_error(tmp_path):
    with pytest.raises(Nl2FixError) as err:
        RunStore(tmp_path / "nope")
    assert "not a run directory" in err.value.message


def test_config_is_fixed_once(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.set_config(_config())
        store.set_config(_config())
        with pytest.raises(Nl2FixError) as err:
            store.set_config(_config(temperature=0.2))
        assert "temperature" in err.value.message
        assert store.config.temperature == 0.8


def test_bugs_round_trip_in_order(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.add_bugs([_bug(2), _bug(1)])
        store.add_bugs([_bug(1), _bug(3)])
        assert [b.id for b in store.bugs()] == ["Demo-2", "Demo-1", "Demo-3"]
        assert store.bug("demo_1") == _bug(1)


def test_a_bugs_trigger_tests_texts_round_trip_as_hashable_pairs(tmp_path):
    bug = dataclasses.replace(
        _bug(4),
        trigger_test_sources=(("a.ATest::testF", "@Test\nvoid testF() {}"),),
        trigger_failures=(("a.ATest::testF", "java.lang.AssertionError\n\tat a.ATest"),),
    )
    with RunStore(tmp_path, create=True) as store:
        store.add_bugs([bug])
        again = store.bug("Demo-4")
    assert again == bug and again.trigger_failures == bug.trigger_failures and hash(again) == hash(bug)
    # a store written before these fields existed reads them as empty
    new_fields = ("trigger_test_sources", "trigger_failures")
    old = {k: v for k, v in dataclasses.asdict(_bug(5)).items() if k not in new_fields}
    assert _bug_from_json(json.dumps(old)) == _bug(5)


def test_samples_dedupe_candidates_and_count_duplicates(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        for i, (h, code) in enumerate([("h1", "A"), ("h2", "B"), ("h1", "A"), (None, None)]):
            rec = SampleRecord(
                bug_id="Demo-1", index=i, response="r", candidate_hash=h, extraction_error=None if h else "no code"
            )
            assert store.add_sample(rec, code)
        assert not store.add_sample(SampleRecord(bug_id="Demo-1", index=0, response="again", candidate_hash="h9"), "Z")
        cands = store.candidates("Demo-1")
        assert [(c.hash, c.count, c.first_index) for c in cands] == [("h1", 2, 0), ("h2", 1, 1)]
        assert store.sample_indices("Demo-1") == {0, 1, 2, 3}
        with pytest.raises(ValueError):
            store.add_sample(SampleRecord(bug_id="Demo-1", index=7, response="r", candidate_hash="h1"), None)


def test_writes_survive_a_killed_process(tmp_path):
    code = f"""
import os
from nl2fix.store.run_store import RunStore
from nl2fix.store.records import SampleRecord
s = RunStore({str(tmp_path)!r}, create=True)
s.add_sample(SampleRecord(bug_id='Demo-1', index=0, response='r', candidate_hash='h'), 'code')
os._exit(9)
"""
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    with RunStore(tmp_path) as store:
        assert store.sample_indices("Demo-1") == {0}


def test_validations_embeddings_rankings(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        rec = ValidationRecord(
            bug_id="Demo-1", hash="h1", engine="fast", verdict=Verdict.WRONG, failing_tests=["a.ATest::testF"]
        )
        store.save_validation(rec)
        assert store.validation("Demo-1", "h1", "fast") == rec
        assert store.validation("Demo-1", "h1", "defects4j") is None
        assert store.validations(engine="fast") == [rec]
        store.save_embeddings("tfidf", {"t1": np.array([1.0, 2.0])})
        got = store.embeddings("tfidf", ["t1", "t2"])
        assert list(got) == ["t1"] and np.allclose(got["t1"], [1.0, 2.0])
        entries = [
            RankingEntry(bug_id="Demo-1", ranker="paper", rank=r, hash=h, score=s)
            for r, h, s in [(1, "h2", 0.5), (2, "h1", 0.9)]
        ]
        store.save_ranking("Demo-1", "paper", entries)
        store.save_ranking("Demo-1", "paper", entries[:1])
        assert store.ranking("Demo-1", "paper") == entries[:1]
        assert store.rankers() == ["paper"]


def test_schema_version_mismatch_is_refused(tmp_path):
    RunStore(tmp_path, create=True).close()
    conn = sqlite3.connect(tmp_path / STORE_FILE)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(Nl2FixError):
        RunStore(tmp_path)


def test_samples_added_together_skip_stored_indices_and_check_every_one(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        assert store.add_sample(SampleRecord(bug_id="B-1", index=0, response="", candidate_hash="h"), "int f() {}")
        batch = [
            (SampleRecord(bug_id="B-1", index=i, response="", candidate_hash=h), code)
            for i, h, code in ((0, "x", "int x() {}"), (1, "h", "int f() {}"), (2, None, None))
        ]
        assert store.add_samples(batch) == 2  # index 0 was stored already
        assert [(c.hash, c.count) for c in store.candidates("B-1")] == [("h", 2)]
        with pytest.raises(ValueError, match="exactly when"):
            store.add_samples([(SampleRecord(bug_id="B-1", index=3, response="", candidate_hash="y"), None)])
        assert store.sample_indices("B-1") == {0, 1, 2}
