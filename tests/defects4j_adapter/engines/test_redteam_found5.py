"""Red team round 5 (issue 30's "done when", by an engineer who did not write the walls): candidates that behave
one way where nl2fix watches them and another way everywhere else, on the example benchmark's Textkit-1
(``Strings.indexOfDifference``), through the real fast and rebuild engines. Payloads and what each does:
``fixtures/redteam/found5/probe_aware/``, ``found5/right_under_nl2fix/`` and ``found5/write_door/`` (each
folder's README). The tests marked ``xfail(strict=True)`` assert what must hold and fail today: flip them when
the wall is built (the environment and logging walls are: issue 30). The others show that the attack is real
(the method is the bug outside nl2fix; the probe does catch the same overfitting method when it cannot tell it
is probed). Run: ``python -m pytest -q -p no:cacheprovider -s
tests/defects4j_adapter/engines/test_redteam_found5.py``
"""

from __future__ import annotations

import dataclasses
import os
import pwd
import shutil
import subprocess

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines.defects4j import Defects4JEngine
from defects4j_adapter.engines.own_judgement import in_slot, runner_outcome
from defects4j_adapter.jvm import runner
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.validation.behaviour import label
from nl2fix.validation.verdicts import passing_on_fix, record_of
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND5 = REDTEAM / "found5"
PROBE_AWARE = FOUND5 / "probe_aware"
UNDER_NL2FIX = FOUND5 / "right_under_nl2fix"


def test_outside_nl2fix_the_jvm_properties_payload_is_the_bug(tmp_path, textkit):
    # the fix answers 2; the buggy method -1: the payload is the buggy method wherever nl2fix did not start the JVM
    payload = red_team_attack("jvm_properties", textkit, UNDER_NL2FIX)
    assert outside_nl2fix(tmp_path, textkit, {"fix": textkit.fixed_method, "payload": payload}) == {
        "fix": "2",
        "payload": "-1",
    }


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
@pytest.mark.parametrize("payload", ["jvm_properties", "proc_cmdline"])
def test_a_method_right_only_under_nl2fix_is_not_plausible(kind, payload, nl2fix_cache, box, textkit):
    engine = attack_engine(kind, nl2fix_cache, box)
    try:
        ws = engine.prepare(textkit)
        required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
        record = verdict(engine, ws, red_team_attack(payload, ws.bug, UNDER_NL2FIX), required)
        print(kind, box.name, payload, record.verdict.value, record.detail[:300])
        assert record.verdict is not Verdict.PLAUSIBLE, record
    finally:
        engine.close()


def _what_a_job_sees(tmp_path, engine, ws, box, cache) -> tuple[str, str]:
    """What ``what_it_sees`` reports from inside the runner's JVM (properties naming nl2fix; the command
    line if it does), read by the project's own test (``StringsTest#testIndexOfDifference``, compiled outside
    nl2fix): code no class-file check saw and no wall counts as the candidate's, so nothing refuses it the
    reads (the runner's own hiding is what is tested)."""
    slot = tmp_path / "slot"
    shutil.copytree(ws.root, slot, symlinks=True)
    moved = in_slot(ws, slot)
    # the compiled tests may sit outside the workspace's root (the cache's): this job's own copy
    tests = slot / "own-test-classes"
    shutil.copytree(moved.test_classes_dir, tests)
    moved = dataclasses.replace(
        moved,
        test_classes_dir=tests,
        classpath=tuple(tests if p == moved.test_classes_dir else p for p in moved.classpath),
    )
    test = next(moved.test_dir.rglob("StringsTest.java"))
    source = test.read_text(encoding="utf-8")
    header = "public void testIndexOfDifference() {"
    start = source.index(header) + len(header)
    payload = (UNDER_NL2FIX / "what_it_sees.body").read_text(encoding="utf-8")
    test.write_text(source[:start] + "\n" + payload + source[source.index("    }", start) :], encoding="utf-8")
    classpath = [moved.test_classes_dir, moved.classes_dir, *moved.classpath, *runner.junit_jars()]
    subprocess.run(
        ["javac", "-nowarn", "--release", "8", "-encoding", "ISO-8859-1", "-d", str(moved.test_classes_dir)]
        + ["-cp", ":".join(map(str, classpath)), str(test)],
        check=True,
    )
    judged = runner_outcome(
        moved,
        sandbox=box,
        cache_dir=cache,
        known=frozenset(),
        test_timeout=20.0,
        seconds=120.0,
        memory_mb=engine.options.settings.memory_mb,
    )
    told = next(m for m in judged.messages.values() if "properties:" in m)
    properties, _, command_line = told[told.index("properties:") + len("properties:") :].partition("; command line:")
    return properties.strip(), command_line.strip()


def test_nothing_a_job_reads_of_its_jvm_names_nl2fix(tmp_path, nl2fix_cache, box, textkit):
    # the runner removes its own properties and the launch's once it has read them (Main.hideLaunch)
    engine = attack_engine("fast", nl2fix_cache, box)
    try:
        properties, command_line = _what_a_job_sees(tmp_path, engine, engine.prepare(textkit), box, nl2fix_cache)
        print(box.name, "properties:", properties, "command line:", command_line)
        # run as an ordinary user (the unprivileged account scripts/setup.sh names nl2fix-user) the job has the
        # account's own name and home, as any of that user's JVMs: not nl2fix's
        account = pwd.getpwuid(os.geteuid())
        own = {f"user.name={account.pw_name}", f"user.home={account.pw_dir}"}
        assert [p for p in properties.split() if p not in own] == []
    finally:
        engine.close()


def test_the_jvm_s_command_line_names_nothing_of_nl2fix(tmp_path, nl2fix_cache, box, textkit):
    # /proc/self/cmdline, which the project's code reads unchecked: `java @<tmp>/java.<pid>.args`, the file
    # written inside the sandbox and deleted by the runner before any job (runner.py's jvm_command)
    engine = attack_engine("fast", nl2fix_cache, box)
    try:
        _, command_line = _what_a_job_sees(tmp_path, engine, engine.prepare(textkit), box, nl2fix_cache)
        assert command_line == "clean", command_line
    finally:
        engine.close()


def _labels(engine, ws, names):
    fix = ws.bug.fixed_method
    required = passing_on_fix(verdict(engine, ws, fix))
    baseline = engine.probe(ws, fix, fix)
    out = {}
    for name in names:
        code = red_team_attack(name, ws.bug, PROBE_AWARE)
        assert verdict(engine, ws, code, required).verdict is Verdict.PLAUSIBLE, name
        out[name] = label(baseline, engine.probe(ws, fix, code), developer_fix=True)
        record = out[name]
        print(engine.options.sandbox.name, name, record.label.value, record.first_input, record.candidate_result)
    return out


def test_the_probe_catches_the_overfitting_method_it_cannot_see_through(nl2fix_cache, jvm_box, textkit):
    # the control: plausible (the tests use strings of equal length), and the probe's derived inputs find
    # where it differs from the fix ("abc " against "abx"): the probe works when it is not recognised
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        record = _labels(engine, engine.prepare(textkit), ["control"])["control"]
        assert record.label is Behaviour.DIVERGES, record
    finally:
        engine.close()


# round 5's two, and issue 34's first: the candidate's own method on a thread it starts (which once reached
# the probe's wrapper and so the developer's fix)
def test_a_method_that_asks_for_its_enclosing_method_is_rejected(nl2fix_cache, jvm_box, textkit):
    # the first way round 5 told the probe apart is now refused outright (the JVM's environment family)
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        ws = engine.prepare(textkit)
        record = verdict(engine, ws, red_team_attack("enclosing_method", ws.bug, PROBE_AWARE))
        assert record.verdict is Verdict.REJECTED and "getEnclosingMethod" in record.detail, record
    finally:
        engine.close()


@pytest.mark.parametrize("name", ["class_number", "own_thread"])
def test_an_overfitting_method_that_knows_it_is_probed_still_diverges(name, nl2fix_cache, jvm_box, textkit):
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        record = _labels(engine, engine.prepare(textkit), [name])[name]
        assert record.label is Behaviour.DIVERGES, record
    finally:
        engine.close()


def test_an_overfitting_method_that_keeps_a_history_in_the_string_pool_still_diverges(nl2fix_cache, jvm_box, textkit):
    # issue 34's second attack. The string pool is JDK-wide and nothing can reset it, so the candidate's notes
    # survive from input to input; what defeats them is the order: each call runs among its derived inputs in
    # an order drawn per job, and a derived input the candidate meets before its call is one it has no note of.
    # Not a wall: a candidate whose notes came first by chance in every call would pass (see the guide)
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        record = _labels(engine, engine.prepare(textkit), ["derived_history"])["derived_history"]
        assert record.label is Behaviour.DIVERGES, record
    finally:
        engine.close()


def test_no_file_is_written_through_the_logging_configuration(nl2fix_cache, jvm_box, textkit):
    # door-proving (as os_wall's payloads): it runs the fix only when its word came back from the file it
    # wrote, so anything but a pass means the write was stopped (rejected) or did not land (wrong)
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        ws = engine.prepare(textkit)
        required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
        record = verdict(engine, ws, red_team_attack("log_configuration", ws.bug, FOUND5 / "write_door"), required)
        print(jvm_box.name, "log_configuration:", record.verdict.value, record.detail[:300])
        assert record.verdict in {Verdict.REJECTED, Verdict.WRONG}, record
        # by the rule for classes named in data, not only by the payload's other reads (java.io.tmpdir)
        assert "java.util.logging.LogManager#readConfiguration" in record.detail, record
    finally:
        engine.close()


@pytest.mark.defects4j
@pytest.mark.sandbox
@pytest.mark.skipif(d4j_cli.locate() is None, reason="Defects4J is not installed")
def test_a_method_right_only_under_a_test_harness_is_not_plausible_under_defects4j(confined, tmp_path):
    from tests.defects4j_adapter.engines.test_redteam_defects4j import CSV4

    engine = Defects4JEngine(
        EngineOptions(sandbox=make_sandbox("bwrap"), cache_dir=tmp_path, settings=EngineSettings(workers=1))
    )
    ws = engine.prepare(CSV4)
    # Csv-4's buggy method is wrong under this engine (test_redteam_defects4j.py); with the payload:
    record = record_of(
        engine.run(ws, red_team_attack("under_any_test", CSV4, UNDER_NL2FIX)),
        bug_id=CSV4.id,
        hash="h",
        engine=engine.name.value,
    )
    print("defects4j bwrap under_any_test:", record.verdict.value, record.detail[:300])
    assert record.verdict is not Verdict.PLAUSIBLE, record


def test_the_logging_configuration_a_job_read_does_not_reach_the_next_job(nl2fix_cache, jvm_box, textkit):
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        ws = engine.prepare(textkit)
        door, left = (
            red_team_attack(name, ws.bug, FOUND5 / "write_door") for name in ("log_configuration", "handlers_left")
        )
        before = engine.run(ws, left, stop_at_first_failure=True).messages
        engine.run(ws, door, stop_at_first_failure=True)
        after = engine.run(ws, left, stop_at_first_failure=True).messages
        print(jvm_box.name, "before:", before, "after:", after)
        assert "ConsoleHandler" in str(before)
        assert "FileHandler" not in str(after), after
    finally:
        engine.close()


def _root_logger(messages) -> str:
    found = [m[m.index("root level:") :] for m in messages.values() if "root level:" in m]
    assert found, messages
    return found[0]


def test_the_root_loggers_handlers_and_level_a_job_set_are_not_seen_by_the_next_job(nl2fix_cache, jvm_box, textkit):
    # what the class-file check allows (a ConsoleHandler, a level): JdkState puts the loggers back after
    # every job, or the JVM is retired; either way the next job starts from the same root logger
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        ws = engine.prepare(textkit)
        added, left = (
            red_team_attack(name, ws.bug, FOUND5 / "write_door") for name in ("handlers_added", "handlers_left")
        )
        before = _root_logger(engine.run(ws, left, stop_at_first_failure=True).messages)
        assert verdict(engine, ws, added).verdict is Verdict.WRONG  # it ran: the buggy method
        after = _root_logger(engine.run(ws, left, stop_at_first_failure=True).messages)
        print(jvm_box.name, "before:", before, "after:", after)
        assert before == "root level: INFO; root handlers: java.util.logging.ConsoleHandler"
        assert after == before
    finally:
        engine.close()
