"""How the sweep sorts a bug (scripts/sweep_benchmark.py): the fast engine's baselines against Defects4J's
whole contract, the defects4j engine's only where they break it, and the rows it keeps as data."""

from __future__ import annotations

import csv
import sys

from nl2fix.core.domain import Verdict
from nl2fix.store.run_store import RunStore
from tests.helpers.paths import REPO
from tests.scripts.test_bench_real import BUG, CONTRACT, TRIGGER, checks, record

sys.path.insert(0, str(REPO / "scripts"))
import sweep_benchmark

DNS = (
    "environment fault, not the code's: 1 test(s) fail with no network: a host name could not be resolved "
    "(UnknownHostException) (e.g. p.JdkTest::inet)"
)


def test_keeping_the_contract_needs_no_defects4j():
    fast, _ = checks(CONTRACT, CONTRACT)
    assert sweep_benchmark.category(fast, None) == ("agree", "")


def test_a_ground_truth_failing_a_regression_test_breaks_the_contract_and_waits_for_defects4j():
    regression = ((Verdict.WRONG, ("p.OtherTest::t",)), CONTRACT[1])
    fast, _ = checks(regression, CONTRACT)
    assert sweep_benchmark.category(fast, None)[0] == "not run"
    # Defects4J passes the ground truth: a disagreement naming the test
    fast, d4j = checks(regression, CONTRACT)
    kind, why = sweep_benchmark.category(fast, d4j)
    assert kind == "disagree" and "p.OtherTest::t" in why


def test_a_named_environment_fault_under_both_engines_is_the_environment():
    dns = ((Verdict.WRONG, ("p.JdkTest::inet",), DNS), (Verdict.WRONG, (TRIGGER, "p.JdkTest::inet"), DNS))
    kind, why = sweep_benchmark.category(*checks(dns, dns))
    assert kind == "environment" and "UnknownHostException" in why and "under both engines" in why
    # the same failures without the environment's word are Defects4J's own contract, broken
    bare = ((Verdict.WRONG, ("p.JdkTest::inet",)), (Verdict.WRONG, (TRIGGER, "p.JdkTest::inet")))
    kind, why = sweep_benchmark.category(*checks(bare, bare))
    assert kind == "dataset" and "p.JdkTest::inet" in why


def test_a_ground_truth_that_needs_more_than_the_method_is_the_dataset_s():
    alone = ((Verdict.UNCOMPILABLE, ()), CONTRACT[1])
    kind, why = sweep_benchmark.category(*checks(alone, alone))
    assert kind == "dataset" and "uncompilable" in why
    row = sweep_benchmark.Row(
        checks(alone, alone)[0],
        kind,
        "uncompilable: /tmp/c/d4j/Cli-9.slots/0/src/A.java:4: error: cannot find symbol",
        defects4j_judged=True,
    ).cells()
    assert row["why"] == "uncompilable: src/A.java:4: error: cannot find symbol"


def test_rows_merge_with_earlier_pieces_in_bug_order(tmp_path):
    path = tmp_path / "baselines.csv"
    fast, _ = checks(CONTRACT, CONTRACT)
    row = sweep_benchmark.Row(fast, "agree", "", defects4j_judged=False).cells()
    assert row["bug"] == BUG.id and row["buggy_fails_exactly_the_triggers"] == "yes"
    later = {**row, "bug": "Cli-10"}
    other = {**row, "bug": "Cli-2", "category": "dataset"}
    sweep_benchmark.write(path, sweep_benchmark.BASELINE_COLUMNS, [later, other])
    rows = sweep_benchmark.merged(path, [row, {**other, "category": "agree"}], ("bug",))
    assert [(r["bug"], r["category"]) for r in rows] == [("Cli-2", "agree"), ("Cli-9", "agree"), ("Cli-10", "agree")]
    sweep_benchmark.write(path, sweep_benchmark.BASELINE_COLUMNS, rows)
    assert [r["bug"] for r in csv.DictReader(path.open())] == ["Cli-2", "Cli-9", "Cli-10"]


def test_without_running_defects4j_its_kept_baselines_are_read_back(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.add_bugs([BUG])
        store.save_validation(record("defects4j", "fixed", Verdict.PLAUSIBLE))
    assert sweep_benchmark.stored_baselines([BUG], tmp_path, sweep_benchmark.Engine.DEFECTS4J) == []  # half judged
    with RunStore(tmp_path) as store:
        store.save_validation(record("defects4j", "buggy", Verdict.WRONG, (TRIGGER,)))
    [check] = sweep_benchmark.stored_baselines([BUG], tmp_path, sweep_benchmark.Engine.DEFECTS4J)
    assert check.fixed.verdict is Verdict.PLAUSIBLE and check.buggy.failing_tests == [TRIGGER]
    assert sweep_benchmark.stored_baselines([BUG], tmp_path / "none", sweep_benchmark.Engine.DEFECTS4J) == []
