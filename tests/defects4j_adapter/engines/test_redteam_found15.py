"""Red team round 15 (by an engineer who did not write the walls) against main@c285861: the probe that stops at a
spoiling call (``BehaviourProbe.spoiledBy``) and the paced CPU limit of a used JVM (``fast._Pace``), on the example
benchmark's Textkit-1 through the real fast engine under bubblewrap (``fixtures/redteam/found15/README.md`` has the
runs, the labels and what held).

- ``loop_to_budget``: an overfitting method (``found5/probe_aware/control``) that, where it would answer differently
  from the developer's fix, loops instead. The per-test limit would make that row a ``timeout`` (``diverges``), but
  the job's probe budget (2 CPU-s) is met inside the loop, and the body the budget stops gives no row: ``not-probed``.
- ``spoil_then_loop``: the same, after a cookie handler set (found14's ``spoil_probe``): the end row names the spoiling
  input, but no row of it exists, so the label cannot show the change of state: ``not-probed`` where found14's
  ``spoil_probe`` (whose row exists) is ``diverges``.
- ``throwing_logger``: the overfitting method registering a ``Logger`` subclass whose ``getLevel`` throws on the thread
  that registered it; ``JdkState#restore`` in ``Session.candidate``'s finally block asks it on the test thread, so the
  call's row, and every later input of that test thread, is lost: ``not-probed``.
- ``slow_fix`` (change 2, held): the fix, slow (1.2 s) on one trigger call, in a used JVM whose paced limit stops it:
  the fresh JVM decides, ``plausible``.

Each test asserts what must hold (``diverges`` for an overfitting method), so it fails while the hole is open.

Run: ``python -m pytest -q -p no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found15.py``
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.validation.behaviour import label
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import verdict

pytestmark = pytest.mark.slow
FOUND15 = REDTEAM / "found15"
CONTROL = (REDTEAM / "found5" / "probe_aware" / "control.body").read_text(encoding="utf-8")
"""The overfitting method the probe labels ``diverges`` without tricks."""


@pytest.fixture(scope="module")
def fix_probe(guarded, textkit):
    """The developer's fix probed against itself (the yardstick), once for the module."""
    engine, ws, _ = guarded
    return engine.probe(ws, textkit.fixed_method, textkit.fixed_method)


def _label(guarded, textkit, fix_probe, name: str, corpus=FOUND15):
    engine, ws, required = guarded
    code = red_team_attack(name, textkit, corpus, BODY=CONTROL)
    judged = verdict(engine, ws, code, required)
    assert judged.verdict is Verdict.PLAUSIBLE, judged
    run = engine.probe(ws, textkit.fixed_method, code)
    record = label(fix_probe, run, developer_fix=True)
    print(
        "fast bwrap",
        name,
        record.label.value,
        repr(record.first_input),
        record.candidate_result,
        record.note,
        f"rows={len(run.observations)} spoiled={run.spoiled!r} budget_met={run.budget_met} error={run.error!r}",
        f"fix's rows={len(fix_probe.observations)}",
    )
    return run, record


def test_the_control_diverges(guarded, textkit, fix_probe):
    # the overfitting method without tricks, in the same module and JVM: the difference the payloads hide
    _, record = _label(guarded, textkit, fix_probe, "control", REDTEAM / "found5" / "probe_aware")
    assert record.label is Behaviour.DIVERGES, record


@pytest.mark.parametrize("name", ["loop_to_budget", "spoil_then_loop", "throwing_logger"])
def test_an_overfitting_method_cannot_hide_its_difference_from_the_probe(guarded, textkit, fix_probe, name):
    _, record = _label(guarded, textkit, fix_probe, name)
    assert record.label is Behaviour.DIVERGES, record


def test_a_slow_correct_fix_stopped_by_a_used_jvm_s_paced_limit_is_plausible(guarded, textkit):
    engine, ws, required = guarded
    # a used JVM: some candidate's code ran in it before (the overfitting control)
    verdict(engine, ws, red_team_attack("control", textkit, REDTEAM / "found5" / "probe_aware"), required)
    record = verdict(engine, ws, red_team_attack("slow_fix", textkit, FOUND15), required)
    print("fast bwrap slow_fix", record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.PLAUSIBLE, record


def test_an_overfitting_method_slow_on_every_call_gets_no_same_behaviour(guarded, textkit, fix_probe):
    # the lead's own attack after the round: slow enough on every call (0.25 s) to spend the probe's budget before
    # the input that differs, never slow enough for a timeout row. What it can buy is "not probed", with the
    # inputs compared so far, never "same-behaviour": a probe cut short says nothing of the inputs it did not reach
    run, record = _label(guarded, textkit, fix_probe, "slow_each_call")
    assert record.label is not Behaviour.SAME, record
    assert record.label is Behaviour.DIVERGES or run.budget_met, record
