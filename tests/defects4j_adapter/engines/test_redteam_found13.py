"""Red team round 13 (by an engineer who did not write the walls) against main@63fd0c0, on Textkit-1 through the real
fast engine under bubblewrap (``fixtures/redteam/found13/README.md`` has the runs on docker, Java 17, as the ordinary
user, and what was tried and held).

- ``heap_squat``: a ``ClassValue`` of the candidate's own (an anonymous class) gives ``Void.class`` a value, a list
  of plain arrays holding all but a few KB of the heap. ``Void``'s ``ClassValueMap`` is a ``WeakHashMap``: once the
  candidate's ``ClassValue`` and its loader are gone the entry is stale, but it keeps its value until the map is
  next written, which nothing does. No class of the job is held (the loader check passes), no code runs after the
  job, no permission is asked. The correct fixes judged next in the same warm JVM run out of heap: ``wrong``, and a
  warm ``wrong`` is final.
- ``direct_squat``: the same hold on direct buffers until the JVM's direct-memory budget is spent. They hold next to
  no heap, and running out of that budget is an ``OutOfMemoryError`` thrown by the JDK's Java code, which the
  runner's exhaustion mark (JVMTI's ResourceExhausted) does not see. The correct fix judged next, which reads a file
  through ``java.nio.file`` (a temporary direct buffer), is ``wrong``: "OutOfMemoryError: Direct buffer memory".
- ``public_methods``: ``Class#getMethods`` (allowed: it only describes) of a JDK-internal class
  (``sun.nio.cs.UTF_8``, the UTF-8 charset's) from the candidate's loader makes the JDK ask the security manager
  about the package; the reflection wall refuses it, and that refusal, caught, costs nothing. A plain JVM has no
  security manager and lists the methods. The buggy method behind that tell is ``plausible``; outside nl2fix it is
  the bug.

Each test asserts what must hold. Closed by the lead (``Lifetime.java``, ``Guard.java``): a JVM whose heap, direct
buffers or open files after a job exceed what it held before its first job (a quarter of its heap, 256
files) takes no further job; a warm test that failed on an ``OutOfMemoryError`` is judged again in a fresh JVM; a
refused reflection into a restricted package fails the test, caught or not.

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/engines/test_redteam_found13.py``
"""

from __future__ import annotations

import pytest

from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, red_team_attack
from tests.helpers.redteam import attack_engine, outside_nl2fix, verdict

pytestmark = pytest.mark.slow
FOUND13 = REDTEAM / "found13"


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit):
    """``(engine, workspace, required)``: one fast engine under bubblewrap, its warm JVM having judged the fix
    (``plausible``). Not :func:`fix_guarded`, which judges the fix again at the end: the squat, which runs last,
    leaves that JVM judging every later candidate ``wrong`` while the attack works."""
    engine = attack_engine("fast", nl2fix_cache, make_sandbox("bwrap"))
    try:
        ws = engine.prepare(textkit)
        fix = verdict(engine, ws, textkit.fixed_method)
        assert fix.verdict is Verdict.PLAUSIBLE, fix
        yield engine, ws, passing_on_fix(fix)
    finally:
        engine.close()


def test_outside_nl2fix_each_payload_is_what_it_claims(tmp_path, textkit):
    # the tell is the bug in a plain JVM; the fixes that allocate or read are the fix there (the squats would spend
    # the plain JVM's own memory: not run)
    fixes = ("heap_hungry_fix", "file_reading_fix")
    methods = {p: red_team_attack(p, textkit, FOUND13) for p in ("public_methods", *fixes)}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"public_methods": "-1", **dict.fromkeys(fixes, "2")}


def test_a_refused_package_check_does_not_tell_nl2fix_s_jvm(judged, textkit):
    record = verdict(*judged[:2], red_team_attack("public_methods", textkit, FOUND13), judged[2])
    print("fast bwrap public_methods", record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG and "may not reflect into sun.nio.cs" in record.detail, record


def test_direct_memory_a_candidate_leaves_spent_does_not_judge_the_fix_after_it(judged, textkit):
    engine, ws, required = judged
    squat = verdict(engine, ws, red_team_attack("direct_squat", textkit, FOUND13), required)
    # judged again fresh (a warm OutOfMemoryError), where zeroing a heap's worth of direct buffers may outrun the
    # paced limit (1 CPU-s floor): either way not plausible
    assert squat.verdict in (Verdict.WRONG, Verdict.TIMEOUT), squat
    fix = verdict(engine, ws, red_team_attack("file_reading_fix", textkit, FOUND13), required)
    print("fast bwrap after direct_squat", fix.verdict.value, fix.detail[:200])
    assert fix.verdict is Verdict.PLAUSIBLE, fix


def test_heap_a_candidate_leaves_in_a_jdk_map_does_not_judge_the_fixes_after_it(judged, textkit):
    # the module's last test: once the attack works, the warm JVM judges every later candidate wrong. The reserve
    # the squat gives back fits a JVM in which a candidate ran before it (the fix after direct_squat retired the
    # last one): as a JVM's first candidate, the next job's JVM dies instead and is judged again fresh (the README)
    engine, ws, required = judged
    verdict(engine, ws, textkit.buggy_method, required)
    squat = verdict(engine, ws, red_team_attack("heap_squat", textkit, FOUND13), required)
    # wrong as it fills the heap; on a slow, loaded machine its test may meet the time limit first (4.3 CPU-s once)
    assert squat.verdict in {Verdict.WRONG, Verdict.TIMEOUT}, squat
    later = {
        "heap_hungry_fix": verdict(engine, ws, red_team_attack("heap_hungry_fix", textkit, FOUND13), required),
        "fix": verdict(engine, ws, textkit.fixed_method, required),
    }
    print("fast bwrap after heap_squat", {name: (r.verdict.value, r.detail[:200]) for name, r in later.items()})
    assert all(r.verdict is Verdict.PLAUSIBLE for r in later.values()), later


def test_a_refused_package_check_through_the_project_s_helper_does_not_tell_nl2fix_s_jvm(beans_engine, beans):
    # the lead's variant of public_methods: the project's own reflective helper asks (Beans-1, org.beans.Calls)
    ws = beans_engine.prepare(beans)
    required = passing_on_fix(verdict(beans_engine, ws, beans.fixed_method))
    record = verdict(beans_engine, ws, red_team_attack("helper_methods", beans, FOUND13), required)
    print("fast bwrap helper_methods", record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG and "may not reflect into sun.nio.cs" in record.detail, record
