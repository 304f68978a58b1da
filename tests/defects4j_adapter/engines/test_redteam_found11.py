"""Red team round 11 (by an engineer who did not write the walls) against main@417e31a: one candidate poisons the
candidates judged after it in the same warm JVM, through JDK-wide state the runner neither puts back nor counts as
a change, on the red team's bench (``fixtures/redteam/bench``: ``Beans``, a class that already calls methods by name)
through the real fast engine under bubblewrap (one engine for the module; ``fixtures/redteam/found11/README.md`` has
the runs on docker and what was tried and found nothing).

- ``serial_filter`` (Beans-2, ``copy``): ``java.io.ObjectInputFilter.Config.setSerialFilter``, which no rule of the
  class-file check names and the guard does not count, sets the JVM-wide deserialization filter for good; every
  ``ObjectInputStream`` of a later job rejects every class. The attack is itself ``plausible`` (it sets the filter
  after its own stream is made, and copies by ``clone()`` once the filter is set), and the correct fix judged next
  in that JVM is ``wrong`` (``InvalidClassException: filter status: REJECTED``): a warm JVM's ``wrong`` is final.
- ``tmpdir_capture`` (Beans-1, ``property``): the JDK reads ``java.io.tmpdir`` once, at the JVM's first
  ``File.createTempFile``, and keeps it; a job that is the first to ask, with the property pointed at a folder of
  its working directory (set by name, put back by the runner after the job), leaves the JVM's temporary folder
  there, and the runner then empties the working directory: every later ``File.createTempFile`` in that JVM fails
  ("No such file or directory"). A JVM's first job is a candidate's whenever the JVM before was retired (here:
  ``pair/prepares``, which changes a logger's level).

Both closed: a candidate that sets a system property or the deserialization filter retires its JVM (the runner's
guard counts the change like a logger's level), so the correct fix judged next meets a fresh JVM: ``plausible``.

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/engines/test_redteam_found11.py``
"""

from __future__ import annotations

import pytest

from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine, verdict

pytestmark = pytest.mark.slow
FOUND11 = REDTEAM / "found11"
BENCH = REDTEAM / "bench"


@pytest.fixture(scope="module")
def beans():
    return load_dataset(BENCH / "nl2fix_dataset.json").bugs


@pytest.fixture(scope="module")
def fast(nl2fix_cache):
    engine = attack_engine("fast", nl2fix_cache, make_sandbox("bwrap"), BENCH / "projects")
    yield engine
    engine.close()


def test_a_deserialization_filter_set_by_one_candidate_does_not_judge_the_next(fast, beans):
    ws = fast.prepare(beans["Beans-2"])
    attack = verdict(fast, ws, red_team_attack("serial_filter", ws.bug, FOUND11))
    # the attack copies, so it passes: only what it leaves behind is the finding
    assert attack.verdict is Verdict.PLAUSIBLE, attack
    fix = verdict(fast, ws, red_team_attack("fix_restated", ws.bug, FOUND11))
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def test_the_temporary_folder_the_jdk_keeps_is_not_a_candidate_s_choice(fast, beans):
    ws = fast.prepare(beans["Beans-1"])
    # a candidate that retires its JVM (a logger's level), so the next candidate is the new JVM's first job
    retire = verdict(fast, ws, red_team_attack("prepares", ws.bug, REDTEAM / "pair"))
    attack = verdict(fast, ws, red_team_attack("tmpdir_capture", ws.bug, FOUND11))
    assert (retire.verdict, attack.verdict) == (Verdict.PLAUSIBLE, Verdict.PLAUSIBLE), (retire, attack)
    fix = verdict(fast, ws, red_team_attack("fix_restated", ws.bug, FOUND11))
    assert fix.verdict is Verdict.PLAUSIBLE, fix
