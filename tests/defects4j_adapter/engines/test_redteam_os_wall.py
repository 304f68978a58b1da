"""The operating system's wall against the red-team corpus (``fixtures/redteam/os_wall/``): candidates
that open their own JVM's memory (read, and write through an unlisted JDK writer) or its standard
output through ``/proc`` paths put together at run time. Real javac, JVMs, bubblewrap and
containers, fast and rebuild engines. None may pass, and after each the buggy method is still
`wrong` and the fix `plausible` in the same warm JVM. Where the memory is open (``--sandbox none``
as root: no job uid of its own) the memory payloads do pass: the wall is what stops them; and a
confined JVM without the agent is refused by the harness.
"""

from __future__ import annotations

import os

import pytest

from defects4j_adapter.jvm import os_wall
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine, verdict

pytestmark = pytest.mark.slow
OS_WALL = REDTEAM / "os_wall"
BENCH = REDTEAM / "bench" / "projects"
ATTACKS = sorted(p.stem for p in OS_WALL.glob("*.body"))
MEMORY = ("memory_read", "memory_write")
ALLOWED = {Verdict.WRONG, Verdict.REJECTED}
"""The class-file check may come to refuse a JDK writer a payload uses (``rejected``); the OS wall's own
proof is ``memory_read``, which only reads files, and every ``wrong`` below."""


def test_the_corpus_is_there():
    assert {"memory_read", "memory_write", "stdout_descriptor"} <= set(ATTACKS)


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_no_candidate_reaches_its_own_jvm(kind, nl2fix_cache, box, beans):
    engine = attack_engine(kind, nl2fix_cache, box, BENCH)
    try:
        ws = engine.prepare(beans)
        fixed = verdict(engine, ws, ws.bug.fixed_method)
        assert fixed.verdict is Verdict.PLAUSIBLE, fixed
        required = passing_on_fix(fixed)
        for name in ATTACKS:
            record = verdict(engine, ws, red_team_attack(name, ws.bug, OS_WALL), required)
            print(kind, box.name, name, record.verdict.value, record.detail[:160])
            assert record.verdict in ALLOWED, (name, record)
            if name == "memory_read" or record.verdict is Verdict.WRONG:
                # it ran, found its memory closed and took the buggy path: the trigger test fails
                assert record.verdict is Verdict.WRONG and ws.trigger_tests[0] in record.failing_tests, (name, record)
            assert verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG, name
            assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
    finally:
        engine.close()


def test_where_the_memory_is_open_the_runner_still_refuses_the_candidate_its_proc_entries(nl2fix_cache, beans):
    # --sandbox none as root: the JVM runs as root, which opens even a non-dumpable process's memory
    # (said once); the payloads above passed there until the runner's security manager refused the
    # candidate every read under /proc (Guard#checkRead): a second wall, in every deployment
    if os.geteuid() != 0:
        pytest.skip("as an ordinary user the agent closes the memory even unconfined")
    engine = attack_engine("fast", nl2fix_cache, make_sandbox("none"), BENCH)
    try:
        ws = engine.prepare(beans)
        read = verdict(engine, ws, red_team_attack("memory_read", ws.bug, OS_WALL))
        assert read.verdict is not Verdict.PLAUSIBLE, read
        written = verdict(engine, ws, red_team_attack("memory_write", ws.bug, OS_WALL))
        assert written.verdict is not Verdict.PLAUSIBLE, written
    finally:
        engine.close()


@pytest.mark.sandbox
def test_a_confined_jvm_without_the_agent_is_refused(nl2fix_cache, confined, beans, monkeypatch):
    # the harness checks the runner's word rather than assume the wall: a test JVM without the agent
    # (here: its options dropped) never takes a candidate under bubblewrap
    monkeypatch.setattr(os_wall, "jvm_options", lambda *args, **kwargs: [])
    engine = attack_engine("fast", nl2fix_cache, make_sandbox("bwrap"), BENCH)
    try:
        ws = engine.prepare(beans)
        with pytest.raises(Nl2FixError, match="refusing a test JVM that can open its own memory"):
            engine.run(ws, ws.bug.fixed_method)
    finally:
        engine.close()
