"""The lead's round 10 attack (``fixtures/redteam/private_data/``, README there): since round 9 bubblewrap's root
is the machine's own, read-only, and what it shows empty is what nl2fix must not show a candidate (the homes,
the job's own ``/tmp``). A payload that told nl2fix's JVM by that emptiness was ``plausible``; the runner now
refuses the candidate a look there (``HiddenPlaces.java``) and the refusal fails the test: ``wrong``, and the
fix judged after them in the same warm JVM ``plausible``. The control reads what every machine shows alike.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import outside_nl2fix, verdict

pytestmark = pytest.mark.slow
PRIVATE = REDTEAM / "private_data"
TELLS = ("tmp_listing", "user_home", "dev_shm")


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # a plain JVM keeps /tmp/hsperfdata_<user> while it runs; the homes are the machine's
    homes = bool(os.listdir("/home")) or Path("/root/.bashrc").exists()
    payloads = ["tmp_listing", *(["user_home"] if homes else [])]
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, PRIVATE) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **dict.fromkeys(payloads, "-1")}


def test_outside_nl2fix_shared_memory_of_another_process_makes_dev_shm_the_bug(tmp_path, textkit):
    # a machine in use has segments there (a browser's, a database's): one of this process's stands for them
    segment = Path("/dev/shm") / f"nl2fix-red-{os.getpid()}"
    segment.touch()
    try:
        methods = {"dev_shm": red_team_attack("dev_shm", textkit, PRIVATE)}
        assert outside_nl2fix(tmp_path, textkit, methods) == {"dev_shm": "-1"}
    finally:
        segment.unlink()


def test_outside_nl2fix_the_control_is_the_fix(tmp_path, textkit):
    # outside_nl2fix runs from tmp_path, which holds the copy's src folder as a project root does
    methods = {"plain_reads": red_team_attack("plain_reads", textkit, PRIVATE)}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"plain_reads": "2"}


@pytest.mark.parametrize("payload", TELLS)
def test_a_method_right_only_where_nl2fix_hides_the_machine_s_private_data_is_not_plausible(guarded, textkit, payload):
    record = verdict(*guarded[:2], red_team_attack(payload, textkit, PRIVATE), guarded[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG, record
    assert "may not look where nl2fix hides" in record.detail, record.detail


def test_what_every_machine_shows_alike_stays_readable(guarded, textkit):
    record = verdict(*guarded[:2], red_team_attack("plain_reads", textkit, PRIVATE), guarded[2])
    assert record.verdict is Verdict.PLAUSIBLE, record
