"""Attacks found by the s38 red team (``fixtures/redteam/found/``), run through the real fast engine
under bubblewrap on ``Beans-1`` (whose class already uses deep reflection). Each test asserts what
should hold. Each worked when found (the buggy method `plausible`, the fix judged next `wrong`, the
job's key read, all through ``sun.misc.Unsafe`` reached by reflection by name); the runner's
``ReflectionWall`` stops them now. ``fixtures/redteam/found/README.md`` says which wall failed and why."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from nl2fix.validation.verdicts import judge, required_of
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
FOUND = REDTEAM / "found"


@pytest.fixture(scope="module")
def beans():
    return load_dataset(REDTEAM / "bench" / "nl2fix_dataset.json").bugs["Beans-1"]


@pytest.fixture
def engine(nl2fix_cache, confined):
    made = FastEngine(engine_options(nl2fix_cache, sandbox=make_sandbox("bwrap"),
                                     projects_dir=REDTEAM / "bench" / "projects"))
    yield made
    made.close()


def _verdict(engine, ws, code, required=frozenset()):
    outcome = engine.run(ws, code, stop_at_first_failure=True)
    return judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, required=required, keep_passed=True)


def _attack_then_fix(engine, beans, name):
    ws = engine.prepare(beans)
    required = required_of(_verdict(engine, ws, ws.bug.fixed_method))
    attack = _verdict(engine, ws, red_team_attack(name, ws.bug, FOUND), required)
    fix = _verdict(engine, ws, ws.bug.fixed_method, required)
    print(name, "attack:", attack.verdict.value, attack.detail[:300])
    print(name, "fix after it:", fix.verdict.value, fix.failing_tests, fix.detail[:300])
    return attack, fix


def test_hidden_field_does_not_change_the_fix_s_verdict(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "hidden_field")
    assert attack.verdict is Verdict.WRONG
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def test_dropped_failures_buys_no_pass(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "dropped_failures")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("LOOK", ["look_around", "look_tmp"])
def test_look_around_prints_what_a_candidate_sees(engine, beans, LOOK):
    # reconnaissance, not an attack of its own: what the sandbox shows a candidate (printed)
    ws = engine.prepare(beans)
    outcome = engine.run(ws, red_team_attack(LOOK, ws.bug, FOUND), stop_at_first_failure=True)
    print(outcome.messages, outcome.detail)
    assert outcome.failing_tests


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_dropped_failures_is_no_pass_after_another_candidate_either(kind, nl2fix_cache, confined, beans):
    # a wrong candidate first, so that the fast engine's JVM is no longer fresh and a pass must be
    # confirmed by a fresh JVM running every test
    from defects4j_adapter.engines.rebuild import RebuildEngine
    made = (FastEngine if kind == "fast" else RebuildEngine)(engine_options(
        nl2fix_cache, sandbox=make_sandbox("bwrap"), projects_dir=REDTEAM / "bench" / "projects"))
    try:
        ws = made.prepare(beans)
        required = required_of(_verdict(made, ws, ws.bug.fixed_method))
        inverted = ws.bug.fixed_method.replace("c != null", "c == null")
        assert _verdict(made, ws, inverted, required).verdict is Verdict.WRONG
        attack = _verdict(made, ws, red_team_attack("dropped_failures", ws.bug, FOUND), required)
        print(kind, attack.verdict.value, attack.passed_tests, attack.detail[:300])
        assert attack.verdict is not Verdict.PLAUSIBLE, attack
    finally:
        if kind == "fast":
            made.close()


def test_stack_key_does_not_read_the_job_s_key(engine, beans, monkeypatch):
    from defects4j_adapter.jvm import report_signing
    keys = []
    original = report_signing.new_key

    def recorded():
        keys.append(original())
        return keys[-1]

    monkeypatch.setattr(report_signing, "new_key", recorded)
    ws = engine.prepare(beans)
    outcome = engine.run(ws, red_team_attack("stack_key", ws.bug, FOUND), stop_at_first_failure=True)
    loot = " ".join(outcome.messages.values())
    print(loot[:3000])
    stolen = [k for k in keys if f"{k.k0:x}" in loot.split() and f"{k.k1:x}" in loot.split()]
    print("keys drawn:", len(keys), "stolen:", [k.hex for k in stolen])
    assert not stolen
