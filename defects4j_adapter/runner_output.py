"""Read what nl2fix's Java test runner prints, and turn it into an engine :class:`Outcome`.

Pure functions over text. The runner writes ``NL2FIX<TAB>KIND<TAB>field...`` lines on its own
standard output (fields escape ``\\\\``, ``\\t``, ``\\n``, ``\\r``); anything else there is ignored.

``GUARD exit|none`` -- whether ``System.exit`` is caught; ``READY`` -- a warm JVM is listening;
``START id``; ``COMPILE ok|error messages``; ``PHASE trigger|relevant``; ``BEGIN test``;
``TEST pass|fail|timeout|skip test millis message``; ``CLASS class message`` (a test class that
could not load or set up); ``ERROR message`` (the runner itself failed);
``END id complete|stopped|poisoned|compile-error|error restart(0|1)``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from defects4j_adapter.engine import Outcome, Phase

PREFIX = "NL2FIX\t"


class Status(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    TIMEOUT = "timeout"
    SKIP = "skip"


@dataclass(frozen=True)
class ReportedTest:
    name: str
    status: Status
    millis: int = 0
    message: str = ""


@dataclass
class RunnerReport:
    """One job's report."""

    id: str = ""
    guarded: bool | None = None
    compiled: bool | None = None
    """None when the job compiled nothing (classes were built beforehand)."""
    compile_errors: str = ""
    phases: list[str] = field(default_factory=list)
    begun: list[str] = field(default_factory=list)
    tests: list[ReportedTest] = field(default_factory=list)
    class_failures: list[ReportedTest] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    end: str | None = None
    """How the job ended; None when the output stops before ``END`` (the JVM died or was killed)."""
    restart: bool = False

    @property
    def running(self) -> str | None:
        """The test that had begun but not finished when the output stopped."""
        finished = {t.name for t in self.tests}
        unfinished = [b for b in self.begun if b not in finished]
        return unfinished[-1] if unfinished else None


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _fields(line: str) -> list[str] | None:
    line = line.rstrip("\r\n")
    if not line.startswith(PREFIX):
        return None
    return [unescape(f) for f in line[len(PREFIX) :].split("\t")]


def parse(text: str) -> list[RunnerReport]:
    """Every job's report, in order. Lines before the first ``START`` (``GUARD``, ``READY``) set
    up the first report; a report whose ``END`` is missing was cut short."""
    reports: list[RunnerReport] = []
    current = RunnerReport()
    guarded: bool | None = None
    for line in text.splitlines():
        f = _fields(line)
        if not f:
            continue
        kind, args = f[0], f[1:] + [""] * 5
        if kind == "GUARD":
            guarded = args[0] == "exit"
            current.guarded = guarded
        elif kind == "START":
            if current.id or current.tests or current.end is not None:
                reports.append(current)
            current = RunnerReport(id=args[0], guarded=guarded)
        elif kind == "COMPILE":
            current.compiled = args[0] == "ok"
            current.compile_errors = args[1]
        elif kind == "PHASE":
            current.phases.append(args[0])
        elif kind == "BEGIN":
            current.begun.append(args[0])
        elif kind == "TEST":
            try:
                status = Status(args[0])
            except ValueError:
                current.errors.append(f"unknown test status {args[0]!r}")
                continue
            millis = int(args[2]) if args[2].isdigit() else 0
            current.tests.append(ReportedTest(args[1], status, millis, args[3]))
        elif kind == "CLASS":
            current.class_failures.append(ReportedTest(args[0], Status.FAIL, 0, args[1]))
        elif kind == "ERROR":
            current.errors.append(args[0])
        elif kind == "END":
            current.end = args[1] or "complete"
            current.restart = args[2] == "1"
    if current.id or current.tests or current.end is not None or current.errors or not reports:
        reports.append(current)
    return reports


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def unreported(report: RunnerReport, triggers: tuple[str, ...] | list[str]) -> list[str]:
    """The trigger tests (``Class::method``) a complete report says nothing about: neither a
    result of their own nor a failure or skip of their whole class."""
    named = {t.name for t in report.tests} | {t.name for t in report.class_failures}
    return [t for t in triggers if t not in named and t.split("::")[0] not in named]


def to_outcome(report: RunnerReport, *, killed_for_time: bool = False, stderr_tail: str = "",
               triggers: tuple[str, ...] | list[str] = ()) -> Outcome:
    """What the report says about the candidate. ``killed_for_time``: the host stopped the JVM at
    the candidate's wall-clock limit. ``triggers``: the trigger tests asked for; a complete run
    that reports no result for one of them is the harness's failure, never a pass."""
    if report.errors:
        return Outcome(phase=Phase.COMPILE, compiled=False, harness_error="; ".join(report.errors))
    if report.compiled is False or report.end == "compile-error":
        if not report.compile_errors.strip():
            # a compiler that fails without naming an error in the source failed itself
            return Outcome(phase=Phase.COMPILE, compiled=False,
                           harness_error="the compiler failed without reporting a compile error")
        return Outcome(phase=Phase.COMPILE, compiled=False, compile_errors=report.compile_errors)
    failing = [t for t in report.tests if t.status is Status.FAIL] + report.class_failures
    timed = [t.name for t in report.tests if t.status is Status.TIMEOUT]
    ran = sum(t.status is not Status.SKIP for t in report.tests) + len(report.class_failures)
    phase = Phase(report.phases[-1]) if report.phases else Phase.COMPILE
    outcome = Outcome(phase=phase, compiled=True, tests_run=ran)
    notes = []
    if report.end is None:
        running = report.running
        if killed_for_time:
            outcome.timed_out = True
            if running:
                timed.append(running)
            notes.append(f"the candidate's time limit was reached{f' in {running}' if running else ''}")
        elif running:
            failing.append(ReportedTest(running, Status.FAIL, 0, "the JVM ended during this test (System.exit or a crash)"))
            outcome.tests_run += 1
        else:
            outcome.harness_error = "the test JVM ended without reporting" + (f": {stderr_tail.strip()[-800:]}" if stderr_tail.strip() else "")
    elif report.end == "poisoned":
        outcome.timed_out = True
        notes.append("a timed-out test could not be stopped")
    elif report.end == "error":
        outcome.harness_error = "the test runner failed"
    elif report.end == "complete":
        outcome.phase = Phase.DONE
        missing = unreported(report, triggers)
        if missing:
            outcome.harness_error = f"the runner reported no result for trigger test(s) {', '.join(missing)}"
    if report.end is not None:
        # a test that began and never finished, in a run that went on: something the code under
        # test threw cut JUnit short (the runner reports the class too, when it can)
        finished = {t.name for t in report.tests}
        for name in dict.fromkeys(b for b in report.begun if b not in finished):
            failing.append(ReportedTest(name, Status.FAIL, 0, "the test began but never finished"))
            outcome.tests_run += 1
    outcome.failing_tests = [t.name for t in failing]
    outcome.messages = {t.name: _first_line(t.message) for t in failing}
    outcome.timed_out_tests = timed
    outcome.timed_out = outcome.timed_out or bool(timed)
    outcome.detail = "; ".join(notes)
    return outcome


def outcome_of(text: str, *, killed_for_time: bool = False, stderr_tail: str = "",
               triggers: tuple[str, ...] | list[str] = ()) -> Outcome:
    """The outcome of the last (or only) job in a runner's output."""
    return to_outcome(parse(text)[-1], killed_for_time=killed_for_time, stderr_tail=stderr_tail, triggers=triggers)
