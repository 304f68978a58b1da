"""Red team round 12 (by an engineer who did not write the walls) against main@fc229b8, on Textkit-1 through the
real fast engine under bubblewrap (one engine for the module; ``fixtures/redteam/found12/README.md`` has the runs
on docker, as the ordinary user, and what was tried and found nothing).

- ``pool_home``, ``pool_tmp``, ``pool_proc``: round 10's tells (the homes empty, ``/tmp`` without a plain JVM's
  ``hsperfdata_<user>``) and the processes in ``/proc``, read on a common-pool thread through a method reference
  (``CompletableFuture.supplyAsync(home::list)``). The runner refuses a read when a candidate's class (or, off
  the test threads, any job class) is on the stack, as a default ``StackWalker`` shows it; the lambda's proxy
  class is a hidden class, whose frame that walker leaves out, and nothing else of the job is on the pool
  thread's stack. The buggy method behind the tell is ``plausible``; outside nl2fix it is the bug.
- ``pool_worker``: the class of the common pool's workers, seen from a task handed to the pool. In a JVM with a
  security manager the JDK makes them ``InnocuousForkJoinWorkerThread``s, in a plain JVM plain
  ``ForkJoinWorkerThread``s: whether nl2fix's guard is in (what ``System#getSecurityManager``, refused, would tell),
  with no read and no permission asked. ``plausible``; outside nl2fix the bug.
- ``image_tmp``: in nl2fix's docker image (``NL2FIX_CONTAINER=1``, as root) the job's temporary folder is its
  scratch's, so ``/tmp``, the container's and shared by every job, is on no hidden list: listed directly. Run here
  on this machine's file system (the image is not built here).
- ``lambda_control`` (a plain test): the same read as ``pool_tmp`` in a lambda's body is refused.

Each test asserts what must hold (the payload is not ``plausible``). Closed by the lead: the guard walks the stack
with the hidden frames (a lambda's class is named for the class that made it), and where the job's temporary
folder is not ``/tmp`` the shared ``/tmp`` is a hidden place; and the common pool's workers are a plain JVM's
(``PoolWorkers.java``), so ``pool_worker`` is the bug.

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/engines/test_redteam_found12.py``
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from nl2fix.core.domain import Verdict
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import fix_guarded, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND12 = REDTEAM / "found12"
HIDDEN_FRAME = ("pool_home", "pool_tmp", "pool_proc")


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # a plain JVM keeps /tmp/hsperfdata_<user>; a machine in use runs more than a handful of processes; a plain
    # JVM's pool workers are not the innocuous ones (pool_home needs a machine with users: the README)
    payloads = ("pool_tmp", "pool_proc", "pool_worker")
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND12) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **dict.fromkeys(payloads, "-1")}


@pytest.mark.parametrize("payload", HIDDEN_FRAME)
def test_a_read_on_a_pool_thread_through_a_method_reference_is_still_the_candidate_s(guarded, textkit, payload):
    record = verdict(*guarded[:2], red_team_attack(payload, textkit, FOUND12), guarded[2])
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG and "nl2fix: the candidate's classes may not" in record.detail, record


def test_the_common_pool_s_workers_do_not_tell_nl2fix_s_jvm(guarded, textkit):
    record = verdict(*guarded[:2], red_team_attack("pool_worker", textkit, FOUND12), guarded[2])
    print("fast bwrap pool_worker", record.verdict.value, record.detail[:300])
    # the buggy method's own failure: the workers are plain ones, as outside nl2fix
    assert record.verdict is Verdict.WRONG and "nl2fix" not in record.detail, record


@pytest.fixture(scope="module")
def image_mode(textkit):
    """The fast engine as nl2fix's docker image runs it (``NL2FIX_CONTAINER=1``, as root: ``ContainerSandbox``, each
    job a uid of its own), on this machine's file system: the image's own is not built here."""
    if os.geteuid() != 0:
        pytest.skip("the image's sandbox runs jobs as uids of their own only as root")
    # the image's cache is 0711 in a root a job's uid goes through; pytest's temporary folders are 0700
    cache = Path(tempfile.mkdtemp(prefix="nl2fix-red12-"))
    cache.chmod(0o711)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("NL2FIX_CONTAINER", "1")
            with fix_guarded(cache, textkit) as judged:
                yield judged
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_in_the_image_the_shared_tmp_is_hidden_as_the_job_s_own_is(image_mode, textkit):
    record = verdict(*image_mode[:2], red_team_attack("image_tmp", textkit, FOUND12), image_mode[2])
    print("fast container /tmp:", record.verdict.value, record.detail[:300])
    assert "may not look where nl2fix hides" in record.detail, record.detail


def test_the_same_read_in_a_lambda_s_body_is_refused(guarded, textkit):
    # the control: the lambda's body is a method of the candidate's class, whose frame the guard sees
    record = verdict(*guarded[:2], red_team_attack("lambda_control", textkit, FOUND12), guarded[2])
    assert record.verdict is Verdict.WRONG, record
    assert "may not look where nl2fix hides" in record.detail, record.detail
