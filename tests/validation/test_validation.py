"""Verdict rules (pure), and the validation stage end to end on real runs: baselines, every
unique candidate once, resume after a kill, `nl2fix validate` and `nl2fix dataset check`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from defects4j_adapter.contract import DEFAULT_CANDIDATE_TIMEOUT, Outcome, Phase, verdict_of
from nl2fix.cli.check_cmd import check
from nl2fix.cli.main import cli
from nl2fix.core.domain import Engine, Verdict
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.core.processes import run_command
from nl2fix.dataset.load import load_dataset
from nl2fix.java_source.text import candidate_hash
from nl2fix.report import metrics
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import STORY_FILE
from nl2fix.validation.stage import check_baselines, validate
from nl2fix.validation.verdicts import failing_on_fix, passing_on_fix, record_of
from tests.helpers.minibench import MINIBENCH_JSON, hostile, make_run, validation_options

EXAMPLE_JSON = EXAMPLE_BENCHMARK / "nl2fix_dataset.json"
NL2FIX = [sys.executable, "-c", "from nl2fix.cli.main import main; main()"]

# -- verdict rules ---------------------------------------------------------------------


def done(**kw) -> Outcome:
    return Outcome(**{"phase": Phase.DONE, "compiled": True, "tests_run": 3, **kw})


@pytest.mark.parametrize(
    "outcome,known,expected",
    [
        (done(), frozenset(), Verdict.PLAUSIBLE),
        (done(failing_tests=("A::t",)), frozenset(), Verdict.WRONG),
        (done(failing_tests=("A::t",)), frozenset({"A::t"}), Verdict.PLAUSIBLE),
        (done(failing_tests=("A",)), frozenset({"A::t"}), Verdict.WRONG),
        (done(tests_run=0), frozenset(), Verdict.ERROR),
        (done(phase=Phase.TRIGGER), frozenset(), Verdict.ERROR),
        (done(harness_error="no JVM", failing_tests=("A::t",)), frozenset(), Verdict.ERROR),
        (Outcome(phase=Phase.COMPILE, compiled=False, compile_errors="x"), frozenset(), Verdict.UNCOMPILABLE),
        (Outcome(phase=Phase.COMPILE, compiled=False, timed_out=True), frozenset(), Verdict.TIMEOUT),
        (done(phase=Phase.TRIGGER, timed_out=True, timed_out_tests=("A::t",)), frozenset(), Verdict.TIMEOUT),
        (done(timed_out=True, timed_out_tests=("A::t",)), frozenset({"A::t"}), Verdict.PLAUSIBLE),
        (done(phase=Phase.RELEVANT, timed_out=True), frozenset(), Verdict.TIMEOUT),
        (done(failing_tests=("A::u",), timed_out=True, timed_out_tests=("A::t",)), frozenset(), Verdict.WRONG),
    ],
)
def test_verdict_rules(outcome, known, expected):
    assert verdict_of(outcome, known)[0] is expected


@pytest.mark.parametrize("failing", [["A::t"], ["A"]])
def test_a_trigger_test_that_fails_on_the_fixed_version_too_is_never_excused(failing):
    # ``A`` is a class-level failure of the trigger test's class
    fixed = record_of(done(failing_tests=(*failing, "B::u")), bug_id="B-1", hash="fixed", engine="fast")
    known = failing_on_fix(fixed, ("A::t",))
    assert known == {"B::u"}  # only the regression test is excused
    record = record_of(
        done(failing_tests=(*failing, "B::u")), bug_id="B-1", hash="h", engine="fast", fails_on_fix=known
    )
    assert record.verdict is Verdict.WRONG and record.failing_tests == failing and record.ignored_failures == ["B::u"]
    assert verdict_of(done(failing_tests=("B::u",)), known)[0] is Verdict.PLAUSIBLE


def test_a_pass_accounts_for_every_test_the_fixed_version_passed():
    fixed = record_of(
        done(passed_tests=("A::t", "A::u", "B::v")), bug_id="B-1", hash="fixed", engine="fast", keep_passed=True
    )
    required = passing_on_fix(fixed)
    assert fixed.passed_tests == ["A::t", "A::u", "B::v"] and required == {"A::t", "A::u", "B::v"}
    every = done(passed_tests=("A::t", "A::u", "B::v", "C::w"))
    assert verdict_of(every, passes_on_fix=required)[0] is Verdict.PLAUSIBLE
    # a report that names fewer tests (the relevant phase skipped, or tests skipped) is no pass
    record = record_of(done(passed_tests=("A::t",)), bug_id="B-1", hash="h", engine="fast", passes_on_fix=required)
    assert record.verdict is Verdict.WRONG and record.failing_tests == ["A::u", "B::v"]
    assert "2 test(s) the fixed version passed did not pass" in record.detail
    assert record.passed_tests == []  # kept for the fixed version only
    # an engine that does not name passing tests (Defects4J's) is judged as before
    assert verdict_of(done(), passes_on_fix=required)[0] is Verdict.PLAUSIBLE


def test_a_record_lists_held_and_ignored_failures_apart():
    outcome = done(failing_tests=("A::t", "A::u"), messages={"A::u": "AssertionError: boom"}, cpu_seconds=1.23456)
    record = record_of(outcome, bug_id="B-1", hash="h", engine="fast", fails_on_fix=frozenset({"A::t"}))
    assert record.verdict is Verdict.WRONG and record.failing_tests == ["A::u"] and record.ignored_failures == ["A::t"]
    assert "A::u: AssertionError: boom" in record.detail and record.cpu_seconds == 1.235
    assert failing_on_fix(record) == frozenset({"A::u"})
    assert failing_on_fix(record_of(done(), bug_id="B-1", hash="h", engine="fast")) == frozenset()


# -- the stage, end to end -----------------------------------------------------------------


@pytest.fixture
def run_dir(tmp_path, minibench):
    mini1, mini2 = minibench.bugs["Mini-1"], minibench.bugs["Mini-2"]
    make_run(
        tmp_path / "run",
        MINIBENCH_JSON,
        {
            "Mini-1": [
                mini1.fixed_method,
                mini1.fixed_method.replace("{", "{  ", 1),  # same normalised hash: one candidate
                mini1.buggy_method,
                mini1.fixed_method.replace("return hi;", "return hi"),
                hostile("loop_forever", mini1),
            ],
            "Mini-2": [mini2.fixed_method.replace("s.isEmpty()", "s.length() == 0"), mini2.buggy_method],
        },
    ).close()
    return tmp_path / "run"


def verdicts(run_dir, engine="fast") -> dict:
    with RunStore(run_dir) as store:
        return {(r.bug_id, r.hash): r for r in store.validations(engine=engine)}


@pytest.mark.sandbox
def test_validate_judges_every_unique_candidate_once(run_dir, minibench, nl2fix_cache, confined):
    summary = validate(run_dir, validation_options(), progress=False)
    mini1, mini2 = minibench.bugs["Mini-1"], minibench.bugs["Mini-2"]
    got = {k: r.verdict for k, r in verdicts(run_dir).items()}
    assert got == {
        ("Mini-1", "fixed"): Verdict.PLAUSIBLE,
        ("Mini-1", "buggy"): Verdict.WRONG,
        ("Mini-1", candidate_hash(mini1.fixed_method)): Verdict.PLAUSIBLE,
        ("Mini-1", candidate_hash(mini1.buggy_method)): Verdict.WRONG,
        ("Mini-1", candidate_hash(mini1.fixed_method.replace("return hi;", "return hi"))): Verdict.UNCOMPILABLE,
        ("Mini-1", candidate_hash(hostile("loop_forever", mini1))): Verdict.TIMEOUT,
        ("Mini-2", "fixed"): Verdict.WRONG,  # testAlwaysBroken fails on the fixed version too
        ("Mini-2", "buggy"): Verdict.WRONG,
        ("Mini-2", candidate_hash(mini2.fixed_method.replace("s.isEmpty()", "s.length() == 0"))): Verdict.PLAUSIBLE,
        ("Mini-2", candidate_hash(mini2.buggy_method)): Verdict.WRONG,
    }
    assert summary.validated == 6 and summary.skipped == 0
    assert summary.by_verdict == {Verdict.PLAUSIBLE: 2, Verdict.WRONG: 2, Verdict.UNCOMPILABLE: 1, Verdict.TIMEOUT: 1}
    assert summary.cpu_seconds > 0 and "validated 6 candidate(s)" in str(summary)
    problems = {c.bug.id: c.problems for c in summary.baselines}
    assert problems["Mini-1"] == [] and "regression test" in problems["Mini-2"][0]
    records = verdicts(run_dir)
    assert records[("Mini-2", candidate_hash(mini2.buggy_method))].ignored_failures == []
    assert all(r.wall_seconds > 0 for r in records.values())
    artifacts = run_dir / "artifacts" / "Mini-1" / candidate_hash(mini1.buggy_method)
    assert (artifacts / "runner.out").is_file() and (artifacts / "Calc.java").is_file()
    story = (artifacts / STORY_FILE).read_text().splitlines()
    assert story[0] == f"candidate {artifacts.name} of Mini-1, fast engine, stopping at the first failure"
    assert any(line.startswith("Calc.java: compiled in compiling JVM") for line in story)
    assert any(line.startswith("test JVM ") for line in story)
    assert story[-1].startswith("verdict: wrong (")
    fixed_story = (run_dir / "artifacts" / "Mini-2" / "fixed" / STORY_FILE).read_text().splitlines()
    assert fixed_story[0] == "the fixed version of Mini-2, fast engine, every test"
    assert fixed_story[-1].startswith("verdict: wrong")

    again = validate(run_dir, validation_options(candidate_timeout=DEFAULT_CANDIDATE_TIMEOUT), progress=False)
    assert again.validated == 0 and again.skipped == 6 and again.cpu_seconds == 0
    assert verdicts(run_dir) == records


@pytest.mark.sandbox
def test_error_verdicts_are_retried_and_engines_are_kept_apart(run_dir, minibench, nl2fix_cache, confined):
    mini2 = minibench.bugs["Mini-2"]
    validate(
        run_dir,
        validation_options(workers=1, candidate_timeout=DEFAULT_CANDIDATE_TIMEOUT),
        progress=False,
        bug_ids=["mini_2"],
    )
    assert {b for b, _ in verdicts(run_dir)} == {"Mini-2"}
    key = ("Mini-2", candidate_hash(mini2.buggy_method))
    with RunStore(run_dir) as store:
        store.save_validation(
            verdicts(run_dir)[key].model_copy(update={"verdict": Verdict.ERROR, "detail": "disk gone"})
        )
    summary = validate(
        run_dir,
        validation_options(workers=1, candidate_timeout=DEFAULT_CANDIDATE_TIMEOUT),
        progress=False,
        bug_ids=["Mini-2"],
    )
    assert summary.validated == 1 and summary.skipped == 1
    assert verdicts(run_dir)[key].verdict is Verdict.WRONG
    assert verdicts(run_dir, "rebuild") == {}


def _store_rows(run_dir) -> int:
    with RunStore(run_dir) as store:
        return len(store.validations())


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_killed_validation_resumes_without_repeating_finished_candidates(tmp_path, nl2fix_cache, confined):
    bug = next(iter(load_dataset(EXAMPLE_JSON).bugs.values()))
    slow = [hostile("loop_forever", bug, SEED=str(i)) for i in range(6)]
    quick = [bug.fixed_method.replace("{", "{ int u" + str(i) + " = 0;", 1) for i in range(3)]
    run = tmp_path / "run"
    make_run(run, EXAMPLE_JSON, {bug.id: quick + slow}).close()
    env = {**os.environ, "NL2FIX_CACHE_DIR": str(nl2fix_cache)}
    proc = subprocess.Popen(
        [*NL2FIX, "validate", "--run", str(run), "--workers", "1", "--test-timeout", "1", "--quiet"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while _store_rows(run) < 2 + len(quick) + 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = verdicts(run)
    assert len(before) >= 2 + len(quick) + 1, proc.stderr.read().decode()[-2000:]
    assert len(before) < 2 + len(quick) + len(slow), "the run finished before it could be killed"

    result = run_command(
        [*NL2FIX, "validate", "--run", str(run), "--workers", "2", "--test-timeout", "1", "--quiet"],
        timeout=300,
        env=env,
    )
    assert result.ok, result.stderr
    after = verdicts(run)
    assert len(after) == 2 + len(quick) + len(slow)
    for key, record in before.items():
        assert after[key] == record  # untouched: same times, same everything
    assert f"validated {len(after) - len(before)} candidate(s)" in result.stdout
    assert after[(bug.id, "fixed")].verdict is Verdict.PLAUSIBLE and after[(bug.id, "buggy")].verdict is Verdict.WRONG
    assert {r.verdict for k, r in after.items() if k[1] not in ("fixed", "buggy")} == {
        Verdict.PLAUSIBLE,
        Verdict.TIMEOUT,
    }


@pytest.mark.sandbox
def test_dataset_check_reports_ground_truths_that_do_not_validate(tmp_path, minibench, nl2fix_cache, confined):
    data = json.loads(MINIBENCH_JSON.read_text())
    key = next(k for k in data if k.startswith("Mini_1_"))
    data[key]["fixed_src"] = data[key]["fixed_src"].replace("return hi;", "return hi + 1;")
    broken = tmp_path / "nl2fix_dataset.json"
    broken.write_text(json.dumps(data))
    (tmp_path / "defects4j").symlink_to(MINIBENCH_JSON.parent / "defects4j")
    (tmp_path / "projects").symlink_to(MINIBENCH_JSON.parent / "projects")
    result = CliRunner().invoke(
        check, ["--dataset", str(broken), "--all", "--quiet", "--test-timeout", "2", "--store", str(tmp_path / "store")]
    )
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert any(l.startswith("FAIL Mini-1: the ground truth does not validate (wrong)") for l in lines), result.output
    assert any(l.startswith("WARN Mini-2: the fixed version fails 1 regression test") for l in lines), result.output
    assert "1 of 2 ground truths validate with the fast engine" in result.output

    checks = check_baselines(
        list(minibench.bugs.values()),
        validation_options(candidate_timeout=DEFAULT_CANDIDATE_TIMEOUT, engine=Engine.FAST),
        store_dir=tmp_path / "good",
        progress=False,
        projects_dir=MINIBENCH_JSON.parent / "projects",
    )
    assert all(c.ground_truth_ok for c in checks)


@pytest.mark.sandbox
def test_one_candidate_judged_again_tells_its_story(run_dir, minibench, nl2fix_cache, confined):
    mini1 = minibench.bugs["Mini-1"]
    validate(run_dir, validation_options(), progress=False, bug_ids=["Mini-1"])
    before = verdicts(run_dir)
    plausible = candidate_hash(mini1.fixed_method)
    (run_dir / "artifacts" / "Mini-1" / plausible / STORY_FILE).unlink()

    result = CliRunner().invoke(
        cli,
        [
            "validate",
            "--run",
            str(run_dir),
            "--bug",
            "Mini-1",
            "--candidate",
            plausible[:6],
            "-v",
            "--quiet",
            "--test-timeout",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "validated 1 candidate(s) with the fast engine, 3 already done" in result.output
    printed = result.output[result.output.index(f"== Mini-1 {plausible}: plausible ==") :].splitlines()
    assert printed[1] == f"candidate {plausible} of Mini-1, fast engine, stopping at the first failure"
    assert "verdict: plausible" in printed
    story = (run_dir / "artifacts" / "Mini-1" / plausible / STORY_FILE).read_text().splitlines()
    assert printed[1:] == [*story, ""]  # the story as written, then the blank line that ends it
    after = verdicts(run_dir)
    assert after[("Mini-1", plausible)].verdict is Verdict.PLAUSIBLE
    assert after[("Mini-1", plausible)].wall_seconds != before[("Mini-1", plausible)].wall_seconds  # judged again
    others = {k for k in before if k[1] != plausible}
    assert {k: after[k] for k in others} == {k: before[k] for k in others}

    ambiguous = CliRunner().invoke(
        cli, ["validate", "--run", str(run_dir), "--bug", "Mini-1", "--candidate", "", "--quiet"]
    )
    assert ambiguous.exit_code == 2 and "4 candidate(s) of Mini-1 have a hash starting with ''" in ambiguous.output


@pytest.mark.sandbox
def test_all_tests_completes_wrong_verdicts_that_stopped_early(run_dir, minibench, nl2fix_cache, confined):
    mini1 = minibench.bugs["Mini-1"]
    validate(run_dir, validation_options(), progress=False, bug_ids=["Mini-1"])
    key = ("Mini-1", candidate_hash(mini1.buggy_method))
    early = verdicts(run_dir)[key]
    assert early.verdict is Verdict.WRONG and not early.all_tests_ran
    assert (
        metrics.regression_status(early.verdict, early.failing_tests, mini1.trigger_tests, early.all_tests_ran)
        is metrics.RegressionStatus.NOT_REACHED
    )
    plausible = verdicts(run_dir)[("Mini-1", candidate_hash(mini1.fixed_method))]
    assert plausible.all_tests_ran

    summary = validate(run_dir, validation_options(all_tests=True), progress=False, bug_ids=["Mini-1"])
    assert summary.validated == 1  # only the wrong verdict that had stopped early is redone
    full = verdicts(run_dir)[key]
    assert full.verdict is Verdict.WRONG and full.all_tests_ran and full.tests_run > early.tests_run
    assert set(full.failing_tests) == set(mini1.trigger_tests)  # the buggy method breaks nothing else
    assert (
        metrics.regression_status(full.verdict, full.failing_tests, mini1.trigger_tests, full.all_tests_ran)
        is metrics.RegressionStatus.PASSED
    )
