"""``--engine rebuild``: the honest, slow baseline. Per candidate: copy the workspace's sources,
splice, compile every main and test source with javac, and run the tests in a fresh JVM --
all of it confined. Nothing compiled for an earlier candidate or for the bug is reused, so its
verdicts show what the fast engine's shortcuts must agree with."""

from __future__ import annotations

import logging
import re
import shutil
import time
from dataclasses import replace
from pathlib import Path

from defects4j_adapter.contract import EngineOptions, Outcome, Phase, Workspace, register_engine
from defects4j_adapter.engines import class_check, jobs, linkage, runner_output
from defects4j_adapter.jvm import os_wall, report_signing, runner
from defects4j_adapter.sandbox.base import Limits
from defects4j_adapter.workspaces import local as local_workspace
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.domain import Bug, Engine
from nl2fix.core.story import tell

log = logging.getLogger(__name__)

_SOURCE_ERROR = re.compile(r"\.java:\d+: error: ", re.MULTILINE)
"""A javac diagnostic on a source line: the sign that a failed compile is the code's fault."""
_OWN_FAILURE = re.compile(r"^(java\.lang\.(?:StackOverflowError|OutOfMemoryError))\b", re.MULTILINE)
"""javac's report of running out of stack or heap (after "An exception has occurred in the compiler")."""


def javac_failure(log: str) -> str | None:
    """Why javac itself failed on the sources, when it ran out of stack or heap on them (nesting or an
    operator chain thousands deep: the source's fault, as the project's own build would fail the same
    way); None for any other failure."""
    found = _OWN_FAILURE.search(log)
    return (
        f"javac itself failed on this file ({found.group(1)}): nested or chained too deeply for the compiler"
        if found
        else None
    )


@register_engine
class RebuildEngine:
    name = Engine.REBUILD

    def __init__(self, options: EngineOptions):
        self.options = options
        self.sandbox = options.confining_sandbox(self.name)
        self.runner_dir = runner.runner_classes(options.cache_dir)

    def prepare(self, bug: Bug) -> Workspace:
        return prepare_workspace(bug, self.options)

    def close(self) -> None:
        """Nothing stays running."""

    def limits(self, seconds: float) -> Limits:
        # CPU time may run ahead of the wall clock with parallel GC and compiler threads
        return Limits(wall_seconds=max(1.0, seconds), cpu_seconds=int(2 * self.options.settings.candidate_timeout) + 10)

    def run(
        self,
        workspace: Workspace,
        method: str,
        *,
        known_failures: frozenset[str] = frozenset(),
        stop_at_first_failure: bool = True,
        log_dir: Path | None = None,
    ) -> Outcome:
        start = time.monotonic()
        with jobs.job_dir(self.options.cache_dir, f"rebuild-{workspace.bug.id}-") as job:
            outcome = self._run(workspace, method, known_failures, stop_at_first_failure, log_dir, job, start)
        outcome = replace(outcome, wall_seconds=time.monotonic() - start, log_dir=log_dir)
        tell(
            log,
            "rebuild: every source recompiled in a fresh copy of the workspace, the tests run in a new JVM: %s",
            jobs.summary(outcome),
        )
        return linkage.noted(outcome, workspace)

    def _run(
        self,
        ws: Workspace,
        method: str,
        known: frozenset[str],
        stop: bool,
        log_dir: Path | None,
        job: Path,
        start: float,
    ) -> Outcome:
        src, test = job / "src", job / "test"
        shutil.copytree(ws.src_dir, src)
        if ws.test_dir.is_dir():
            shutil.copytree(ws.test_dir, test)
        buggy_file = ws.buggy_file()
        spliced = jobs.write_spliced(ws, method, src / buggy_file.relative_to(ws.src_dir))
        if isinstance(spliced, Outcome):
            return spliced
        jobs.keep(log_dir, {buggy_file.name: spliced.path})
        mounts = jobs.workspace_mounts(ws, self.runner_dir, writable=[job], scratch=job / "scratch")
        deadline = start + self.options.settings.candidate_timeout
        cpu = 0.0
        deps = [*ws.classpath]

        def confined(argv, timeout):
            return self.sandbox.run(argv, mounts, self.limits(min(timeout, deadline - time.monotonic())))

        javac_wall = os_wall.jvm_options(self.runner_dir, confined=False, launcher_prefix="-J")
        for name, sources, out, cp in (
            ("main", local_workspace.java_files(src), job / "classes", deps),
            ("test", local_workspace.java_files(test), job / "test-classes", [job / "classes", *deps]),
        ):
            result = local_workspace.javac(
                sources,
                out,
                cp,
                ws.encoding,
                release=ws.java_release,
                runner=confined,
                jdk=self.sandbox.test_java().jdk,
                jvm_options=javac_wall,
            )
            cpu += result.cpu_seconds
            log = result.stdout + result.stderr
            jobs.keep(log_dir, {f"javac-{name}.log": log})
            source_errors = _SOURCE_ERROR.search(log)
            # javac meeting its limit or failing in itself on the candidate's file is the file's doing
            failure = (
                f"javac ({name}) did not finish within the candidate's limit"
                if result.timed_out
                else None
                if result.ok or source_errors
                else javac_failure(log)
            )
            if failure:
                return Outcome(phase=Phase.COMPILE, compiled=False, compile_errors=failure, cpu_seconds=cpu).noted(
                    spliced.note, first=True
                )
            if not result.ok and not source_errors:
                # javac failed without pointing at a source line: it could not start or run
                # (process limit, memory, a crash), which is no fault of the candidate
                what = (result.stderr or result.stdout).strip()[-800:]
                return Outcome(
                    phase=Phase.COMPILE,
                    compiled=False,
                    cpu_seconds=cpu,
                    harness_error=f"javac ({name}) failed without a compile error: {what}",
                ).noted(spliced.note, first=True)
            if not result.ok:
                errors = local_workspace.first_errors(log, relative_to=job)
                return Outcome(phase=Phase.COMPILE, compiled=False, compile_errors=errors, cpu_seconds=cpu).noted(
                    spliced.note, first=True
                )
        # the candidate's classes, as compiled, before any of their code runs
        checked = class_check.checked(
            Outcome(phase=Phase.COMPILE, compiled=True, cpu_seconds=cpu),
            lambda: class_check.rejection_in(ws, job / "classes"),
        )
        if checked.rejection or checked.harness_error:
            return checked.noted(spliced.note, first=True)
        request = jobs.runner_job(
            ws,
            "rebuild",
            known=known,
            stop_at_first_failure=stop,
            test_timeout=self.options.settings.test_timeout,
            first_on_classpath=(job / "classes", job / "test-classes"),
        ).write(job / "request.txt")
        # the tests run with the job folder read-only: the code under test must not rewrite the
        # compiled tests (or anything else the runner reads) before they are loaded
        precompiled = self.sandbox.precompiled()
        test_mounts = jobs.workspace_mounts(
            ws, self.runner_dir, read_only=[job], scratch=job / "scratch", precompiled=precompiled
        )
        argv = runner.jvm_command(
            self.runner_dir,
            memory_mb=self.options.settings.memory_mb,
            tmp_dir=self.sandbox.tmp_dir(test_mounts),
            mode=["run", str(request)],
            test_classpath=ws.classpath,
            java=self.sandbox.test_java(),
            confined=self.sandbox.confined,
            hidden=self.sandbox.hidden_places(test_mounts),
            precompiled=precompiled,
        )
        for attempt in range(2):  # noqa: B007 - the last attempt is read after the loop
            key = report_signing.new_key()
            limits = self.limits(min(self.options.settings.candidate_timeout, deadline - time.monotonic()))
            result = self.sandbox.run(argv, test_mounts, limits, input=key.hex + "\n")
            cpu += result.cpu_seconds
            os_wall.require_closed(result.stdout, confined=self.sandbox.confined, started=False)
            jobs.keep(log_dir, {"runner.out": result.stdout, "runner.err": result.stderr[-20000:]})
            outcome = runner_output.outcome_of(
                result.stdout,
                key,
                "rebuild",
                killed_for_time=result.timed_out,
                stderr_tail=result.stderr[-2000:],
                triggers=ws.trigger_tests,
            )
            # a JVM that died in the candidate's hands runs once more; the second run decides
            if not outcome.jvm_died:
                break
        if attempt and outcome.jvm_died:
            outcome = outcome.noted("the test JVM ended during the job twice", first=True)
        return replace(outcome, cpu_seconds=cpu).noted(spliced.note, first=True)
