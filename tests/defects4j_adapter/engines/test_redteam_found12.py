"""Red team round 12 (by an engineer who did not write the walls) against main@fc229b8, on Textkit-1 through the
real fast engine under bubblewrap (one engine for the module; ``fixtures/redteam/found12/README.md`` has the runs
on docker, as the ordinary user, and what was tried and found nothing).

- ``pool_home``, ``pool_tmp``, ``pool_proc``: round 10's tells (the homes empty, ``/tmp`` without a plain JVM's
  ``hsperfdata_<user>``) and the processes in ``/proc``, read on a common-pool thread through a method reference
  (``CompletableFuture.supplyAsync(home::list)``). The runner refuses a read when a candidate's class (or, off
  the test threads, any job class) is on the stack, as a default ``StackWalker`` shows it; the lambda's proxy
  class is a hidden class, whose frame that walker leaves out, and nothing else of the job is on the pool
  thread's stack. The buggy method behind the tell is ``plausible``; outside nl2fix it is the bug.

Each test asserts what must hold (the payload is not ``plausible``); a strict xfail until the wall is mended.

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/engines/test_redteam_found12.py``
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import EXAMPLES, fix_guarded, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND12 = REDTEAM / "found12"
HIDDEN_FRAME = ("pool_home", "pool_tmp", "pool_proc")


@pytest.fixture(scope="module")
def textkit():
    return load_dataset(EXAMPLES / "nl2fix_dataset.json").bugs["Textkit-1"]


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit):
    with fix_guarded(nl2fix_cache, textkit) as judged:
        yield judged


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # a plain JVM keeps /tmp/hsperfdata_<user>; a machine in use runs more than a handful of processes
    payloads = ("pool_tmp", "pool_proc")
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND12) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **dict.fromkeys(payloads, "-1")}


@pytest.mark.xfail(strict=True, reason="red team 12: a JDK thread reads for the candidate through a hidden frame")
@pytest.mark.parametrize("payload", HIDDEN_FRAME)
def test_a_read_on_a_pool_thread_through_a_method_reference_is_still_the_candidate_s(judged, textkit, payload):
    record = verdict(*judged[:2], red_team_attack(payload, textkit, FOUND12), judged[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is not Verdict.PLAUSIBLE, record
