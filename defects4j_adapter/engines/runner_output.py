"""Read what nl2fix's Java test runner prints, and turn it into an engine :class:`Outcome`.

Pure functions over text. The runner writes ``NL2FIX<TAB>KIND<TAB>field...`` lines on its
standard output (fields escape ``\\\\``, ``\\t``, ``\\n``, ``\\r``); anything else there is ignored.

Code under test can write to that output too, so two kinds of line are told apart. Plain lines
are progress: ``GUARD exit|none`` (whether ``System.exit`` is caught), ``READY`` (a warm JVM
listens), ``START id``, ``PHASE trigger|relevant``, ``BEGIN test`` -- used only to blame the
running test when the JVM dies, never to pass anyone. The verdict comes from the lines the runner
signs with the job's key (:mod:`defects4j_adapter.jvm.report_signing`):
``SIGNED seq id KIND field... mac``, numbered from 0, where KIND is ``START``,
``COMPILE ok|error messages``, ``CLASSFILE name sha256`` (each class compiled from the candidate's
file, as compiled, before any of its code ran; its bytes are on a plain ``CLASSBYTES name base64``
line, taken only when their digest is the signed one), ``PHASE``, ``BEGIN``, ``TEST pass|fail|timeout|skip
test millis message``, ``CLASS class message`` (a test class that could not load or set up),
``FORGED count`` (JUnit events the code under test fired itself), ``ERROR message`` (the runner
itself failed), in a behaviour probe ``BEHAVIOUR ...`` rows and ``BEHAVIOUREND`` (see
:mod:`defects4j_adapter.behaviour.observations`) and, last,
``END complete|stopped|poisoned|compile-error|error restart(0|1)``.

Once the candidate's code may have run (after ``COMPILE ok``), whatever keeps its own tests from
reporting is the candidate's doing: a signed line the reader does not know (the code under test
rewrote the runner's words), forged events, a trigger test with no result. Such a report is a
failure of the candidate, never a pass and never the harness's fault.
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
import re
from dataclasses import dataclass, field

from defects4j_adapter.contract import Outcome, Phase
from defects4j_adapter.jvm import report_signing
from defects4j_adapter.jvm.report_signing import JobKey

PREFIX = "NL2FIX\t"
SIGNED = "SIGNED"
RECORDED = frozenset({"HIT", "INIT", "STRAY", "RAN"})
"""What the recording job (see :mod:`defects4j_adapter.engines.narrowing`) signs about each test."""
PROGRESS = frozenset({"PHASE", "BEGIN"})
"""Plain lines the runner writes while tests run; everything else it reports is signed."""
RAN_OUT = ("nl2fix: the JVM ran out of ", "java.lang.OutOfMemoryError")
"""How the message of a test that failed because the JVM ran out of something begins: the runner's (the JVM
ran out, ``Exhaustion.java``), or the error's own where the JDK's code threw it (direct buffer memory: red team
13's ``direct_squat``); any other failure's message begins with a thrown exception's class."""


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
    corrupt: list[str] = field(default_factory=list)
    """What in the signed report made no sense (a word the reader does not know, events the code
    under test forged): the candidate's doing, since it comes after ``COMPILE ok``."""
    class_digests: dict[str, str] = field(default_factory=dict)
    """The SHA-256 of each class compiled from the candidate's file, by binary name (dots)."""
    class_files: dict[str, bytes] = field(default_factory=dict)
    """Those classes' bytes, from the plain lines whose digest matches."""
    instrumented: int | None = None
    """Recording job only (``INSTRUMENTED methods refused``): how many methods got the recording's call
    (``MethodReach.hit()``); None in any other job."""
    not_instrumented: int = 0
    """Recording job only: methods of that name whose bytecode the call could not go into."""
    recorded: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Recording job only: ``HIT``, ``INIT`` and ``STRAY`` lines, by kind, as (test class run, test) pairs
    (``STRAY`` has no test)."""
    end: str | None = None
    """How the job ended; None when the output stops before ``END`` (the JVM died or was killed)."""
    restart: bool = False
    behaviour_rows: list[list[str]] = field(default_factory=list)
    """A behaviour probe's rows (``BEHAVIOUR origin test input digest reference digest candidate digest
    reference-again-digest [whole-input whole-reference whole-candidate]``)."""
    behaviour_end: list[str] | None = None
    """Its closing counts (``BEHAVIOUREND calls derived skipped budget-met-ms passed-over spoiled uncopyable
    decided``); None when it has none."""


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


def _apply(report: RunnerReport, kind: str, args: list[str]) -> None:
    """One event of a job's report."""
    args = args + [""] * 5
    if kind == "COMPILE":
        report.compiled = args[0] == "ok"
        report.compile_errors = args[1]
    elif kind == "CLASSFILE":
        report.class_digests[args[0]] = args[1]
    elif kind == "FORGED":
        report.corrupt.append(f"the code under test fired {args[0]} JUnit event(s) itself")
    elif kind == "PHASE":
        report.phases.append(args[0])
    elif kind == "BEGIN":
        report.begun.append(args[0])
    elif kind == "TEST":
        try:
            status = Status(args[0])
        except ValueError:
            report.corrupt.append(f"unknown test status {args[0]!r}")
            return
        millis = int(args[2]) if args[2].isdigit() else 0
        report.tests.append(ReportedTest(args[1], status, millis, args[3]))
    elif kind == "CLASS":
        report.class_failures.append(ReportedTest(args[0], Status.FAIL, 0, args[1]))
    elif kind == "ERROR":
        report.errors.append(args[0])
    elif kind == "INSTRUMENTED":
        report.instrumented, report.not_instrumented = int(args[0] or 0), int(args[1] or 0)
    elif kind in RECORDED:
        report.recorded.setdefault(kind, []).append((args[0], args[1]))
    elif kind == "BEHAVIOUR":
        report.behaviour_rows.append(args[:12])
    elif kind == "BEHAVIOUREND":
        report.behaviour_end = args[:8]
    elif kind == "END":
        report.end = args[0] or "complete"
        report.restart = args[1] == "1"
    elif kind != "START":
        report.corrupt.append(f"an unknown report line {kind!r}")


def progress(text: str) -> RunnerReport:
    """The plain (unsigned) lines of one job's output: progress only, since the code under test
    can print them too."""
    report = RunnerReport()
    for line in text.splitlines():
        f = _fields(line)
        if not f:
            continue
        if f[0] == "GUARD":
            report.guarded = f[1:2] == ["exit"]
        elif f[0] in PROGRESS:
            _apply(report, f[0], f[1:])
    return report


def _signed_line(line: str, key: JobKey) -> tuple[int, str, str, list[str]] | None:
    """``(seq, job id, kind, fields)`` of a line signed under ``key``; None for any other line."""
    line = line.rstrip("\r\n")
    head = PREFIX + SIGNED + "\t"
    if not line.startswith(head):
        return None
    body, _, tag = line[len(head) :].rpartition("\t")
    if not report_signing.verify(key, body, tag):
        return None
    seq, job, kind, *fields = body.split("\t") + [""] * 2
    if not seq.isdigit():
        return None
    return int(seq), unescape(job), kind, [unescape(f) for f in fields]


def _class_files(report: RunnerReport, text: str) -> None:
    """The bytes of each class the signed report names, from the plain ``CLASSBYTES`` lines (the code
    under test may print lines like them too: only bytes with the signed digest count)."""
    wanted = {digest: name for name, digest in report.class_digests.items()}
    head = PREFIX + "CLASSBYTES\t"
    for line in text.splitlines():
        if not line.startswith(head):
            continue
        name, _, encoded = line[len(head) :].rstrip("\r\n").partition("\t")
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        if wanted.get(hashlib.sha256(data).hexdigest()) == unescape(name):
            report.class_files[unescape(name)] = data
    missing = sorted(set(report.class_digests) - set(report.class_files))
    if missing:
        report.corrupt.append(f"no class file with the signed digest for {', '.join(missing)}")


def is_signed_end(line: str, key: JobKey, job_id: str) -> bool:
    """Whether ``line`` is the runner's own end of job ``job_id``: how a reader knows the job is over."""
    signed = _signed_line(line, key)
    return signed is not None and signed[1] == job_id and signed[2] == "END"


@dataclass
class JobOutput:
    """What one job's output says, read with its key."""

    signed: RunnerReport | None
    """The runner's own report (every line verified, numbered without a gap, ending in ``END``);
    None when the output stops before that (the JVM died, was killed, or never took the job)."""
    progress: RunnerReport
    """The plain lines: which phase and test were running, for blame when ``signed`` is None."""
    started: bool = False
    """The runner signed the job's ``START``: it took the job."""
    compiled: bool = False
    """The runner signed ``COMPILE ok``: code of the candidate may have run after it."""
    forged: int = 0
    """Lines that look like the runner's report but were not signed by it for this job."""
    class_files: dict[str, bytes] = field(default_factory=dict)
    """The classes compiled from the candidate's file, as the runner signed them (binary names with
    dots), whether or not the job then ended: they were reported before any of their code ran."""


PLAIN = ("MEMORY", "GUARD", "REFLECTION", "READY", "START", "CLASSBYTES")
"""Plain lines the runner writes itself besides progress: start-up facts, the classes' bytes."""


def read_job(text: str, key: JobKey, job_id: str) -> JobOutput:
    report = RunnerReport(id=job_id)
    expected, started, compiled, complete, forged = 0, False, False, False, 0
    for line in text.splitlines():
        if not line.startswith(PREFIX):
            continue
        signed = _signed_line(line, key)
        if signed is None:
            kind = line[len(PREFIX) :].split("\t", 1)[0].rstrip("\r\n")
            forged += kind not in PROGRESS and kind not in PLAIN
            continue
        seq, job, kind, fields = signed
        if job != job_id or seq != expected or complete:
            forged += 1
            continue
        expected += 1
        started = True
        if kind == "COMPILE" and fields[0] == "ok":
            compiled = True
        _apply(report, kind, fields)
        complete = kind == "END"
    plain = progress(text)
    report.guarded = plain.guarded
    if report.class_digests:
        _class_files(report, text)
    return JobOutput(report if complete else None, plain, started, compiled, forged, report.class_files)


def failure_frame_line(test: str, trace: str) -> int | None:
    """The line of ``test`` 's own class (``pkg.Class::method``) where the stack trace ``trace`` left
    it: the first frame in that class or one nested in it (an anonymous class, a lambda). A frame may
    name its class loader and module first (``at app//pkg.Class.m(...)``: the runner names each
    job's loader)."""
    cls = test.split("::")[0]
    frame = re.compile(
        rf"^\s*at (?:[^\s/]*/[^\s/]*/)?{re.escape(cls)}(?:\$[\w$]+)?\.[\w$<>]+\([\w$]+\.java:(\d+)\)", re.MULTILINE
    )
    found = frame.search(trace)
    return int(found.group(1)) if found else None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def unreported(report: RunnerReport, triggers: tuple[str, ...] | list[str]) -> list[str]:
    """The trigger tests (``Class::method``) a complete report says nothing about: neither a
    result of their own nor a failure or skip of their whole class."""
    named = {t.name for t in report.tests} | {t.name for t in report.class_failures}
    return [t for t in triggers if t not in named and t.split("::")[0] not in named]


NO_FAILURES = "carrying no failures: not a pass"
"""The runner's words for a test that threw what JUnit then reported as no failure (``TestExecutor.java``)."""
SKIPPED = "a trigger test that was skipped is no pass"
"""The message of a trigger test that ended in an assumption failure or was ignored."""


def _is_trigger(name: str, triggers: tuple[str, ...] | list[str]) -> bool:
    """Whether ``name`` (a test, or a class skipped whole) is, or holds, one of ``triggers``."""
    return any(name == t or name == t.split("::")[0] for t in triggers)


CORRUPTED = "(the runner's report)"
"""The failing "test" a report the code under test corrupted is blamed on."""


def to_outcome(report: RunnerReport, *, triggers: tuple[str, ...] | list[str] = ()) -> Outcome:
    """What a job's signed, complete report says about the candidate. ``triggers``: the trigger
    tests asked for; a complete run that reports no result for one of them failed them (the
    candidate's code ran in between: see the module comment)."""
    if report.errors and not report.compiled:
        return Outcome(phase=Phase.COMPILE, compiled=False, harness_error="; ".join(report.errors))
    if report.compiled is False or report.end == "compile-error":
        if not report.compile_errors.strip():
            # a compiler that fails without naming an error in the source failed itself
            return Outcome(
                phase=Phase.COMPILE,
                compiled=False,
                harness_error="the compiler failed without reporting a compile error",
            )
        return Outcome(phase=Phase.COMPILE, compiled=False, compile_errors=report.compile_errors)
    failing = [t for t in report.tests if t.status is Status.FAIL] + report.class_failures
    # a trigger test that ended in an assumption failure (or was ignored) did not pass: JUnit and
    # Defects4J count it as skipped or passed, nl2fix as failed; other skipped tests are held to the
    # fixed version's passes (contract.not_passed)
    failing += [
        ReportedTest(t.name, Status.FAIL, t.millis, f"{SKIPPED}: {t.message or 'skipped'}")
        for t in report.tests
        if t.status is Status.SKIP and _is_trigger(t.name, triggers)
    ]
    timed = [t.name for t in report.tests if t.status is Status.TIMEOUT]
    first_timeout = next((t for t in report.tests if t.status is Status.TIMEOUT), None)
    ran = sum(t.status is not Status.SKIP or _is_trigger(t.name, triggers) for t in report.tests)
    ran += len(report.class_failures)
    phase = Phase(report.phases[-1]) if report.phases else Phase.COMPILE
    notes = [f"{first_timeout.name}: {first_timeout.message}"] if first_timeout and first_timeout.message else []
    poisoned, harness_error = False, ""
    if report.end == "poisoned":
        poisoned = True
        notes.append("a timed-out test could not be stopped")
    elif report.end == "error":
        harness_error = "the test runner failed"
    elif report.end == "complete":
        phase = Phase.DONE
        for name in unreported(report, triggers):
            failing.append(ReportedTest(name, Status.FAIL, 0, "the runner reported no result for this trigger test"))
    problems = report.corrupt + report.errors
    if problems:
        failing.append(ReportedTest(CORRUPTED, Status.FAIL, 0, "; ".join(problems)))
    # a test that began and never finished, in a run that went on: something the code under
    # test threw cut JUnit short (the runner reports the class too, when it can)
    finished = {t.name for t in report.tests}
    for name in dict.fromkeys(b for b in report.begun if b not in finished):
        failing.append(ReportedTest(name, Status.FAIL, 0, "the test began but never finished"))
        ran += 1
    return Outcome(
        phase=phase,
        compiled=True,
        tests_run=ran,
        passed_tests=tuple(t.name for t in report.tests if t.status is Status.PASS),
        failing_tests=tuple(t.name for t in failing),
        messages={t.name: _first_line(t.message) for t in failing},
        failure_lines={t.name: line for t in failing if (line := failure_frame_line(t.name, t.message))},
        timed_out_tests=tuple(timed),
        timed_out=poisoned or bool(timed),
        ran_out=any(t.message.startswith(RAN_OUT) for t in failing),
        harness_error=harness_error,
        detail="; ".join(notes),
    )


def unfinished(job: JobOutput, *, killed_for_time: bool, stderr_tail: str) -> Outcome:
    """A job whose output stops before the runner's signed end: never a pass, whatever the
    output held. Killed at the time limit, it timed out; ended after the candidate's classes were
    compiled (so its code may have run: ``System.exit``, ``Runtime.halt``, a crash), the JVM
    died in the candidate's hands (``jvm_died``: engines run such a job once more in a fresh
    JVM before they believe it); ended before that, the harness failed."""
    plain = job.progress
    running = plain.begun[-1] if plain.begun else None
    phase = Phase(plain.phases[-1]) if plain.phases else Phase.COMPILE
    if killed_for_time:
        where = f" in {running}" if running else ""
        return Outcome(
            phase=phase,
            compiled=job.compiled,
            timed_out=True,
            timed_out_tests=(running,) if running else (),
            detail=f"the candidate's time limit was reached{where}",
        )
    if job.compiled:
        blamed = running or "(the test JVM)"
        what = f"the JVM ended during {'this test' if running else 'the tests'} (System.exit, a halt or a crash)"
        return Outcome(
            phase=phase, compiled=True, tests_run=1, failing_tests=(blamed,), messages={blamed: what}, jvm_died=True
        )
    tail = stderr_tail.strip()[-800:]
    return Outcome(
        phase=Phase.COMPILE,
        compiled=False,
        harness_error="the test JVM ended without reporting" + (f": {tail}" if tail else ""),
    )


def outcome_of(
    text: str,
    key: JobKey,
    job_id: str,
    *,
    killed_for_time: bool = False,
    stderr_tail: str = "",
    triggers: tuple[str, ...] | list[str] = (),
) -> Outcome:
    """The outcome of job ``job_id`` from the runner's output, trusting only what it signed with ``key``."""
    return job_outcome(
        read_job(text, key, job_id), killed_for_time=killed_for_time, stderr_tail=stderr_tail, triggers=triggers
    )


def job_outcome(
    job: JobOutput, *, killed_for_time: bool = False, stderr_tail: str = "", triggers: tuple[str, ...] | list[str] = ()
) -> Outcome:
    """The outcome of a job read with :func:`read_job`."""
    if job.signed is not None:
        outcome = to_outcome(job.signed, triggers=triggers)
    else:
        outcome = unfinished(job, killed_for_time=killed_for_time, stderr_tail=stderr_tail)
    if job.forged:
        return outcome.noted(
            f"ignored {job.forged} report line(s) the runner did not sign (printed by the code under test)"
        )
    return outcome
