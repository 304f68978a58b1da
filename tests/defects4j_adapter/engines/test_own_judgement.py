"""A pass is nl2fix's judgement (issue 31): JUnit's reporting hooked on every JUnit 4 in use, and
``--engine defects4j`` holding what Defects4J passed to nl2fix's runner (``own_judgement``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings, Outcome, Phase
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines import own_judgement
from defects4j_adapter.engines.defects4j import Defects4JEngine
from defects4j_adapter.engines.runner_output import NO_FAILURES, SKIPPED
from defects4j_adapter.jvm import junit_classpath, reference_java, runner
from nl2fix.core.domain import Verdict
from nl2fix.core.processes import run_command
from nl2fix.validation.verdicts import record_of
from tests.helpers.minibench import REDTEAM, red_team_attack

TRIGGER = "org.x.ParserTest::testNoHeader"
THREW = f"threw org.junit.runners.model.MultipleFailureException {NO_FAILURES}"


def test_what_junit_reported_as_no_failure_fails_a_candidate_defects4j_passed():
    passed = Outcome(phase=Phase.DONE, compiled=True, tests_run=3)
    judged = Outcome(
        phase=Phase.DONE,
        compiled=True,
        tests_run=3,
        failing_tests=(TRIGGER, "org.x.ParserTest::testLocale", "org.x.OtherTest::testMore"),
        messages={
            TRIGGER: THREW,
            "org.x.ParserTest::testLocale": "java.lang.AssertionError: locale",
            "org.x.OtherTest::testMore": f"{SKIPPED}: assumption failed",
        },
    )
    folded = own_judgement.fold(passed, judged)
    # the environment's differences (testLocale) stay Defects4J's to judge
    assert folded.failing_tests == (TRIGGER, "org.x.OtherTest::testMore")
    record = record_of(folded, bug_id="X-1", hash="h", engine="defects4j")
    assert record.verdict is Verdict.WRONG and THREW in record.detail
    assert "Defects4J counts 2 failing test(s) fewer" in record.detail


def test_a_trigger_test_failing_in_the_runner_fails_a_candidate_defects4j_passed():
    # Defects4J's failing_tests is written inside the candidate's own JVM (blanked by
    # fixtures/redteam/defects4j/blank_failing_tests); the runner's signed report is not
    passed = Outcome(phase=Phase.DONE, compiled=True, tests_run=3)
    failed = {TRIGGER: "java.lang.AssertionError: expected 3", "org.x.ParserTest::testLocale": "locale"}
    judged = Outcome(phase=Phase.DONE, compiled=True, tests_run=3, failing_tests=tuple(failed), messages=failed)
    folded = own_judgement.fold(passed, judged, (TRIGGER,))
    assert folded.failing_tests == (TRIGGER,)
    record = record_of(folded, bug_id="X-1", hash="h", engine="defects4j")
    assert record.verdict is Verdict.WRONG and "whose signed report the candidate cannot write" in record.detail
    passed = Outcome(phase=Phase.DONE, compiled=True, tests_run=3)
    assert own_judgement.fold(passed, judged).failing_tests == ()  # ... and only trigger tests


def test_a_runner_that_could_not_judge_is_no_pass():
    passed = Outcome(phase=Phase.DONE, compiled=True, tests_run=3)
    folded = own_judgement.fold(passed, Outcome(phase=Phase.COMPILE, compiled=False, harness_error="no JVM"))
    assert record_of(folded, bug_id="X-1", hash="h", engine="defects4j").verdict is Verdict.ERROR
    assert own_judgement.fold(passed, Outcome(phase=Phase.DONE, compiled=True, tests_run=3)).failing_tests == ()


needs_defects4j = pytest.mark.skipif(d4j_cli.locate() is None, reason="Defects4J is not installed")


def _junit4_jars(d4j: bool) -> list[Path]:
    """Debian's JUnit, or every JUnit of Defects4J's projects the runner takes (4.6 and newer: 4.7 to
    4.12), one of each content."""
    if not d4j:
        return [runner.JUNIT_JARS[0]]
    jars: dict[bytes, Path] = {}
    command = d4j_cli.locate()  # <defects4j>/framework/bin/defects4j
    assert command is not None
    for jar in sorted((command.resolve().parents[1] / "projects").rglob("junit*.jar")):
        if junit_classpath.project_junit([jar]):
            jars.setdefault(hashlib.sha256(jar.read_bytes()).digest(), jar)
    return list(jars.values())


@pytest.mark.parametrize("d4j", [False, pytest.param(True, marks=[pytest.mark.defects4j, needs_defects4j])])
def test_junit_s_reporting_is_hooked_on_every_junit_4_in_use(d4j, nl2fix_cache, tmp_path):
    # each JUnit's patched class loads and verifies and calls the runner's hook: a test that throws
    # is still reported as JUnit reports it (JUnitCore: one failure)
    runner_dir = runner.runner_classes(nl2fix_cache)
    java = reference_java.current().jdk
    test = tmp_path / "T.java"
    test.write_text("public class T { @org.junit.Test public void t() throws Exception { throw new Exception(); } }")
    jars = _junit4_jars(d4j)
    assert jars
    for jar in jars:
        hook = runner.junit_hook(runner_dir, [jar])
        assert hook is not None and (hook / runner.HOOKED_CLASS).is_file(), jar
        out = tmp_path / jar.stem
        built = run_command([str(java.javac), "-cp", str(jar), "-d", str(out), str(test)], timeout=120)
        assert built.ok, built.stderr
        cp = ":".join(map(str, [hook, jar, runner.JUNIT_JARS[1], out]))
        ran = run_command(
            [
                str(java.java),
                "-Xverify:all",
                "--module-path",
                str(runner_dir),
                "--add-modules",
                runner.MODULE,
                "-cp",
                cp,
                "org.junit.runner.JUnitCore",
                "T",
            ],
            timeout=120,
        )
        assert "Failures: 1" in ran.stdout and "Error" not in ran.stderr, (jar, ran.stdout, ran.stderr)


needs_defects4j = pytest.mark.skipif(d4j_cli.locate() is None, reason="Defects4J is not installed")


@pytest.mark.defects4j
@pytest.mark.dataset
@needs_defects4j
def test_csv_4_on_real_defects4j_is_not_plausible_where_defects4j_counts_no_failure(shared_data, tmp_path):
    # the buggy method throwing an empty multiple-failure exception where it is wrong: `defects4j test`
    # reports 0 failing tests; nl2fix's runner judges the trigger test no pass (or, where the class-file
    # check refuses deserialization in a class that does not deserialize, the candidate is rejected)
    from nl2fix.dataset.load import load_dataset

    bug = load_dataset(shared_data / "nl2fix_dataset.json").bugs["Csv-4"]
    engine = Defects4JEngine(EngineOptions(sandbox=None, cache_dir=tmp_path, settings=EngineSettings(workers=1)))
    ws = engine.prepare(bug)
    attack = red_team_attack("empty_failures_where_wrong", bug, REDTEAM / "judgement" / "csv4")
    outcome = engine.run(ws, attack)
    record = record_of(outcome, bug_id=bug.id, hash="h", engine="defects4j")
    assert record.verdict in (Verdict.WRONG, Verdict.REJECTED), record
    if record.verdict is Verdict.WRONG:
        assert record.failing_tests == list(bug.trigger_tests)
        assert THREW in record.detail and "Defects4J counts 1 failing test(s) fewer" in record.detail
    fixed = engine.run(ws, bug.fixed_method)
    assert record_of(fixed, bug_id=bug.id, hash="h", engine="defects4j").verdict is Verdict.PLAUSIBLE, fixed
