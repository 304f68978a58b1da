"""Trust III's in-process gaps (``fixtures/redteam/found5/``, the README there says which wall each
payload met): work handed to a JDK thread (``pool_work``), bytes of the candidate's own defined under
the name of a class-path class (``class_path_name``), a library's ``sun.misc.Unsafe`` read through the
project's own getters (``library_unsafe``). Run through the real fast engine under bubblewrap on
``Beans-1``, whose class reflects by name; each payload puts what it got into its failure message. Each
got ``sun.misc.Unsafe`` before these walls; each test asserts what must hold: nothing obtained (or the refusal
itself reported, which fails the test however the payload caught it), the attack ``wrong``, and the developer's
fix judged next in the same warm JVM ``plausible``."""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import judged

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

FOUND5 = REDTEAM / "found5"


@pytest.mark.parametrize("name", ["pool_work", "class_path_name", "library_unsafe"])
def test_nothing_obtained_and_the_fix_after_it_keeps_its_verdict(beans_engine, beans, name):
    engine = beans_engine
    ws = engine.prepare(beans)
    required = passing_on_fix(judged(engine, ws, ws.bug.fixed_method)[1])
    outcome, attack = judged(engine, ws, red_team_attack(name, ws.bug, FOUND5), required)
    loot = [m for m in outcome.messages.values() if "REDTEAM5" in m]
    # a refusal the candidate asked for, through the project's helper or bytes of its own, fails the test whether
    # or not it was caught (round 13): the refusal is then what the test reports
    loot += [m for m in outcome.messages.values() if "may not reflect into" in m]
    _, fix = judged(engine, ws, ws.bug.fixed_method, required)
    print(name, "loot:", [m[:400] for m in loot[:1]])
    print(
        name, "attack:", attack.verdict.value, "fix after it:", fix.verdict.value, fix.failing_tests, fix.detail[:300]
    )
    assert loot, outcome.messages  # the payload ran and reported
    assert not any("obtained" in m for m in loot), loot
    assert attack.verdict is Verdict.WRONG, attack
    assert fix.verdict is Verdict.PLAUSIBLE, fix
