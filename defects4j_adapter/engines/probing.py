"""A behaviour probe in the fast engine's warm JVM: the probe source (the target class with the
reference and the candidate side by side, :mod:`defects4j_adapter.behaviour.probe_source`) compiled
in memory like a candidate's file, the tests that call the method run on the reference's behaviour,
and the runner's signed observations read back (:mod:`defects4j_adapter.behaviour.observations`).

The probe runs in the same sandbox, JVM and fresh class loader as a validation, under the same
limits (per-test time, per-job time and memory); its tests' own results are not judged: the
candidate was judged by validation, and here every test sees the reference.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from defects4j_adapter.behaviour import observations, probe_source
from defects4j_adapter.behaviour.observations import ProbeRun
from defects4j_adapter.contract import Workspace
from defects4j_adapter.engines import jobs, runner_output
from defects4j_adapter.jvm import report_signing
from nl2fix.java_source import splice

if TYPE_CHECKING:
    from defects4j_adapter.engines.fast import WarmJvm


def _class_of(test: str) -> str:
    return test.split("::")[0]


def probe(jvm: WarmJvm, ws: Workspace, job_id: str, reference: str, candidate: str, *, runner_dir: Path,
          tests: Collection[str] | None, test_timeout: float, job_timeout: float,
          log_dir: Path | None = None) -> ProbeRun:
    """Probe ``candidate`` beside ``reference`` on the calls of the workspace's trigger and relevant
    tests (only those of the test classes in ``tests``, when given: the ones that called the method
    in an earlier probe of the bug). The probe source compiles against the runner's classes too
    (``runner_dir``: its wrapper calls ``nl2fix.runner.BehaviourProbe``)."""
    bug = ws.bug
    source = ws.buggy_file().read_bytes().decode(ws.encoding)
    try:
        text = probe_source.probe_file(source, bug.buggy_method, bug.start_line, bug.end_line, reference, candidate)
    except probe_source.NotProbeable as exc:
        return ProbeRun(error=f"not probed: {exc}")
    triggers = [t for t in ws.trigger_tests if tests is None or _class_of(t) in tests]
    relevant = [t for t in ws.relevant_tests if tests is None or t in tests]
    if not triggers and not relevant:
        return ProbeRun()
    job = jvm.inbox / job_id
    job.mkdir(mode=0o755)
    try:
        path = job / ws.buggy_file().name
        path.write_bytes(splice.encode_source(text, ws.encoding))
        path.chmod(0o644)
        request = jobs.runner_job(ws, job_id, known=frozenset(), stop_at_first_failure=False,
                                  test_timeout=test_timeout, source=path)
        request.triggers, request.relevant, request.behaviour = triggers, relevant, True
        request.compile_classpath.insert(0, runner_dir)
        request_file = request.write(job / "request.txt")
        key = report_signing.new_key()
        answer = jvm.ask(request_file, job_id, key, job_timeout)
        if answer is None:
            return ProbeRun(error="the test JVM was gone before the probe")
        jobs.keep(log_dir, {path.name: path, "request.txt": request_file, "runner.out": answer.text,
                            "runner.err": answer.stderr_tail})
        report = runner_output.read_job(answer.text, key, job_id).signed
        if report is None:
            run = ProbeRun(error="the probe did not finish" + (" in time" if answer.killed_for_time else ""))
        elif report.compiled is False:
            run = ProbeRun(error="the probe source does not compile: " + report.compile_errors[:500])
        else:
            run = observations.read(report.behaviour_rows, report.behaviour_end)
        run.cpu_seconds = answer.cpu_seconds
        return run
    finally:
        shutil.rmtree(job, ignore_errors=True)
