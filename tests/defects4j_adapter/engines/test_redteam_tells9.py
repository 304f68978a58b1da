"""The threat model's last cheap tells (``fixtures/redteam/tells9/``), on the example benchmark's Textkit-1
(``Strings.indexOfDifference``): each payload is the developer's fix where it recognises nl2fix's test JVM
and the buggy method everywhere else, told by what no security-manager check sees -- the JVM's pid through
``File#getCanonicalPath`` of ``/proc/self``, the host paths behind the job's ``/workspace`` links through
``Path#toRealPath``, the heap's limit (``Runtime#maxMemory``, nl2fix's ``-Xmx``), and (the lead's own
round 8 attack) the host folder a project class came from, in its resource URL (``Class#getResource``).
Each was ``plausible`` on the fast engine under bubblewrap (the first three in docker too) before
(``fixtures/redteam/tells9/README.md``); the class-file check refuses these calls now (the JVM's
environment, unless the buggy version already makes them), a check on the compiled classes that every
engine and sandbox runs alike, so one engine shows it: the fast engine under bubblewrap."""

from __future__ import annotations

import os

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import record_of
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack
from tests.helpers.paths import REPO
from tests.helpers.redteam import outside_nl2fix

pytestmark = pytest.mark.slow
EXAMPLES = REPO / "examples" / "benchmark"
TELLS9 = REDTEAM / "tells9"
REFUSED = {
    "canonical_pid": "java.io.File#getCanonicalPath",
    "real_workspace": "java.nio.file.Path#toRealPath",
    "heap_limit": "java.lang.Runtime#maxMemory",
    "resource_url": "java.lang.Class#getResource",
}
"""Each payload and the reference the class-file check names in refusing it."""


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # the fix answers 2, the buggy method -1; in a plain JVM (its pid in the hundreds or more, no /workspace,
    # a quarter of the machine's memory for its heap: heap_limit only where that is over 1 GB)
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
    payloads = [p for p in REFUSED if p != "heap_limit" or memory_mb >= 6 * 1024]
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, TELLS9) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **{p: "-1" for p in payloads}}


@pytest.mark.sandbox
def test_a_method_right_only_where_it_sees_nl2fix_s_jvm_is_rejected(nl2fix_cache, confined, textkit):
    # refused on the compiled classes before any test runs (so no payload reaches the warm JVM, and no fix
    # needs judging after them); a broken set-up would not name the reference
    options = engine_options(
        nl2fix_cache, sandbox=make_sandbox("bwrap"), projects_dir=EXAMPLES / "projects", candidate_timeout=60.0
    )
    engine = FastEngine(options)
    try:
        ws = engine.prepare(textkit)
        seen = {}
        for payload, reference in REFUSED.items():
            outcome = engine.run(ws, red_team_attack(payload, textkit, TELLS9))
            record = record_of(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value)
            print("fast bwrap", payload, record.verdict.value, record.detail[:300])
            seen[payload] = record.verdict, reference in outcome.rejection
        assert seen == {payload: (Verdict.REJECTED, True) for payload in REFUSED}
    finally:
        engine.close()
