"""The red-team corpus (``fixtures/redteam/``): candidates that try to buy a ``plausible`` by
forging the runner's report, crashing or exiting after forging it, hiding failures as skips,
swapping a test class, or stealing the next job's key. Real javac, real JVMs, real bubblewrap,
both javac-based engines, under bubblewrap and in a container. None may pass, and the candidate
judged next gets its own verdict.
"""

from __future__ import annotations

import json

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling import replay_format as replay
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdicts import judge, required_of
from tests.helpers.minibench import ATTACKS, SANDBOXES, engine_options, red_team_attack

pytestmark = pytest.mark.slow
NOT_A_PASS = {Verdict.WRONG, Verdict.TIMEOUT, Verdict.UNCOMPILABLE}
EXPECTED = {
    # what each attack ends in (the README's table): a crash, halt or exit twice in a row is the
    # candidate's failure; everything else fails the test it runs in
    **{name: {Verdict.WRONG} for name in ATTACKS},
    # compiling the stand-in in a cold JVM (the rebuild engine's) can outlast the 2 s test limit
    "define_test_class": {Verdict.WRONG, Verdict.TIMEOUT},
}


@pytest.fixture(scope="module", params=SANDBOXES)
def box(request):
    if request.param == "bwrap":
        request.getfixturevalue("confined")
    return make_sandbox(request.param)


def _engine(kind: str, cache, box, **options):
    return (FastEngine if kind == "fast" else RebuildEngine)(engine_options(cache, sandbox=box, **options))


@pytest.fixture(scope="module")
def fast(nl2fix_cache, box):
    made = _engine("fast", nl2fix_cache, box)
    yield made
    made.close()


@pytest.fixture(scope="module")
def rebuild(nl2fix_cache, box):
    return _engine("rebuild", nl2fix_cache, box)


def _verdict(engine, ws, code, required=frozenset()):
    outcome = engine.run(ws, code, stop_at_first_failure=True)
    return judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, required=required, keep_passed=True)


def test_the_corpus_is_there():
    assert {"fd_out_forged_then_halt", "unsafe_crash", "steal_next_key", "define_test_class",
            "assumption_skip", "reflect_into_runner"} <= set(ATTACKS)


def test_no_attack_passes_and_the_next_candidate_is_judged_on_its_own(fast, minibench):
    # one warm JVM after another: whatever an attack leaves behind meets the next candidate
    ws = fast.prepare(minibench.bugs["Mini-1"])
    fixed = _verdict(fast, ws, ws.bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE and ws.trigger_tests[0] in fixed.passed_tests
    required = required_of(fixed)
    seen = {}
    for name in ATTACKS:
        record = _verdict(fast, ws, red_team_attack(name, ws.bug), required)
        seen[name] = record.verdict
        assert record.verdict in NOT_A_PASS, (name, record)
        assert record.verdict in EXPECTED[name], (name, record)
        # judged without the fixed version's list, so the report channel alone must hold
        after = _verdict(fast, ws, ws.bug.buggy_method)
        assert after.verdict is Verdict.WRONG and after.failing_tests == [ws.trigger_tests[0]], (name, after)
    assert _verdict(fast, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    print(seen)


@pytest.mark.parametrize("name", ["fd_out_forged_then_halt", "exit_zero_without_guard", "unsafe_crash",
                                  "fake_result_files", "reflect_into_runner"])
def test_the_rebuild_engine_holds_too(rebuild, minibench, name):
    # a JVM per candidate: nothing carries over, but its report is read the same way
    ws = rebuild.prepare(minibench.bugs["Mini-1"])
    record = _verdict(rebuild, ws, red_team_attack(name, ws.bug))
    assert record.verdict in EXPECTED[name], record


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_a_swapped_test_class_is_refused_by_the_loader(kind, nl2fix_cache, box, minibench):
    # without the runner defining the tests' classes first, the stand-in would take TextTest's
    # place and this candidate (the fix, plus the swap) would pass
    engine = _engine(kind, nl2fix_cache, box, test_timeout=30.0, candidate_timeout=60.0)
    ws = engine.prepare(minibench.bugs["Mini-1"])
    outcome = engine.run(ws, red_team_attack("define_test_class", ws.bug), stop_at_first_failure=True)
    engine.close()
    record = judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value)
    assert record.verdict is Verdict.WRONG
    assert "the stand-in could not be defined" in record.detail and "duplicate class definition" in record.detail


def test_skipping_is_not_passing(fast, minibench):
    ws = fast.prepare(minibench.bugs["Mini-1"])
    fixed = _verdict(fast, ws, ws.bug.fixed_method)
    outcome = fast.run(ws, red_team_attack("assumption_skip", ws.bug), stop_at_first_failure=True)
    assert not outcome.failing_tests and outcome.tests_run > 0  # every test that calls it was skipped
    record = judge(outcome, bug_id=ws.bug.id, hash="h", engine="fast", required=required_of(fixed))
    assert record.verdict is Verdict.WRONG and ws.trigger_tests[0] in record.failing_tests
    assert "did not pass (skipped or not run)" in record.detail


def test_the_issue_s_reproduction_through_the_command_line(invoke_cli, nl2fix_cache, box, tmp_path):
    # `--backend replay` on Textkit-1 with forging patches, then `nl2fix validate` with both engines
    bug = open_dataset("example").bugs["Textkit-1"]
    forgeries = [red_team_attack(name, bug) for name in ("fd_out_forged_then_halt", "exit_zero_without_guard")]
    patches = tmp_path / "patches.json"
    patches.write_text(json.dumps({"Textkit-1": replay.entry("forge", [*forgeries, bug.fixed_method])}))
    run = tmp_path / "run"
    sampled = invoke_cli("sample", "--dataset", "example", "--bug", "Textkit-1", "--backend", "replay",
                         "--replay-file", patches, "-n", "3", "--run", run)
    assert sampled.exit_code == 0, sampled.output
    for engine in ("fast", "rebuild"):
        validated = invoke_cli("validate", "--run", run, "--engine", engine, "--sandbox", box.name)
        assert validated.exit_code == 0, validated.output
        verdicts = {r.hash: r.verdict for r in RunStore(run).validations("Textkit-1", engine)}
        assert verdicts[candidate_hash(bug.fixed_method)] is Verdict.PLAUSIBLE
        assert [verdicts[candidate_hash(code)] for code in forgeries] == [Verdict.WRONG, Verdict.WRONG], engine
