"""Round 4 red team (``fixtures/redteam/found4/``): attacks on the walls merged after round 3 (ReflectionWall
judging classes by code source), run through the real fast engine under bubblewrap on ``Beans-1``. Each test
asserts what should hold (so a failing test is an attack that worked); ``fixtures/redteam/found4/README.md``
says which wall failed."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from nl2fix.validation.verdicts import judge, required_of
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
FOUND = REDTEAM / "found4"


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
    print("messages:", str(outcome.messages)[:1500])
    return judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, required=required, keep_passed=True)


def _attack_then_fix(engine, beans, name):
    ws = engine.prepare(beans)
    required = required_of(_verdict(engine, ws, ws.bug.fixed_method))
    attack = _verdict(engine, ws, red_team_attack(name, ws.bug, FOUND), required)
    fix = _verdict(engine, ws, ws.bug.fixed_method, required)
    print(name, "attack:", attack.verdict.value, attack.detail[:600], attack.failure_message[:600])
    print(name, "fix after it:", fix.verdict.value, fix.failing_tests, fix.detail[:300])
    return attack, fix


@pytest.mark.parametrize("name", ["spoofed_source"])
def test_spoofed_source_buys_no_pass(engine, beans, name):
    attack, fix = _attack_then_fix(engine, beans, name)
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("name", ["spoofed_source"])
def test_no_pass_after_another_candidate_either(name, nl2fix_cache, confined, beans):
    made = FastEngine(engine_options(nl2fix_cache, sandbox=make_sandbox("bwrap"),
                                     projects_dir=REDTEAM / "bench" / "projects"))
    try:
        ws = made.prepare(beans)
        required = required_of(_verdict(made, ws, ws.bug.fixed_method))
        inverted = ws.bug.fixed_method.replace("c != null", "c == null")
        assert _verdict(made, ws, inverted, required).verdict is Verdict.WRONG
        attack = _verdict(made, ws, red_team_attack(name, ws.bug, FOUND), required)
        print(name, attack.verdict.value, attack.passed_tests, attack.detail[:300])
        assert attack.verdict is not Verdict.PLAUSIBLE, attack
    finally:
        made.close()


def test_control_without_the_attack_is_wrong(engine, beans):
    # the same body with the helper's method misnamed (nothing swapped): the buggy method is wrong
    attack, fix = _attack_then_fix(engine, beans, "spoofed_source_control")
    assert attack.verdict is Verdict.WRONG, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def test_spoofed_source_key_is_not_read(engine, beans, monkeypatch):
    from defects4j_adapter.jvm import report_signing
    keys = []
    original = report_signing.new_key

    def recorded():
        keys.append(original())
        return keys[-1]

    monkeypatch.setattr(report_signing, "new_key", recorded)
    ws = engine.prepare(beans)
    outcome = engine.run(ws, red_team_attack("spoofed_source_key", ws.bug, FOUND), stop_at_first_failure=True)
    loot = " ".join(outcome.messages.values())
    print(loot[:3000])
    stolen = [k for k in keys if f"{k.k0:x}" in loot.split() and f"{k.k1:x}" in loot.split()]
    print("keys drawn:", len(keys), "stolen:", [k.hex for k in stolen])
    assert not stolen


def test_spoofed_source_poison_does_not_change_the_fix_s_verdict(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "spoofed_source_poison")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix
