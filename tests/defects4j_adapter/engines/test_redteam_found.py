"""Attacks found by red-team rounds 1-4 (``fixtures/redteam/found*/``, each folder's README says which
wall failed and why), run through the real fast engine (and the rebuild engine where said) under
bubblewrap on ``Beans-1``, a class that already reflects by name. Each worked when it was found: the
buggy method ``plausible``, the fix judged next ``wrong``, or the job's key read, through
``sun.misc.Unsafe``, the JDK's trusted lookup or classes made at run time, reached through the class's
own reflection. The runner's ``ReflectionWall`` stops them now; each test asserts what must hold."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.jvm import report_signing
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack
from tests.helpers.redteam import judged

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

NO_PASS = [
    ("found", "dropped_failures"),
    ("found2", "defined_helper"),
    ("found2", "defined_by_loader"),
    ("found2", "impl_lookup"),
    ("found2", "impl_lookup_target"),
    ("found3", "new_loader"),
    ("found4", "spoofed_source"),
]
"""Attacks that bought the buggy method a ``plausible``."""
FIX_KEPT = [
    ("found", "hidden_field"),
    ("found2", "defined_poison"),
    ("found2", "impl_poison"),
    ("found3", "new_loader_poison"),
    ("found4", "spoofed_source_poison"),
    ("found3", "new_loader_control"),
    ("found4", "spoofed_source_control"),
]
"""Attacks that made the fix judged next ``wrong`` (and the controls: the same bodies doing nothing)."""
KEYS = [
    ("found", "stack_key"),
    ("found2", "defined_key"),
    ("found2", "impl_key"),
    ("found3", "new_loader_key"),
    ("found4", "spoofed_source_key"),
]
"""Attacks that read the job's key off the runner thread's stack and printed it."""
AFTER_ANOTHER = [
    ("found", "dropped_failures", "fast"),
    ("found", "dropped_failures", "rebuild"),
    ("found2", "impl_lookup", "fast"),
    ("found2", "impl_lookup", "rebuild"),
    ("found2", "impl_lookup_target", "fast"),
    ("found2", "defined_helper", "fast"),
    ("found3", "new_loader", "fast"),
    ("found4", "spoofed_source", "fast"),
]
"""Attacks judged after a wrong candidate (a pass is then confirmed in a fresh JVM) or by the rebuild engine."""


def _ids(case) -> str:
    return "/".join(case)


def _made(kind, cache):
    return (FastEngine if kind == "fast" else RebuildEngine)(
        engine_options(cache, sandbox=make_sandbox("bwrap"), projects_dir=REDTEAM / "bench" / "projects")
    )


@pytest.fixture
def engine(nl2fix_cache, confined):
    made = _made("fast", nl2fix_cache)
    yield made
    made.close()


def _verdict(engine, ws, code, required=frozenset()):
    outcome, record = judged(engine, ws, code, required)
    print("messages:", str(outcome.messages)[:1500])
    return record


def _attack_then_fix(engine, beans, folder, name):
    ws = engine.prepare(beans)
    required = passing_on_fix(_verdict(engine, ws, ws.bug.fixed_method))
    attack = _verdict(engine, ws, red_team_attack(name, ws.bug, REDTEAM / folder), required)
    fix = _verdict(engine, ws, ws.bug.fixed_method, required)
    print(name, "attack:", attack.verdict.value, attack.detail[:600], attack.failure_message[:600])
    print(name, "fix after it:", fix.verdict.value, fix.failing_tests, fix.detail[:300])
    return attack, fix


@pytest.mark.parametrize("case", NO_PASS, ids=_ids)
def test_no_pass_and_the_fix_after_it_keeps_its_verdict(engine, beans, case):
    attack, fix = _attack_then_fix(engine, beans, *case)
    assert attack.verdict is not Verdict.PLAUSIBLE, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("case", FIX_KEPT, ids=_ids)
def test_the_fix_judged_next_keeps_its_verdict(engine, beans, case):
    attack, fix = _attack_then_fix(engine, beans, *case)
    assert attack.verdict is Verdict.WRONG, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix


@pytest.mark.parametrize("case", KEYS, ids=_ids)
def test_the_job_s_key_is_not_read(engine, beans, monkeypatch, case):
    keys = []
    original = report_signing.new_key

    def recorded():
        keys.append(original())
        return keys[-1]

    monkeypatch.setattr(report_signing, "new_key", recorded)
    ws = engine.prepare(beans)
    folder, name = case
    outcome = engine.run(ws, red_team_attack(name, ws.bug, REDTEAM / folder), stop_at_first_failure=True)
    loot = " ".join(outcome.messages.values()).split()
    stolen = [k.hex for k in keys if f"{k.k0:x}" in loot and f"{k.k1:x}" in loot]
    print("keys drawn:", len(keys), "stolen:", stolen)
    assert keys and not stolen


@pytest.mark.parametrize("case", AFTER_ANOTHER, ids=_ids)
def test_no_pass_after_another_candidate_or_in_the_rebuild_engine(nl2fix_cache, confined, beans, case):
    folder, name, kind = case
    made = _made(kind, nl2fix_cache)
    try:
        ws = made.prepare(beans)
        required = passing_on_fix(_verdict(made, ws, ws.bug.fixed_method))
        inverted = ws.bug.fixed_method.replace("c != null", "c == null")
        assert _verdict(made, ws, inverted, required).verdict is Verdict.WRONG
        attack = _verdict(made, ws, red_team_attack(name, ws.bug, REDTEAM / folder), required)
        assert attack.verdict is not Verdict.PLAUSIBLE, attack
    finally:
        if kind == "fast":
            made.close()


@pytest.mark.parametrize("look", ["look_around", "look_tmp"])
def test_what_a_candidate_sees_is_printed(engine, beans, look):
    # reconnaissance, not an attack of its own: what the sandbox shows a candidate
    ws = engine.prepare(beans)
    outcome = engine.run(ws, red_team_attack(look, ws.bug, REDTEAM / "found"), stop_at_first_failure=True)
    print(outcome.messages, outcome.detail)
    assert outcome.failing_tests
