"""nl2fix's own judgement of what Defects4J passed (``--engine defects4j``).

Defects4J counts a test as passed when JUnit reported no failure for it. JUnit reports the failures
a multiple-failure exception carries instead of the exception, so an empty one (made by
deserialization, no JUnit name in the candidate's bytecode) reports none, and Defects4J counts an
assumption failure as a pass: on Csv-4, the buggy method throwing an empty one exactly where the
trigger test's input makes it wrong, ``defects4j test`` reports 0 failing tests. So once Defects4J
has passed a candidate, nl2fix's runner (whose JUnit tells it what each test threw: ``Thrown.java``)
runs the trigger and relevant tests again on the classes Defects4J compiled, and a test that ended
in something JUnit reported as no failure, or a trigger test that was skipped, is the candidate's
failure; the record says where Defects4J's own count differs. So is a trigger test that fails in the
runner: Defects4J reads its verdict from files its result formatter writes inside the very JVM the
candidate's code runs in (Ant's, ``fork="no"``), so a candidate can blank its own ``failing_tests``
while its tests run, whereas the runner's report is signed with a key no code of the candidate can
read (its JVM is non-dumpable: :mod:`~defects4j_adapter.jvm.os_wall`). The fixed version is judged
the same way (a trigger test that fails it in the runner shows as the bug's ground truth failing).
Other differences between the two runs, in the relevant tests (the environment's), are not held
against the candidate: its Defects4J verdict stands for them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from defects4j_adapter.contract import Outcome, Workspace
from defects4j_adapter.engines import jobs, runner_output
from defects4j_adapter.jvm import report_signing, runner
from defects4j_adapter.sandbox.base import Limits, Sandbox

JOB_ID = "judgement"


def in_slot(ws: Workspace, slot: Path) -> Workspace:
    """``ws`` with every path under its root moved under ``slot`` (a copy of it: the candidate's)."""

    def moved(path: Path) -> Path:
        return slot / path.relative_to(ws.root) if path.is_relative_to(ws.root) else path

    return dataclasses.replace(
        ws,
        root=slot,
        src_dir=moved(ws.src_dir),
        test_dir=moved(ws.test_dir),
        classes_dir=moved(ws.classes_dir),
        test_classes_dir=moved(ws.test_classes_dir),
        classpath=tuple(moved(p) for p in ws.classpath),
        target_file=moved(ws.target_file) if ws.target_file else None,
    )


def runner_outcome(
    ws: Workspace,
    *,
    sandbox: Sandbox,
    cache_dir: Path,
    known: frozenset[str],
    test_timeout: float,
    seconds: float,
    memory_mb: int,
) -> Outcome:
    """The runner's outcome of ``ws``'s trigger and relevant tests on the classes compiled there."""
    runner_dir = runner.runner_classes(cache_dir)
    with jobs.job_dir(cache_dir, f"judgement-{ws.bug.id}-") as job:
        # every test, not up to the first failure: one that fails here for the environment's sake
        # (Defects4J passed it) must not hide a later one that JUnit reported wrongly
        request = jobs.runner_job(
            ws, JOB_ID, known=known, stop_at_first_failure=False, test_timeout=test_timeout
        ).write(job / "request.txt")
        precompiled = sandbox.precompiled()
        mounts = jobs.workspace_mounts(
            ws, runner_dir, read_only=[job], scratch=job / "scratch", precompiled=precompiled
        )
        argv = runner.jvm_command(
            runner_dir,
            memory_mb=memory_mb,
            tmp_dir=sandbox.tmp_dir(mounts),
            mode=["run", str(request)],
            test_classpath=ws.classpath,
            java=sandbox.test_java(),
            confined=sandbox.confined,
            hidden=sandbox.hidden_places(mounts),
            precompiled=precompiled,
        )
        key = report_signing.new_key()
        result = sandbox.run(argv, mounts, Limits(wall_seconds=max(1.0, seconds)), input=key.hex + "\n")
        return runner_output.outcome_of(
            result.stdout,
            key,
            JOB_ID,
            killed_for_time=result.timed_out,
            stderr_tail=result.stderr[-2000:],
            triggers=ws.trigger_tests,
        )


def not_passes(judged: Outcome, triggers: tuple[str, ...] = ()) -> dict[str, str]:
    """The tests the runner judged no pass where JUnit reported none failed, and the trigger tests
    that failed in the runner, with the runner's message."""
    return {
        t: judged.messages.get(t, "")
        for t in judged.failing_tests
        if runner_output.NO_FAILURES in judged.messages.get(t, "")
        or judged.messages.get(t, "").startswith(runner_output.SKIPPED)
        or t in triggers
    }


def fold(outcome: Outcome, judged: Outcome, triggers: tuple[str, ...] = ()) -> Outcome:
    """Defects4J's ``outcome`` of a candidate it passed, with the runner's ``judged`` one: what the
    runner judged no pass that JUnit reported passed, and a trigger test (of ``triggers``) that failed
    in the runner, fail the candidate, and the detail says where Defects4J's own count differs. A
    runner that could not judge makes the outcome an ``error``."""
    if judged.harness_error:
        return dataclasses.replace(
            outcome, harness_error=f"nl2fix's runner could not judge what Defects4J passed: {judged.harness_error}"
        )
    differ = not_passes(judged, triggers)
    if not differ:
        return outcome
    named = ", ".join(differ)
    note = (
        f"Defects4J counts {len(differ)} failing test(s) fewer: it reported {named} passed, which nl2fix "
        "judges no pass (JUnit reported no failure for what the test threw, or skipped it, or the trigger test "
        "failed in nl2fix's runner, whose signed report the candidate cannot write)"
    )
    return dataclasses.replace(
        outcome,
        failing_tests=(*outcome.failing_tests, *(t for t in differ if t not in outcome.failing_tests)),
        messages={**outcome.messages, **differ},
    ).noted(note)
