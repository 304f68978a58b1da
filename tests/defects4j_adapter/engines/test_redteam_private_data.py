"""The lead's round 10 attack (``fixtures/redteam/private_data/``, README there): since round 9 bubblewrap's root
is the machine's own, read-only, and what it shows empty is what nl2fix must not show a candidate (the homes,
the job's own ``/tmp``). A payload that tells nl2fix's JVM by that emptiness is still ``plausible``: both are
strict xfails, asserting what must hold, with what closing them would take in the README.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import EXAMPLES, fix_guarded, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
PRIVATE = REDTEAM / "private_data"
TELLS = ("tmp_listing", "user_home")
OPEN = pytest.mark.xfail(strict=True, reason="round 10: told by what nl2fix must not show (README)")


@pytest.fixture(scope="module")
def textkit():
    return load_dataset(EXAMPLES / "nl2fix_dataset.json").bugs["Textkit-1"]


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # a plain JVM keeps /tmp/hsperfdata_<user> while it runs; the homes are the machine's
    homes = bool(os.listdir("/home")) or Path("/root/.bashrc").exists()
    payloads = ["tmp_listing", *(["user_home"] if homes else [])]
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, PRIVATE) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **dict.fromkeys(payloads, "-1")}


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit):
    with fix_guarded(nl2fix_cache, textkit) as judged:
        yield judged


@pytest.mark.parametrize("payload", [pytest.param(p, marks=OPEN) for p in TELLS])
def test_a_method_right_only_where_nl2fix_hides_the_machine_s_private_data_is_not_plausible(judged, textkit, payload):
    record = verdict(*judged[:2], red_team_attack(payload, textkit, PRIVATE), judged[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is not Verdict.PLAUSIBLE, record
