"""The Defects4J benchmark scripts: how bench_real.py sorts a bug's baselines under the two
engines, and every script's plain skip where Defects4J is not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nl2fix.core.domain import Bug, Verdict
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.bug_work import BaselineCheck
from tests.helpers.paths import REPO

SCRIPTS = REPO / "scripts"
sys.path.insert(0, str(SCRIPTS))
import bench_real  # noqa: E402

TRIGGER = "p.ATest::broken"
BUG = Bug(project="Cli", number=9, path="src/A.java", start_line=1, end_line=3, buggy_method="int f() {}",
          fixed_method="int f() { return 1; }", title="t", trigger_tests=(TRIGGER,))


def record(engine: str, hash: str, verdict: Verdict, failing=(), detail="") -> ValidationRecord:
    return ValidationRecord(bug_id=BUG.id, hash=hash, engine=engine, verdict=verdict, failing_tests=list(failing),
                            detail=detail)


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
    bugs = [Bug(project=p, number=n, path="a", start_line=1, end_line=1, buggy_method="", fixed_method="", title="")
            for p, n in (("Cli", 1), ("Cli", 2), ("Cli", 3), ("Math", 1), ("Csv", 1), ("Csv", 2))]
    assert [b.id for b in bench_real.spread(bugs, 5)] == ["Cli-1", "Math-1", "Csv-1", "Cli-2", "Csv-2"]


@pytest.mark.parametrize("script", ["bench_real.py", "bench_prepare.py", "sweep_splice.py"])
def test_without_defects4j_each_script_says_so_and_succeeds(script, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("D4J_HOME", "DEFECTS4J_HOME")}
    env["PATH"] = str(Path(sys.executable).parent)
    done = subprocess.run([sys.executable, str(SCRIPTS / script)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("skipped: Defects4J is not installed")
