"""A behaviour probe in the fast engine's warm JVM: the probe source (the target class with the
reference behind a wrapper, :mod:`defects4j_adapter.behaviour.probe_source`) compiled like a
candidate's file, by the JVM that only compiles, and the candidate's own classes as validated; the
tests that call the method run on the reference's behaviour, and the runner's signed observations are
read back
(:mod:`defects4j_adapter.behaviour.observations`).

The probe runs in the same sandbox, JVM and fresh class loader as a validation, under the same
limits (per-test time, per-job time and memory); its tests' own results are not judged: the
candidate was judged by validation, and here every test sees the reference.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
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

CANDIDATE_BUDGET = 2.0
"""CPU-s a candidate's probe job may spend probing the calls its tests make (copying, deriving inputs, running
the reference and the candidate on them); the tests' own work is not counted, it is bounded by the per-test
limit as in validation (a budget of the whole job cut JxPath-5's probes before their first call: its tests
work for 0.5 CPU-s first). The reference's probe of itself, once a bug and every candidate's yardstick, has
no budget. RepairBench's answers: a probe's median was 0.71 CPU-s with its compiles, but Cli-23's took 65
each (the fix and the candidate on derived widths and lengths); one over the budget stops with its inputs
so far and is ``not-probed`` (:func:`nl2fix.validation.behaviour.label`). Not less: at 0.5 CPU-s ten of
the twelve plausible answers labelled before (Math-2's 40 inputs, Codec-2's 322) were cut to
``not-probed``; at 2 all but one of Math-2's and Codec-2's kept their label (``bench_real.py --replay``)."""


def _class_of(test: str) -> str:
    return test.split("::")[0]


def probe_text(ws: Workspace, reference: str, candidate: str) -> str | ProbeRun:
    """The probe source of ``candidate`` beside ``reference``, or the run that says why there is none."""
    bug = ws.bug
    source = ws.buggy_file().read_bytes().decode(ws.encoding)
    try:
        return probe_source.probe_file(source, bug.buggy_method, bug.start_line, bug.end_line, reference, candidate)
    except probe_source.NotProbeable as exc:
        return ProbeRun(error=f"not probed: {exc}")


def write_source(ws: Workspace, text: str, dest: Path) -> jobs.SplicedFile:
    """The probe source written where the compiling JVM reads it."""
    dest.write_bytes(splice.encode_source(text, ws.encoding))
    dest.chmod(0o644)
    return jobs.SplicedFile(dest, "")


def probe(
    jvm: WarmJvm,
    ws: Workspace,
    job_id: str,
    compiled: dict[str, bytes],
    candidate: dict[str, bytes],
    *,
    tests: Collection[str] | None,
    test_timeout: float,
    job_timeout: float,
    log_dir: Path | None = None,
    developer_fix: bool = True,
    budget: float = 0.0,
    skip: frozenset[str] = frozenset(),
    steady: Mapping[str, str] | None = None,
) -> ProbeRun:
    """Probe with the compiled probe source (:func:`probe_text`, compiled against the runner's classes
    too: its wrapper calls ``nl2fix.runner.BehaviourProbe``) and the candidate's classes as validation
    compiled them (``candidate``: the runner loads them apart, see ``BehaviourProbe.java``) on the calls
    of the workspace's trigger and relevant tests (only those of the test classes in ``tests``, when
    given: the ones that called the method in an earlier probe of the bug); ``budget``: the CPU-s its probing
    may use (:data:`CANDIDATE_BUDGET`; 0: none); ``skip``: digests of inputs run on neither body (the ones
    the reference's own probe found no evidence: :func:`nl2fix.validation.behaviour.passed_over`); ``steady``:
    digests of inputs the reference runs on once (its own probe found them steady: ``BehaviourProbe#STEADY``), each
    with the digest of its outcome there: beside the developer's fix, the first row that decides the label ends the job
    (``BehaviourProbe.Session#decides``)."""
    triggers = [t for t in ws.trigger_tests if tests is None or _class_of(t) in tests]
    relevant = [t for t in ws.relevant_tests if tests is None or t in tests]
    if not triggers and not relevant:
        return ProbeRun()
    job = jvm.inbox / job_id
    job.mkdir(mode=0o755)
    try:
        request = jobs.runner_job(
            ws,
            job_id,
            known=frozenset(),
            stop_at_first_failure=False,
            test_timeout=test_timeout,
            compiled=jobs.write_classes(compiled, job / "classes"),
        )
        request.triggers, request.relevant, request.behaviour = triggers, relevant, True
        request.closed_init = jvm.closed_init
        request.behaviour_candidate = jobs.write_classes(candidate, job / "candidate")
        request.behaviour_fix_reference = developer_fix
        request.behaviour_budget_ms = int(budget * 1000)
        request.behaviour_skip, request.behaviour_steady = skip, steady or {}
        request_file = request.write(job / "request.txt")
        key = report_signing.new_key()
        answer = jvm.ask(request_file, job_id, key, job_timeout)
        if answer is None:
            return ProbeRun(error="the test JVM was gone before the probe")
        jobs.keep(log_dir, {"request.txt": request_file, "runner.out": answer.text, "runner.err": answer.stderr_tail})
        report = runner_output.read_job(answer.text, key, job_id).signed
        if report is None:
            run = ProbeRun(error="the probe did not finish" + (" in time" if answer.killed_for_time else ""))
        else:
            run = observations.read(report.behaviour_rows, report.behaviour_end)
        run.cpu_seconds = answer.cpu_seconds
        return run
    finally:
        shutil.rmtree(job, ignore_errors=True)
