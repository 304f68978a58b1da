"""The lead's round 9 attack (``fixtures/redteam/limits/``, README there): nl2fix's limits told by experiment.
nl2fix's test JVM has a heap of ``--memory`` and its sandbox a process limit, where Defects4J's JVM (and a
user's) has the machine's defaults; a candidate that allocates 1.28 GB, or starts 3,000 threads, and catches
the ``OutOfMemoryError`` knows which JVM runs it, and so does one that reads the heap's current size
(``Runtime#totalMemory``: the initial heap is capped by ``-Xmx``, and in a container is a share of its limit).
Each was ``plausible`` for the buggy method plus the payload on the fast engine under bubblewrap and in docker
(the first two with the default ``--memory`` of 1 GB, the third under docker with it).

Closed: the native agent marks every ``OutOfMemoryError`` the JVM throws (JVMTI's ResourceExhausted event)
and the runner fails the test during which one came, caught or not (``Exhaustion.java``): ``wrong``; the
class-file check refuses ``Runtime#totalMemory``/``freeMemory`` as it did ``maxMemory``: ``rejected``. Both
walls are the runner's and the check's, alike in every sandbox (``jvm_box``; the README has docker's run).
"""

from __future__ import annotations

import os

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
LIMITS = REDTEAM / "limits"
RAN_OUT = {"heap_exhausted": "ran out of heap", "threads_exhausted": "ran out of threads"}
"""Each payload judged at run time, and what its failing test says."""
REFUSED = {"initial_heap": "java.lang.Runtime#totalMemory"}
MACHINE_MB = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # the fix answers 2, the buggy method -1, in a plain JVM: its default heap (a quarter of the machine's
    # memory holds the 1.28 GB array on 8 GB or more; its initial heap, a 64th, is over 256 MB on 17 GB or
    # more), no process limit of nl2fix's
    payloads = ["threads_exhausted"]
    payloads += ["heap_exhausted"] if MACHINE_MB >= 8 * 1024 else []
    payloads += ["initial_heap"] if MACHINE_MB >= 17 * 1024 else []
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, LIMITS) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **{p: "-1" for p in payloads}}


@pytest.mark.sandbox
def test_a_method_right_only_within_nl2fix_s_limits_is_not_plausible(nl2fix_cache, jvm_box, textkit):
    # one warm JVM for the fix, the payloads and the fix again: a limit met leaves nothing that costs the fix
    engine = attack_engine("fast", nl2fix_cache, jvm_box)
    try:
        ws = engine.prepare(textkit)
        fix = verdict(engine, ws, textkit.fixed_method)
        assert fix.verdict is Verdict.PLAUSIBLE, fix
        required = passing_on_fix(fix)
        seen = {}
        for payload in [*RAN_OUT, *REFUSED]:
            record = verdict(engine, ws, red_team_attack(payload, textkit, LIMITS), required)
            print(jvm_box.name, payload, record.verdict.value, record.detail[:300])
            said = RAN_OUT.get(payload) or REFUSED[payload]
            seen[payload] = record.verdict, said in record.detail
        expected = {p: (Verdict.WRONG, True) for p in RAN_OUT} | {p: (Verdict.REJECTED, True) for p in REFUSED}
        assert seen == expected
        assert verdict(engine, ws, textkit.fixed_method, required).verdict is Verdict.PLAUSIBLE
    finally:
        engine.close()
