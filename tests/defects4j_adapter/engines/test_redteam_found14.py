"""Red team round 14 (by an engineer who did not write the walls) against main@989e511: the three changes of the day,
on the red-team benchmark's Beans-1 (a class that already reflects, with the project's own reflective helpers) through
the real fast engine under bubblewrap (``fixtures/redteam/found14/README.md`` has the runs and what held).

- ``order_dependent`` (change 1, ``_Failures``): a JVM that judged other candidates runs, after the triggers, the tests
  that failed earlier candidates, each *alone*, and a failure there is final. A test that passes in a run of its class
  but not alone (it reads what an earlier test of its class left: Defects4J keeps lists of such dependent tests) then
  fails every later correct fix in that JVM, once any wrong candidate of the bug failed it. Shown on Beans-1 with one
  such test class more (``found14/BeansOrderTest.java``): the developer's fix restated as a candidate is
  ``plausible``, then an honestly wrong candidate (``fresh_boxes``) fails the dependent test, then the same fix is
  ``wrong``.
- ``tmpdir_path``: the JDK keeps the temporary folder as a ``File`` (``java.io.File$TempDirectory.tmpdir``); a
  candidate of a class that reflects rewrites its ``path`` through the project's helpers (``java.io`` is open to
  class-path code on the test Java, as in Defects4J's JVM; the reflection wall restricts only ``sun.``, ``jdk.``,
  ``com.sun.``, ``java.lang.invoke``, ``java.beans``, ``javax.script`` and the runner). Nothing checks it after the job:
  the fix judged next in the same warm JVM is ``wrong`` (its trigger's temporary file: "No such file or directory").
- ``junit_validator``: JUnit is loaded once a JVM (the runner's class path, shared by every job's loader), and
  ``BlockJUnit4ClassRunner.PUBLIC_CLASS_VALIDATOR`` is a static field that is not final. Set to null through the same
  helpers, every later JUnit 4 class fails to initialize: the fix judged next is ``wrong`` (a NullPointerException).
- ``caller_cache`` (change 2, held): a JDK class made to keep a job's class as its last ``newInstance`` caller; the
  runner clears it and the JVM goes on: the fix judged next is ``plausible``.

Each test asserts what must hold. Closed by the lead: a test joins what a used JVM runs only once the developer's
fix, in a JVM no candidate touched, passes it run that way (``FastEngine._learn``); and a job in which the candidate,
or a project's reflective helper it drives, asks for the declared members of a class of another loader (the JDK's,
JUnit's) retires its JVM (``Guard.java``: ``accessDeclaredMembers`` while the candidate asks). The round's open lead
(the label, when the candidate changes JVM-wide state during its own probe job) is ``spoil_probe``: the probe stops at
that call, which diverges where the fix's own probe changed no such state (``BehaviourProbe.spoiledBy``).

Run: ``python -m pytest -q -p no:cacheprovider tests/defects4j_adapter/engines/test_redteam_found14.py``
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.dataset.load import load_dataset
from nl2fix.validation.behaviour import label
from nl2fix.validation.verdicts import passing_on_fix
from tests.helpers.minibench import REDTEAM, engine_options, red_team_attack
from tests.helpers.redteam import verdict

pytestmark = pytest.mark.slow
FOUND14 = REDTEAM / "found14"


def _after(engine, bug, attack: str) -> dict[str, tuple[str, str]]:
    """The fix judged first (``plausible``), then ``attack``, then the fix restated as a candidate, in one engine."""
    ws = engine.prepare(bug)
    fix = verdict(engine, ws, bug.fixed_method)
    assert fix.verdict is Verdict.PLAUSIBLE, fix
    required = passing_on_fix(fix)
    judged = {}
    for name in (attack, "fix_restated"):
        record = verdict(engine, ws, red_team_attack(name, bug, FOUND14), required)
        judged[name] = (record.verdict.value, record.detail[:300])
    print("fast bwrap", judged)
    return judged


@pytest.fixture
def ordered_bench(tmp_path) -> Path:
    """The red-team benchmark with one more relevant class of Beans-1, ``BeansOrderTest``, whose second test passes
    only after its first."""
    bench = tmp_path / "bench"
    shutil.copytree(REDTEAM / "bench", bench)
    shutil.copy(FOUND14 / "BeansOrderTest.java", bench / "projects/Beans/fixed/src/test/java/org/beans/")
    with (bench / "defects4j/Beans/relevant_tests/1").open("a", encoding="utf-8") as relevant:
        relevant.write("org.beans.BeansOrderTest\n")
    return bench


def test_a_test_that_passes_only_with_its_class_does_not_fail_the_fixes_after_a_wrong_candidate(
    nl2fix_cache, confined, ordered_bench
):
    bug = load_dataset(ordered_bench / "nl2fix_dataset.json").bugs["Beans-1"]
    engine = FastEngine(
        engine_options(nl2fix_cache, sandbox=make_sandbox("bwrap"), projects_dir=ordered_bench / "projects")
    )
    try:
        ws = engine.prepare(bug)
        fix = verdict(engine, ws, bug.fixed_method)
        assert fix.verdict is Verdict.PLAUSIBLE, fix
        required = passing_on_fix(fix)
        assert "org.beans.BeansOrderTest::b_readsTheSameValueAgain" in required
        judged = [
            (name, verdict(engine, ws, red_team_attack(name, bug, FOUND14), required))
            for name in (
                "fix_restated",
                "fresh_boxes",
                "fresh_boxes",
                "fix_restated",
            )  # a test is tried once failed twice
        ]
        print("fast bwrap", [(name, r.verdict.value, r.detail[:200]) for name, r in judged])
        assert [r.verdict for _, r in judged] == [Verdict.PLAUSIBLE, Verdict.WRONG, Verdict.WRONG, Verdict.PLAUSIBLE], (
            judged
        )
    finally:
        engine.close()


def test_the_jdk_s_temporary_folder_rewritten_by_reflection_does_not_fail_the_fix_after_it(beans_engine, beans):
    judged = _after(beans_engine, beans, "tmpdir_path")
    assert judged["fix_restated"][0] == "plausible", judged


def test_junit_s_shared_state_rewritten_by_reflection_does_not_fail_the_fix_after_it(beans_engine, beans):
    judged = _after(beans_engine, beans, "junit_validator")
    assert judged["fix_restated"][0] == "plausible", judged


def test_a_jdk_class_s_newinstance_caller_cache_carries_nothing_to_the_fix_after_it(beans_engine, beans):
    # change 2 (CallerCaches): the strongest attempt on it, held
    judged = _after(beans_engine, beans, "caller_cache")
    assert judged == {"caller_cache": ("plausible", ""), "fix_restated": ("plausible", "")}, judged


def test_an_interned_literal_rewritten_through_java_lang_does_not_fail_the_fix_after_it(beans_engine, beans):
    # the lead's own attack on the java.lang exception of the deep-reflection taint: held (see the payload)
    judged = _after(beans_engine, beans, "interned_literal")
    assert judged["fix_restated"] == ("plausible", ""), judged


def test_a_candidate_that_changes_jvm_wide_state_while_probed_diverges_there_and_is_probed_no_further(guarded, textkit):
    # the lead the round left open: the probe's reference runs after the candidate in one JVM, so state the
    # candidate leaves that the runner cannot put back would reach it. The probe stops at that call, which
    # diverges (the fix leaves the state alone): stopping cannot turn a difference into "not probed"
    engine, ws, required = guarded
    spoiler = red_team_attack("spoil_probe", textkit, FOUND14)
    assert verdict(engine, ws, spoiler, required).verdict is Verdict.PLAUSIBLE
    fix = textkit.fixed_method
    run = engine.probe(ws, fix, spoiler)
    record = label(engine.probe(ws, fix, fix), run, developer_fix=True)
    print("fast bwrap spoil_probe", record.label.value, record.first_input, record.candidate_result)
    assert run.spoiled and len(run.observations) == 1 and run.observations[0].input_digest == run.spoiled, run
    assert record.label is Behaviour.DIVERGES and "changed JVM-wide state" in record.candidate_result, record
