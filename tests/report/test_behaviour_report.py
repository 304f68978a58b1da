"""Behaviour labels in reports, compare, export and show, over the hand-countable run of
tests/helpers/report_run.py: Demo-1's plausible `a` diverges from the fix, Other-1's `i` behaves as it."""

import json

import pytest

from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.report.compare import compare_runs
from nl2fix.report.data import collect
from nl2fix.report.export import export_run
from nl2fix.report.render import write_report
from nl2fix.store.records import BehaviourRecord, ObservedResult, RankingEntry, ValidationRecord
from nl2fix.store.run_store import RunStore
from ranking.display import bug_view
from ranking.ranker import Scored, cluster_order
from tests.helpers.report_run import build_run

DIVERGES = BehaviourRecord(
    label=Behaviour.DIVERGES,
    inputs=12,
    first_input="arg0=-1",
    reference_result="return=0",
    candidate_result="return=-1",
    junit_test="public class DemoNl2fixDivergenceTest {\n    @org.junit.Test\n    public void f() {}\n}\n",
)


def _with_behaviour(run_dir):
    with RunStore(run_dir) as store:
        for bug_id, hash, behaviour in (
            ("Demo-1", "a", DIVERGES),
            ("Other-1", "i", BehaviourRecord(label=Behaviour.SAME, inputs=7)),
        ):
            record = store.validation(bug_id, hash, "fast")
            record.behaviour = behaviour
            store.save_validation(record)
        # a cluster ranking beside the paper's: Demo-1's plausible `a` first
        store.save_ranking(
            "Demo-1",
            "cluster:tfidf",
            [
                RankingEntry(bug_id="Demo-1", ranker="cluster:tfidf", rank=r, hash=h, score=0.9)
                for r, h in enumerate(["a", "b", "c"], start=1)
            ],
        )
    return run_dir


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return _with_behaviour(build_run(tmp_path_factory.mktemp("run")))


def test_likely_correct_pass_at_k_counts_plausible_same_behaviour_samples_only(run):
    data = collect(run, codebleu=False)
    # Demo-1: 2 plausible samples, but they diverge; Demo-2: none; Other-1: 5 of 5 likely correct
    assert data.likely_correct_pass_at_k == pytest.approx({1: 1 / 3, 5: 1 / 3})
    assert data.pass_at_k == pytest.approx({1: (0.4 + 0 + 1) / 3, 5: 2 / 3})
    rows = {b.bug_id: b for b in data.bugs}
    assert rows["Demo-1"].behaviour == {"diverges": 1} and rows["Broken-1"].behaviour == {"unknown": 1}
    (d,) = rows["Demo-1"].divergences
    assert (d.hash, d.samples, d.input, d.fix_result, d.candidate_result) == (
        "a",
        2,
        "arg0=-1",
        "return=0",
        "return=-1",
    )
    assert data.ranked_pass_at_k["cluster:tfidf"][1] == pytest.approx(1 / 3)
    assert data.ranked_likely_correct_pass_at_k["cluster:tfidf"][1] == 0.0
    assert data.ranked_likely_correct_pass_at_k["paper:tfidf:median"] == pytest.approx({1: 1 / 3, 5: 1 / 3, 10: 1 / 3})
    demo = next(p for p in data.per_project if p.project == "Demo")
    assert demo.likely_correct_pass_at_k == {1: 0.0, 5: 0.0}


def test_text_report_compare_export_and_show_say_it(run, tmp_path):
    text = write_report(run, "text")
    assert "likely correct pass@k" in text and "Plausible but not the developer's behaviour" in text
    assert "arg0=-1" in text and "Unique plausible candidates by behaviour: diverges 1, same-behaviour 1." in " ".join(
        text.split()
    )
    other = build_run(tmp_path / "other")
    hot, _ = compare_runs([run, other]).runs
    assert hot.likely_correct_pass_at_k == pytest.approx({1: 1 / 3, 5: 1 / 3})
    rows = [json.loads(line) for line in export_run(run).splitlines()]
    a = next(r for r in rows if r["bug"] == "Demo-1" and r["candidate_hash"] == "a")
    assert a["behaviour"]["label"] == "diverges" and a["behaviour"]["first_input"] == "arg0=-1"
    assert "observations" not in a["behaviour"]
    with RunStore(run, read_only=True) as store:
        shown = "\n".join(line.text for line in bug_view(store, "Demo-1", "paper:tfidf:median", 3))
    assert "plausible, diverges" in shown and "diverges from the developer's fix on: arg0=-1" in shown
    # the JUnit test that shows it, line by line under the divergence
    at = shown.index("a JUnit 4 test that shows it (passes on the developer's fix, fails on this candidate):")
    assert "\n        public class DemoNl2fixDivergenceTest {\n            @org.junit.Test\n" in shown[at:]


def _observed(results: dict[str, str]) -> BehaviourRecord:
    return BehaviourRecord(
        label=Behaviour.OBSERVED,
        observations=[ObservedResult(input=i, input_digest=i, result=r, result_digest=r) for i, r in results.items()],
    )


def test_the_cluster_ranker_puts_the_largest_clusters_most_typical_member_first():
    def record(h, verdict, behaviour=None):
        return ValidationRecord(bug_id="B-1", hash=h, engine="fast", verdict=verdict, behaviour=behaviour)

    # similarity order (the paper's: lowest first) w, x, y, z, v; x and z behave alike, y otherwise
    scored = [Scored("w", 0.1, 0), Scored("x", 0.2, 1), Scored("y", 0.3, 2), Scored("z", 0.4, 3), Scored("v", 0.5, 4)]
    records = {
        "w": record("w", Verdict.WRONG),
        "x": record("x", Verdict.PLAUSIBLE, _observed({"1": "p"})),
        "y": record("y", Verdict.PLAUSIBLE, _observed({"1": "q"})),
        "z": record("z", Verdict.PLAUSIBLE, _observed({"1": "p"})),
        "v": record("v", Verdict.PLAUSIBLE),
    }
    samples = {"x": 1, "y": 2, "z": 3, "w": 5, "v": 1}
    # clusters {x, z} (4 samples; z most typical) and {y} (2); then x, then the unprobed v; then the wrong w
    assert [s.hash for s in cluster_order(scored, records, samples)] == ["z", "y", "x", "v", "w"]


def test_a_divergence_on_a_call_of_another_method_says_which_in_the_report_and_show(tmp_path):
    # a caller input: the first differing input is a call of solve, which calls the changed method
    run = build_run(tmp_path / "run")
    with RunStore(run) as store:
        record = store.validation("Demo-1", "a", "fast")
        record.behaviour = DIVERGES.model_copy(update={"first_call": "solve(int,long)", "junit_test": ""})
        store.save_validation(record)
    (d,) = next(b for b in collect(run, codebleu=False).bugs if b.bug_id == "Demo-1").divergences
    assert d.input == "a call of solve(int,long) on arg0=-1"
    assert record.behaviour.divergence() == ("arg0=-1", "return=0", "return=-1", "solve(int,long)")
    with RunStore(run, read_only=True) as store:
        shown = "\n".join(line.text for line in bug_view(store, "Demo-1", "paper:tfidf:median", 3))
    assert "diverges from the developer's fix on: a call of solve(int,long) on arg0=-1" in shown, shown
