"""The Defects4J benchmark scripts: how bench_real.py sorts a bug's baselines under the two
engines and sets a baseline tree's fast engine beside this one's, and every script's plain skip
where Defects4J is not installed."""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.store.records import BehaviourRecord, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import BaselineCheck
from tests.helpers.paths import REPO

SCRIPTS = REPO / "scripts"
sys.path.insert(0, str(SCRIPTS))
import bench_real  # noqa: E402

TRIGGER = "p.ATest::broken"
BUG = Bug(
    project="Cli",
    number=9,
    path="src/A.java",
    start_line=1,
    end_line=3,
    buggy_method="int f() {}",
    fixed_method="int f() { return 1; }",
    title="t",
    trigger_tests=(TRIGGER,),
)


def record(engine: str, hash: str, verdict: Verdict, failing=(), detail="") -> ValidationRecord:
    return ValidationRecord(
        bug_id=BUG.id, hash=hash, engine=engine, verdict=verdict, failing_tests=list(failing), detail=detail
    )


def checks(fast: tuple, d4j: tuple) -> tuple[BaselineCheck, BaselineCheck]:
    """Each engine's (fixed, buggy) as (verdict, failing tests[, detail])."""

    def check(engine, pair):
        fixed, buggy = (record(engine, h, *v) for h, v in zip(("fixed", "buggy"), pair))
        return BaselineCheck(BUG, fixed, buggy)

    return check("fast", fast), check("defects4j", d4j)


CONTRACT = ((Verdict.PLAUSIBLE, ()), (Verdict.WRONG, (TRIGGER,)))


def test_engines_that_agree_and_keep_the_contract_agree():
    assert bench_real.judge(*checks(CONTRACT, CONTRACT)).kind == "agree"


def test_a_test_failing_only_under_the_fast_engine_is_a_disagreement_that_names_it():
    fast = ((Verdict.WRONG, ("p.ListTest::reflect",), "InaccessibleObjectException"), (Verdict.WRONG, (TRIGGER,)))
    found = bench_real.judge(*checks(fast, CONTRACT))
    assert found.kind == "DISAGREE"
    assert "fixed: fast wrong, defects4j plausible" in found.why and "p.ListTest::reflect" in found.why
    assert "InaccessibleObjectException" in found.why


def test_tests_only_defects4j_s_environment_failed_are_listed_apart():
    # Math-3 here: the Ant running Defects4J's tests loads Hamcrest twice and says so
    fault = "environment fault, not the code's: java.lang.LinkageError: loader constraint violation"
    d4j = ((Verdict.WRONG, ("p.KTest::getters",), fault), (Verdict.WRONG, (TRIGGER,)))
    found = bench_real.judge(*checks(CONTRACT, d4j))
    assert found.kind == "environment" and "p.KTest::getters" in found.why
    # without the environment's word, or with more failing under fast, it stays a disagreement
    assert bench_real.judge(*checks(CONTRACT, ((Verdict.WRONG, ("p.KTest::getters",)), CONTRACT[1]))).kind == "DISAGREE"


def test_a_ground_truth_defects4j_rejects_too_is_the_dataset_s():
    rejected = ((Verdict.UNCOMPILABLE, ()), (Verdict.WRONG, (TRIGGER,)))
    found = bench_real.judge(*checks(rejected, rejected))
    assert found.kind == "dataset" and "ground truth is uncompilable" in found.why


def test_a_buggy_version_failing_more_than_its_triggers_under_both_is_listed_as_both():
    extra = ((Verdict.PLAUSIBLE, ()), (Verdict.WRONG, (TRIGGER, "p.BTest::other")))
    found = bench_real.judge(*checks(extra, extra))
    assert found.kind == "both" and "p.BTest::other" in found.why


def test_a_harness_error_is_not_run_rather_than_a_disagreement():
    broken = ((Verdict.ERROR, (), "workspace: cannot check out"), (Verdict.ERROR, (), "workspace: cannot check out"))
    found = bench_real.judge(*checks(broken, CONTRACT))
    assert found.kind == "not run" and found.why.startswith("fast: workspace: cannot check out")


def test_the_sample_is_spread_over_the_projects():
    bugs = [
        Bug(project=p, number=n, path="a", start_line=1, end_line=1, buggy_method="", fixed_method="", title="")
        for p, n in (("Cli", 1), ("Cli", 2), ("Cli", 3), ("Math", 1), ("Csv", 1), ("Csv", 2))
    ]
    assert [b.id for b in bench_real.spread(bugs, 5)] == ["Cli-1", "Math-1", "Csv-1", "Cli-2", "Csv-2"]


def test_with_a_baseline_the_two_fast_engines_judge_all_bugs_at_once_sharing_the_workers_then_defects4j(tmp_path):
    bugs = [
        Bug(project="Cli", number=n, path="a", start_line=1, end_line=1, buggy_method="", fixed_method="", title="")
        for n in (1, 2, 3)
    ]
    this, base, d4j = bench_real.sides(tmp_path / "run", tmp_path / "old")
    assert (this.tree, base.tree, d4j.run_dir) == (bench_real.THIS_TREE, tmp_path / "old", tmp_path / "run")
    assert this.run_dir.parent == base.run_dir.parent != d4j.run_dir

    def rounds(judges, workers):
        return [
            [(side.label, [b.number for b in of], w) for side, of, w in calls]
            for calls in bench_real.schedule(judges, bugs, workers)
        ]

    # the two fast engines at the same time over every bug, a worker each (each bug has one, as in a run of
    # many bugs), then defects4j alone with all the workers
    assert rounds([this, base, d4j], 2) == [
        [("fast", [1, 2, 3], 1), ("fast@old", [1, 2, 3], 1)],
        [("defects4j", [1, 2, 3], 2)],
    ]
    assert rounds([this, base, d4j], 4)[0] == [("fast", [1, 2, 3], 2), ("fast@old", [1, 2, 3], 2)]
    assert rounds([this, base, d4j], 1)[0] == [("fast", [1, 2, 3], 1), ("fast@old", [1, 2, 3], 1)]
    alone = bench_real.sides(tmp_path / "run", None)
    assert rounds(alone, 2) == [[("fast", [1, 2, 3], 2)], [("defects4j", [1, 2, 3], 2)]]


def test_the_fast_stores_are_named_after_the_code_of_both_trees(tmp_path):
    tree = tmp_path / "tree"
    (tree / "nl2fix" / "__pycache__").mkdir(parents=True)
    (tree / "nl2fix" / "a.py").write_text("x = 1\n")
    before = bench_real.code_fingerprint(tree)
    (tree / "nl2fix" / "__pycache__" / "a.pyc").write_bytes(b"cache")
    assert bench_real.code_fingerprint(tree) == before
    (tree / "nl2fix" / "a.py").write_text("x = 2\n")
    assert bench_real.code_fingerprint(tree) != before


def test_a_fast_engine_s_copy_of_the_run_has_its_candidates_and_only_its_own_verdicts(tmp_path):
    run, copy = tmp_path / "run", tmp_path / "copy"

    def add(store, index, hash):
        store.add_bugs([BUG])
        store.add_sample(SampleRecord(bug_id=BUG.id, index=index, response="r", candidate_hash=hash), "code " + hash)

    with RunStore(run, create=True) as store:
        add(store, 0, "c0")
        store.save_validation(record("fast", "c0", Verdict.WRONG))
    bench_real.verdictless_copy(run, copy)
    with RunStore(copy) as store:
        assert [c.hash for c in store.candidates(BUG.id)] == ["c0"] and not store.validations()
        store.save_validation(record("fast", "c0", Verdict.PLAUSIBLE))
    with RunStore(run) as store:  # the run grows: the copy gets the new candidate and keeps its verdict
        add(store, 1, "c1")
    bench_real.verdictless_copy(run, copy)
    with RunStore(copy) as store:
        assert sorted(c.hash for c in store.candidates(BUG.id)) == ["c0", "c1"]
        assert [(v.hash, v.verdict) for v in store.validations()] == [("c0", Verdict.PLAUSIBLE)]
    assert sorted(p.name for p in copy.iterdir()) == ["run.sqlite"]


EARLIER_TREE = {
    # an earlier commit's nl2fix as bench_real's copy meets it: a Bug without the fields added since, a store
    # that reads schema 1 (before the migrations, a constant)
    "nl2fix/__init__.py": "",
    "nl2fix/core/__init__.py": "",
    "nl2fix/core/domain.py": (
        "import dataclasses\n@dataclasses.dataclass\nclass Bug:\n    project: str\n    number: int\n"
    ),
    "nl2fix/store/__init__.py": "",
    "nl2fix/store/run_store.py": "SCHEMA_VERSION = 1\n",
    "nl2fix/store/records.py": "class SampleRecord:\n    model_fields = {'bug_id': None, 'index': None}\n",
}


def test_a_copy_for_an_earlier_tree_is_in_the_schema_and_fields_that_tree_reads(tmp_path):
    tree, run, copy = tmp_path / "tree", tmp_path / "run", tmp_path / "copy"
    for name, text in EARLIER_TREE.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    with RunStore(run, create=True) as store:
        store.add_bugs([BUG])
        store.add_sample(SampleRecord(bug_id=BUG.id, index=0, response="r", candidate_hash="c0"), "code")
    bench_real.verdictless_copy(run, copy, tree)
    with sqlite3.connect(copy / "run.sqlite") as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
        assert [json.loads(r) for (r,) in db.execute("SELECT record FROM bugs")] == [{"project": "Cli", "number": 9}]
        assert [json.loads(r) for (r,) in db.execute("SELECT record FROM samples")] == [{"bug_id": BUG.id, "index": 0}]
    bench_real.as_this_tree_reads(copy / "run.sqlite")  # once the earlier tree judged it: this tree reads it
    with RunStore(copy) as store:
        assert store.validations() == []
    (tree / "nl2fix/store/run_store.py").write_text("SCHEMA_VERSION = 0\n")  # no copy of schema 2 is a schema 0
    with pytest.raises(SystemExit, match="reads run-store schema 0"):
        bench_real.verdictless_copy(run, tmp_path / "copy0", tree)


def test_side_by_side_the_costs_their_ratio_and_every_candidate_s_verdicts(tmp_path, capsys):
    judges = bench_real.sides(tmp_path / "run", tmp_path / "old")
    cpu = {"fast": (1.0, 2.0, 4.0), "fast@old": (1.0, 1.0, 2.0), "defects4j": (10.0, 10.0, 10.0)}
    records = {
        label: {
            (BUG.id, f"c{i}"): record(label, f"c{i}", Verdict.WRONG).model_copy(update={"cpu_seconds": c})
            for i, c in enumerate(cpus)
        }
        for label, cpus in cpu.items()
    }
    records["fast@old"][(BUG.id, "c2")] = records["fast@old"][(BUG.id, "c2")].model_copy(
        update={"verdict": Verdict.PLAUSIBLE}
    )
    keys = sorted(records["fast"])
    bench_real.print_costs(judges, records, {"fast": 3.0, "fast@old": 3.0, "defects4j": 30.0}, keys)
    bench_real.print_verdicts(judges, records, keys)
    out = capsys.readouterr().out
    assert "fast / fast@old: medians 2.000x, means 1.750x, median of the candidates' own ratios 2.000x" in out
    assert "agreement, fast vs defects4j: 3 of 3" in out and "agreement, fast@old vs defects4j: 2 of 3" in out
    assert "agreement, fast vs fast@old: 2 of 3" in out
    assert "wrong / plausible / wrong" in out and f"DISAGREE {BUG.id} c2: fast wrong" in out


@pytest.mark.parametrize("script", ["bench_real.py", "bench_prepare.py", "sweep_splice.py"])
def test_without_defects4j_each_script_says_so_and_succeeds(script, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("D4J_HOME", "DEFECTS4J_HOME")}
    env["PATH"] = str(Path(sys.executable).parent)
    done = subprocess.run([sys.executable, str(SCRIPTS / script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("skipped: Defects4J is not installed")


def test_defects4j_s_sample_takes_each_bug_s_candidates_of_each_verdict_and_keeps_only_them(tmp_path):
    verdicts = {
        "a": Verdict.WRONG,
        "b": Verdict.PLAUSIBLE,
        "c": Verdict.TIMEOUT,
        "d": Verdict.PLAUSIBLE,
        "e": Verdict.WRONG,
    }
    records = {(BUG.id, h): record("fast", h, v) for h, v in verdicts.items()}
    records[("Csv-1", "a")] = record("fast", "a", Verdict.WRONG).model_copy(update={"bug_id": "Csv-1"})
    chosen = bench_real.defects4j_sample(records, 1)
    assert chosen == {(BUG.id, "a"), (BUG.id, "b"), (BUG.id, "c"), ("Csv-1", "a")}
    assert bench_real.defects4j_sample(records, 2) == {*chosen, (BUG.id, "d"), (BUG.id, "e")}
    with RunStore(tmp_path, create=True) as store:
        store.add_bugs([BUG])
        for i, h in enumerate(verdicts):
            store.add_sample(SampleRecord(bug_id=BUG.id, index=i, response="r", candidate_hash=h), "code " + h)
    bench_real.keep_only(tmp_path, chosen)
    with RunStore(tmp_path) as store:
        assert sorted(c.hash for c in store.candidates(BUG.id)) == ["a", "b", "c"]
        assert sorted(s.candidate_hash for s in store.samples(BUG.id)) == ["a", "b", "c"]


def test_defects4j_s_cost_over_all_candidates_weighs_each_sampled_one_by_its_cell(capsys):
    # 6 wrong (2 sampled: 4 and 6 CPU-s), 1 plausible (10), 1 timeout (300): each wrong one stands for 3
    verdicts = {f"w{i}": Verdict.WRONG for i in range(6)} | {"p": Verdict.PLAUSIBLE, "t": Verdict.TIMEOUT}
    records = {(BUG.id, h): record("fast", h, v).model_copy(update={"cpu_seconds": 0.5}) for h, v in verdicts.items()}
    costs = {(BUG.id, "w0"): 4.0, (BUG.id, "w1"): 6.0, (BUG.id, "p"): 10.0, (BUG.id, "t"): 300.0}
    estimate = bench_real.estimated(records, costs)
    assert estimate == bench_real.Estimate(mean=(3 * 4 + 3 * 6 + 10 + 300) / 8, median=6.0, candidates=8, sampled=4)
    without_timeouts = {k: r for k, r in records.items() if r.verdict is not Verdict.TIMEOUT}
    assert bench_real.estimated(without_timeouts, costs).mean == (3 * 4 + 3 * 6 + 10) / 7
    assert bench_real.estimated(records, {k: c for k, c in costs.items() if k[1] != "p"}) is None
    two = {k: r for k, r in records.items() if k[1] in ("w0", "p")}
    assert bench_real.estimated(two, costs).median == statistics.median([4.0, 10.0])
    bench_real.print_estimates(records, costs)
    out = capsys.readouterr().out
    assert "all (8 candidates, 4 judged by both" in out and "defects4j mean 42.50 median 6.00" in out
    assert "fast mean 0.500 median 0.500: 85.000x on the mean, 12.000x on the median" in out
    assert "all but timeouts (7 candidates" in out and "defects4j mean 5.71" in out


def test_the_steps_cpu_per_candidate_with_the_plausible_apart_and_the_bugs_shared_steps(tmp_path, capsys):
    profile = tmp_path / "phases.json"
    profile.write_text(
        json.dumps(
            [
                {"bug": BUG.id, "hash": "", "phases": {"warm start": 0.5, "tests": 2.0}},
                {"bug": BUG.id, "hash": "a", "phases": {"compile": 0.2, "tests": 0.1}},
                {"bug": BUG.id, "hash": "b", "phases": {"compile": 0.4, "tests": 0.3, "confirm": 0.5, "probe": 3.0}},
                {"bug": BUG.id, "hash": "b", "phases": {"probe": 1.0}},  # a resumed run's rows add up
            ]
        )
    )
    records = {
        (BUG.id, "a"): record("fast", "a", Verdict.WRONG).model_copy(update={"cpu_seconds": 0.3}),
        (BUG.id, "b"): record("fast", "b", Verdict.PLAUSIBLE).model_copy(
            update={"cpu_seconds": 1.2, "behaviour": BehaviourRecord(label=Behaviour.SAME, cpu_seconds=4.0)}
        ),
    }
    bench_real.print_phases(profile, records)
    out = capsys.readouterr().out
    assert "(2 profiled, 1 plausible)" in out
    assert "  compile         0.300  0.300" in out and "  probe           2.000  2.000" in out
    assert "  verdict+probe   2.750  2.750" in out
    assert "warm start 0.5" in out and "the baselines' other steps 2.0" in out
    assert f"dearest probe: {BUG.id} b 4.00 CPU-s" in out


def test_replayed_answers_before_and_after_side_by_side_with_every_changed_label(tmp_path, capsys):
    judges = bench_real.replay_sides(tmp_path / "replay-x", tmp_path / "old")
    assert [s.label for s in judges] == ["fast", "fast@old"]
    assert all(s.profile is not None and s.profile.parent == judges[0].run_dir.parent for s in judges)

    def plausible(cpu: float, probe: float, label: Behaviour) -> ValidationRecord:
        return record("fast", "p", Verdict.PLAUSIBLE).model_copy(
            update={"cpu_seconds": cpu, "behaviour": BehaviourRecord(label=label, cpu_seconds=probe, note="budget")}
        )

    records = {
        "fast": {
            (BUG.id, "w"): record("fast", "w", Verdict.WRONG),
            (BUG.id, "p"): plausible(1.0, 0.5, Behaviour.NOT_PROBED),
        },
        "fast@old": {
            (BUG.id, "w"): record("fast", "w", Verdict.WRONG),
            (BUG.id, "p"): plausible(1.0, 8.0, Behaviour.SAME),
        },
    }
    bench_real.print_before_after(judges, records)
    out = capsys.readouterr().out
    assert "verdicts alike: 2 of 2" in out
    # the plausible one's probe: 0.5 against 8.0 CPU-s
    assert "  plausible probe          0.500  0.500  0.500   0.500 |  8.000  8.000  8.000   8.000  0.062x" in out
    assert "same-behaviour -> not-probed: 1" in out
    assert f"{BUG.id}" in out and "behaviour same-behaviour -> not-probed (budget)" in out


def test_the_step_profile_wraps_the_fast_engine_s_steps_as_they_are_named_now(tmp_path, monkeypatch):
    # the profile wraps the engine's methods by name: a renamed step must fail here, not silently in a benchmark
    import phase_profile

    from defects4j_adapter.engines.fast import FastEngine
    from nl2fix.validation.bug_work import BugRun

    for owner, names in (
        (FastEngine, ("compile_source", "_in_jvm", "_new", "probe", "recording")),
        (BugRun, ("candidate", "baselines")),
    ):
        for name in names:
            monkeypatch.setattr(owner, name, getattr(owner, name))  # put back after the test
    before = FastEngine._in_jvm
    phase_profile.install(str(tmp_path / "phases.json"))
    assert FastEngine._in_jvm is not before and FastEngine._in_jvm.__wrapped__ is before
