"""The lead's own attacks after red team round 16, on the paced time limit of a fresh JVM (``engines/pace.py``: 2
CPU-s plus ``--timeout-pace`` times the developer's fix's slowest test), on the example benchmark's Textkit-1 through
the real fast engine under bubblewrap. Two correct answers Defects4J passes, each on the edge of what a paced limit
could cut: one that loads big parts of the JDK on its first call in a JVM (class loading and interpretation, which
the fix's own times never include), and one that waits 2.5 s of wall-clock time (more than the paced CPU limit,
no CPU). Both must stay ``plausible``. ``tests/fixtures/redteam/found16/README.md`` has the round.
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Verdict
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import verdict

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", ["heavy_first_call", "sleepy_fix"])
def test_a_correct_answer_slow_for_the_jdk_s_sake_is_plausible_under_the_paced_limit(guarded, textkit, name):
    engine, ws, required = guarded
    record = verdict(engine, ws, red_team_attack(name, textkit, REDTEAM / "found16"), required)
    print("fast bwrap", name, record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.PLAUSIBLE, record
