"""Round 2 red team (``fixtures/redteam/found2/``): attacks on the walls merged after round 1, run
through the real fast engine under bubblewrap on ``Beans-1``. Each test asserts what should hold (so a
failing test is an attack that worked); ``fixtures/redteam/found2/README.md`` says which wall failed."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from nl2fix.validation.verdicts import judge, required_of
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
FOUND = REDTEAM / "found2"


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


@pytest.mark.parametrize("name", ["defined_helper", "defined_by_loader"])
def test_defined_helper_buys_no_pass(engine, beans, name):
    attack, fix = _attack_then_fix(engine, beans, name)
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def _key(engine, beans, monkeypatch, name):
    from defects4j_adapter.jvm import report_signing
    keys = []
    original = report_signing.new_key

    def recorded():
        keys.append(original())
        return keys[-1]

    monkeypatch.setattr(report_signing, "new_key", recorded)
    ws = engine.prepare(beans)
    outcome = engine.run(ws, red_team_attack(name, ws.bug, FOUND), stop_at_first_failure=True)
    loot = " ".join(outcome.messages.values())
    print(loot[:3000])
    stolen = [k for k in keys if f"{k.k0:x}" in loot.split() and f"{k.k1:x}" in loot.split()]
    print("keys drawn:", len(keys), "stolen:", [k.hex for k in stolen])
    assert not stolen


def test_defined_poison_does_not_change_the_fix_s_verdict(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "defined_poison")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def test_impl_lookup_buys_no_pass(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "impl_lookup")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("name", ["defined_key", "impl_key"])
def test_key_is_not_read(engine, beans, monkeypatch, name):
    _key(engine, beans, monkeypatch, name)


def test_impl_poison_does_not_change_the_fix_s_verdict(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "impl_poison")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("name", ["impl_lookup", "impl_lookup_target", "defined_helper"])
@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_no_pass_after_another_candidate_either(kind, name, nl2fix_cache, confined, beans):
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
        attack = _verdict(made, ws, red_team_attack(name, ws.bug, FOUND), required)
        print(kind, name, attack.verdict.value, attack.passed_tests, attack.detail[:300])
        assert attack.verdict is not Verdict.PLAUSIBLE, attack
    finally:
        if kind == "fast":
            made.close()


def test_impl_lookup_target_buys_no_pass(engine, beans):
    attack, fix = _attack_then_fix(engine, beans, "impl_lookup_target")
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix
