"""``--engine fast``: compile once per bug, then per candidate only the changed file, in a warm JVM.

Per bug worker, two confined JVMs (the runner's ``serve`` mode, inside the sandbox): one keeps javac
warm and only compiles, one keeps JUnit and the JIT warm and only runs tests. Per candidate the
compiling JVM compiles the spliced file in memory against the bug's compiled classes and the
class-file check reads the result; the test JVM loads it in a fresh class loader over the bug's
class path (so no static state survives from one candidate to the next), runs the trigger tests
(stopping at the first real failure) and then the relevant test classes. No candidate's code ever
runs where candidates are compiled: a candidate that reached into the compiler's state (javac's
token table, say, so that ``==`` reads as ``!=``) would otherwise compile the next candidate into
something other than its source, and the fresh JVM below would confirm what it was given. The
workspace is mounted read-only: no candidate can damage it for the next. A JVM that a candidate left
in doubt (a test thread that would not die, out of memory, the time limit) is replaced by a fresh one.

A JVM is fresh only while no candidate's code of any kind (its tests, its behaviour probe) has run
in it; the project's own buggy and fixed versions are trusted and do not count. A pass from any other
JVM is confirmed in a fresh JVM (see :meth:`FastEngine.run_compiled`): whatever an earlier candidate
left in the warm JVM cannot buy a later one a ``plausible``. Such a JVM runs only the candidate's
trigger tests and the few tests that failed the bug's earlier candidates; the fresh one, started for
that one job (the quick compiler only, the classes the compiling JVM compiled and the check passed),
runs them all and decides. A time limit, a harness
failure, an unexpected end or a test that ran out of heap or threads in such a JVM is judged again in a
fresh one too: an earlier candidate could have caused it. A behaviour probe runs where no other
candidate's code ran: the candidate's own confirming JVM, a pool JVM that ran only this candidate or
nothing untrusted, or a new JVM.

Only the tests that can notice the change run (:mod:`narrowing`): the trigger tests and the tests
that executed the method, recorded in a run of every test on the buggy version (trusted code).

A candidate that changes the method's declaration in a way other classes can see (see
:mod:`declaration`) is validated by a rebuild instead: classes compiled against the old
declaration might no longer link, where a full build would recompile them. On a Defects4J
checkout Defects4J's own build does it (:mod:`defects4j_rebuild`), elsewhere the rebuild engine.
"""

from __future__ import annotations

import collections
import functools
import logging
import queue
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from defects4j_adapter.behaviour.observations import ProbeRun
from defects4j_adapter.bytecode import closed_init
from defects4j_adapter.contract import (
    COMPILER_MEMORY_MB,
    EngineOptions,
    Outcome,
    Phase,
    Workspace,
    passes,
    register_engine,
)
from defects4j_adapter.engines import class_check, declaration, jobs, linkage, narrowing, pace, probing, runner_output
from defects4j_adapter.engines import defects4j_rebuild as d4j_rebuild
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.jvm import os_wall, report_signing, runner
from defects4j_adapter.jvm.report_signing import JobKey
from defects4j_adapter.sandbox.base import Limits, Sandbox
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.domain import Bug, Engine
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.retry import Backoff, retry
from nl2fix.core.story import tell

log = logging.getLogger(__name__)

START_TIMEOUT = 120.0
JVM_START_BACKOFF = Backoff(attempts=2, first_delay=1.0)
"""One more try for a warm JVM that did not start (a start that hangs costs START_TIMEOUT a try)."""
JOB_WALL_FACTOR = 4
"""A job that waits rather than computes is stopped at this many times its time limit (the candidate's)."""
MAX_JOBS_PER_JVM = 300
"""A fresh JVM after this many candidates, so class metadata and JIT code do not pile up."""
REBUILT = "the declaration changed in a way other classes can see, so everything was recompiled"
FRESH_DECIDES = "it passed in a JVM that had run other candidates' code, not in a fresh one: the fresh JVM decides"
RECHECKED = "judged again in a fresh JVM: the first JVM had run other candidates' code"
FRESH_JVM = "(the fresh JVM)"
"""The failing "test" a candidate's non-pass in its fresh confirming JVM is blamed on, when no test failed."""
FAILED_BEFORE = 8
"""How many of the tests that failed earlier candidates a JVM that judged other candidates runs after the
triggers (:class:`_Failures`)."""
FAILED_TWICE = 2
"""Candidates a test must have failed before it is tried for :class:`_Failures`."""
KEPT_PER_WORKER = 8
"""Compiled classes a worker's candidates keep for their probes (:class:`_Kept`): a probe follows its
candidate's validation, so a few per worker suffice."""


JUNIT_TIME_LIMIT = re.compile(r"\btest timed out after \d+ milliseconds")
"""JUnit 4's own failure of a test over its ``@Test(timeout = ...)`` (``TestTimedOutException``, an ``Exception``
before 4.12): a limit met or not as the JVM runs fast, like the runner's own."""


def unsettled(outcome: Outcome) -> bool:
    """An outcome that code run earlier in the same JVM could have caused, and that is no pass: a time
    limit (the runner's or a test's own: a warm JVM's quick JIT compiler runs hot loops slower than Defects4J's
    JVM), a harness failure, a JVM that ended, a test during which the JVM ran out of heap or threads."""
    return (
        outcome.timed_out
        or bool(outcome.harness_error)
        or outcome.jvm_died
        or outcome.ran_out
        or any(JUNIT_TIME_LIMIT.search(outcome.messages.get(t, "")) for t in outcome.failing_tests)
    )


def _disagree(warm: Outcome, fresh: Outcome, *, warm_ran_all: bool, known: frozenset[str]) -> bool:
    """Whether a fresh JVM's outcome contradicts the warm JVM's pass: it does not pass what the warm JVM
    ran (``known``: tests that fail on the fixed version aside), or the harness failed. Tests the warm
    JVM did not run (``warm_ran_all`` false: its triggers only) are the fresh JVM's to judge."""
    if passes(fresh, known):
        return False
    if warm_ran_all or fresh.harness_error:
        return True
    vouched = set(warm.passed_tests or ())
    vouched |= {test.split("::")[0] for test in vouched}  # a class-level failure of a class it ran
    return bool(vouched & {*fresh.failing_tests, *fresh.timed_out_tests})


def confirmed(warm: Outcome, fresh: Outcome, *, warm_ran_all: bool, known: frozenset[str] = frozenset()) -> Outcome:
    """The verdict's outcome of a warm JVM's pass confirmed by a fresh JVM's run ``fresh``: the fresh
    JVM, which ran no other candidate's code, is the reference. When the two disagree the candidate is
    not passed, with that reason: the fresh run's failures where it names them, else a failure of
    :data:`FRESH_JVM` (its runner failing after the candidate's code ran is the candidate's doing).
    Only a fresh JVM that could not take the job at all (nothing compiled in it) is the harness's
    fault. ``known``: tests that fail on the fixed version (not held against the candidate)."""
    if not _disagree(warm, fresh, warm_ran_all=warm_ran_all, known=known) or (
        fresh.harness_error and not fresh.compiled
    ):
        return fresh
    if fresh.failing_tests or (fresh.timed_out and not fresh.harness_error):
        return replace(fresh, harness_error="").noted(FRESH_DECIDES, first=True)
    why = fresh.harness_error or "it did not pass"
    return Outcome(
        phase=fresh.phase,
        compiled=True,
        tests_run=max(1, fresh.tests_run),
        failing_tests=(FRESH_JVM,),
        messages={FRESH_JVM: why},
        cpu_seconds=fresh.cpu_seconds,
        detail=FRESH_DECIDES,
    )


def may_probe_in(ran: frozenset[str] | set[str], candidate: str, *, trusted: bool) -> bool:
    """Whether a JVM in which the candidates ``ran`` ran may probe ``candidate``: one that ran no other
    candidate's code (a trusted probe, the reference against itself, needs one that ran none at all),
    so the behaviour label cannot depend on earlier candidates."""
    return not ran or (not trusted and set(ran) == {candidate})


def compiler_failure(*, killed_for_time: bool, ended: int, seconds: float) -> Outcome | None:
    """javac's own failure on a file, from how its compiling JVMs' jobs ended: ``uncompilable`` with
    the reason, not a harness fault, when the compile met its limit of ``seconds`` or a compiling JVM
    ended while compiling it ``ended`` times, twice (javac out of stack or heap inside the JVM the
    runner reports as a compile error itself); None otherwise."""
    if killed_for_time:
        why = f"javac did not finish compiling this file within its limit ({seconds:g} s)"
    elif ended >= 2:
        why = "the compiling JVM ended while compiling this file, twice"
    else:
        return None
    return Outcome(phase=Phase.COMPILE, compiled=False, compile_errors=why)


@dataclass(frozen=True)
class TestChoice:
    """Which tests a job runs: every relevant test (the default), the recording job's (every test, with
    the calls of the method named ``reach`` recorded, under ``key``), or a narrowed set (``plan``); with
    ``triggers_only`` the trigger tests, then the tests of ``failed_before`` alone."""

    reach: str | None = None
    key: str = ""
    plan: narrowing.Plan | None = None
    triggers_only: bool = False
    failed_before: tuple[str, ...] = ()
    """With ``triggers_only``: tests (``Class::method``) that failed earlier candidates of the bug
    (:class:`_Failures`), run after the triggers."""

    def warm(self, failed_before: tuple[str, ...]) -> TestChoice:
        """What a JVM that judged other candidates runs of this choice: the triggers, then those of
        ``failed_before`` this choice runs too (a narrowed plan's tests only)."""
        plan = self.plan

        def chosen(test: str) -> bool:
            label = test.split("::")[0]
            return plan is None or label in plan.relevant and test in plan.only.get(label, (test,))

        return replace(self, triggers_only=True, failed_before=tuple(filter(chosen, failed_before)))

    def only(self) -> dict[str, tuple[str, ...]]:
        """The runner job's ``only``: of each relevant class, the tests that run (every test of a class not named)."""
        if not self.triggers_only:
            return self.plan.only if self.plan else {}
        grouped: dict[str, tuple[str, ...]] = {}
        for test in self.failed_before:
            label = test.split("::")[0]
            grouped[label] = (*grouped.get(label, ()), test)
        return grouped


class _Failures:
    """Per bug, tests other than its triggers that candidates failed, in the order they failed a second one. A
    JVM that judged other candidates runs the first :data:`FAILED_BEFORE` of them after the triggers: a
    candidate that passes the triggers and fails one of these (RepairBench's answers: 32 of 123 failed in
    the fresh JVM, each on one of six tests) is then wrong there, at the cost of a few tests, where it
    cost a fresh JVM's start and run. A test run there without the tests its class runs before it could
    fail for that alone (one that needs what an earlier test of its class left), and a failure there is
    final, as a trigger's is: so a test joins only once the developer's fix has passed the triggers and
    every test that joined before it and it, run as such a JVM runs them (:meth:`FastEngine._learn`).
    Which of a wrong candidate's failures is named can depend on the candidates before it; its verdict
    cannot."""

    def __init__(self) -> None:
        self._joined: dict[str, list[str]] = collections.defaultdict(list)
        self._failed: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self._tried: dict[str, set[str]] = collections.defaultdict(set)
        self._lock = threading.Lock()

    def new(self, ws: Workspace, outcome: Outcome, known: frozenset[str]) -> list[str]:
        """The tests ``outcome`` failed that have now failed :data:`FAILED_TWICE` candidates and were not tried
        yet, now counted as tried: a test that fails one candidate only would cost its trial and save nothing."""
        triggers = set(ws.trigger_tests)
        with self._lock:
            failed, tried = self._failed[str(ws.root)], self._tried[str(ws.root)]
            failed.update(t for t in outcome.failing_tests if "::" in t and t not in triggers | known)
            room = max(0, FAILED_BEFORE - len(self._joined[str(ws.root)]))
            due = [t for t in outcome.failing_tests if failed[t] >= FAILED_TWICE and t not in tried][:room]
            tried.update(due)
            return due

    def join(self, ws: Workspace, test: str) -> None:
        with self._lock:
            self._joined[str(ws.root)].append(test)

    def of(self, ws: Workspace) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._joined[str(ws.root)])


@dataclass(frozen=True)
class CandidateJob:
    """One validation as the fast engine's steps hand it on: the method (a candidate, or one of the
    project's own versions) in its workspace, and how it is run (:meth:`FastEngine.run`'s arguments)."""

    ws: Workspace
    method: str
    known_failures: frozenset[str] = frozenset()
    """Tests that fail on the fixed version too: a failure of theirs does not end the run."""
    stop_at_first_failure: bool = True
    log_dir: Path | None = None

    @classmethod
    def every_test(cls, ws: Workspace, method: str) -> CandidateJob:
        """A trusted version's run of every test, its logs not kept (the recording's runs)."""
        return cls(ws, method, stop_at_first_failure=False)

    @property
    def trusted(self) -> bool:
        """The buggy or the fixed version: the project's own code, no candidate's."""
        return _trusted(self.ws, self.method)

    def on(self, ws: Workspace) -> CandidateJob:
        """The same job on another workspace (a rebuilt copy of this one)."""
        return replace(self, ws=ws)


def described(tests: TestChoice, ws: Workspace) -> str:
    """Which tests a job of ``tests`` runs, in a candidate's story."""
    if tests.triggers_only:
        failed = len(tests.failed_before)
        return f"its {len(ws.trigger_tests)} trigger test(s), then {failed} that failed earlier candidates"
    if tests.reach is not None:
        return "every test, recording which ones reach the method"
    if tests.plan is not None:
        return (
            f"its {len(ws.trigger_tests)} trigger test(s), then the {len(tests.plan.relevant)} relevant test "
            f"class(es) that can notice the change ({len(tests.plan.left_out)} test(s) left out: they never "
            "execute the method)"
        )
    return f"its {len(ws.trigger_tests)} trigger test(s), then every relevant test class ({len(ws.relevant_tests)})"


def _trusted(ws: Workspace, method: str) -> bool:
    """The buggy or the fixed version: the project's own code, no candidate's."""
    return method in (ws.bug.buggy_method, ws.bug.fixed_method)


def over_budget(wall: float, cpu: float, seconds: float) -> bool:
    """Whether a job has used up its time limit of ``seconds``: as many of wall-clock time and of
    CPU, or :data:`JOB_WALL_FACTOR` times as many of wall-clock time whatever it used (a loaded
    machine stretches a busy job's wall-clock time, not its CPU time; a job that waits uses none)."""
    return wall >= seconds * JOB_WALL_FACTOR or (wall >= seconds and cpu >= seconds)


class _Pool:
    """Idle JVMs by workspace, at most ``cap`` in all: the least recently used go first."""

    def __init__(self, cap: int):
        self.cap = max(1, cap)
        self.idle: dict[str, list[WarmJvm]] = {}
        self.order: list[WarmJvm] = []
        self.lock = threading.Lock()

    def take(self, key: str, accept: Callable[[WarmJvm], bool] = lambda jvm: True) -> WarmJvm | None:
        """The live idle JVM of ``key`` given last that ``accept`` accepts (dead ones met on the way are
        closed)."""
        dead = []
        found = None
        with self.lock:
            idle = self.idle.get(key, [])
            for jvm in reversed(list(idle)):
                if not jvm.alive:
                    dead.append(jvm)
                elif accept(jvm):
                    found = jvm
                    break
            for jvm in [*dead, *([found] if found else [])]:
                idle.remove(jvm)
                self.order.remove(jvm)
        for jvm in dead:
            jvm.close()
        return found

    def give(self, key: str, jvm: WarmJvm) -> None:
        if not jvm.alive:
            jvm.close()
            return
        with self.lock:
            self.idle.setdefault(key, []).append(jvm)
            self.order.append(jvm)
            surplus = self.order[: max(0, len(self.order) - self.cap)]
            for old in surplus:
                self.order.remove(old)
                for pool in self.idle.values():
                    if old in pool:
                        pool.remove(old)
        for old in surplus:
            old.close()

    def close(self) -> None:
        with self.lock:
            everything, self.idle, self.order = self.order, {}, []
        for jvm in everything:
            jvm.close()


@dataclass(frozen=True)
class Compiled:
    """A candidate's classes as the compiling JVM compiled them and the class-file check passed them."""

    classes: dict[str, bytes]
    """By binary name (dots)."""
    note: str
    """What the splice had to say."""
    cpu_seconds: float


class _Kept:
    """Compiled classes by key, the ``cap`` most recently kept (older ones are compiled again when
    asked for: keeping every candidate's classes of a long run would only cost memory)."""

    def __init__(self, cap: int):
        self.cap = cap
        self.kept: collections.OrderedDict[str, Compiled] = collections.OrderedDict()
        self.lock = threading.Lock()

    def keep(self, key: str, compiled: Compiled) -> None:
        with self.lock:
            self.kept[key] = compiled
            self.kept.move_to_end(key)
            while len(self.kept) > self.cap:
                self.kept.popitem(last=False)

    def get(self, key: str, pop: bool = False) -> Compiled | None:
        with self.lock:
            return self.kept.pop(key, None) if pop else self.kept.get(key)


class JvmFailure(Exception):
    """The warm JVM could not be started or answered nonsense: a harness problem."""


@dataclass
class Answer:
    text: str
    killed_for_time: bool
    stderr_tail: str
    cpu_seconds: float


class WarmJvm:
    """One ``serve``-mode runner in the sandbox, for one workspace."""

    def __init__(
        self,
        sandbox: Sandbox,
        ws: Workspace,
        runner_dir: Path,
        options: EngineOptions,
        one_job: bool = False,
        memory_mb: int | None = None,
        full_jit: bool = False,
    ):
        self.inbox = Path(tempfile.mkdtemp(prefix=f"warm-{ws.bug.id}-", dir=self._jobs_root(options)))
        self.label = self.inbox.name.rsplit("-", 1)[-1]
        """Names the JVM in a candidate's story."""
        self.inbox.chmod(0o755)
        precompiled = sandbox.precompiled()
        self.mounts = jobs.workspace_mounts(
            ws, runner_dir, read_only=[self.inbox], scratch=self.inbox / "scratch", precompiled=precompiled
        )
        closed = closed_init.classes(ws.classes_dir)
        self.closed_init = jobs.write_classes(closed, self.inbox / "closed-init") if closed else None
        """The project's classes whose static initialiser is closed, rewritten (:mod:`closed_init`): every job's."""
        argv = runner.jvm_command(
            runner_dir,
            memory_mb=memory_mb or options.settings.memory_mb,
            tmp_dir=sandbox.tmp_dir(self.mounts),
            mode=["serve"],
            test_classpath=ws.classpath,
            java=sandbox.test_java(),
            full_jit=full_jit,
            confined=sandbox.confined,
            job_dirs=sandbox.job_dirs(self.mounts),
            hidden=sandbox.hidden_places(self.mounts),
            precompiled=precompiled,
        )
        self.sandbox = sandbox
        self.proc = sandbox.spawn(argv, self.mounts, Limits(wall_seconds=options.settings.candidate_timeout))
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=200)
        self.one_job = one_job
        self.jobs_done = 0
        self.ran: set[str] = set()
        """The candidates whose code (tests, behaviour probe) has run here; the buggy and the fixed
        version's are trusted and not among them. Empty: the JVM is fresh, and what could make a pass
        there is the candidate's own doing."""
        self.needs_restart = False
        self.startup_cpu = 0.0
        """CPU-s of its start until it was ready for a job."""
        threading.Thread(target=self._read_lines, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self._startup()

    @staticmethod
    def _jobs_root(options: EngineOptions) -> Path:
        root = options.cache_dir / jobs.JOBS_DIR
        root.mkdir(parents=True, exist_ok=True)
        return root

    def _read_lines(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw.decode("utf-8", errors="replace"))
        self.lines.put(None)

    def _read_stderr(self) -> None:
        # drained all along, so a chatty test can never block the JVM on a full pipe
        for raw in iter(self.proc.stderr.readline, b""):
            self.stderr.append(raw.decode("utf-8", errors="replace"))

    def _startup(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            if line.startswith(runner_output.PREFIX + "READY"):
                self.preamble = "".join(seen)
                try:
                    os_wall.require_closed(self.preamble, confined=self.sandbox.confined, started=True)
                except Nl2FixError:
                    self.close(graceful=False)
                    raise
                self.startup_cpu = self.sandbox.cpu_seconds(self.proc)
                return
        self.close()
        raise JvmFailure("the warm test JVM did not start: " + "".join(self.stderr)[-1500:])

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and not self.needs_restart

    def ask(self, request: Path, job_id: str, key: JobKey, seconds: float) -> Answer | None:
        """Send one request with its key; read its report until the runner's signed ``END`` or the
        deadline (then kill the JVM). None when the JVM was gone before it could take the job."""
        before = self.sandbox.cpu_seconds(self.proc)
        try:
            self.proc.stdin.write(f"{request} {key.hex}\n".encode())
            self.proc.stdin.flush()
        except OSError:
            self.close(graceful=False)
            return None
        start = time.monotonic()
        lines, killed = [self.preamble], False
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, min(1.0, start + seconds * JOB_WALL_FACTOR - time.monotonic())))
            except queue.Empty:
                if self._over_budget(start, before, seconds):
                    killed = True
                    break
                continue
            if line is None:
                break
            lines.append(line)
            # only the runner's signed end ends the job: a forged one would leave the real report
            # to be read as the next job's
            if runner_output.is_signed_end(line, key, job_id):
                break
        text = "".join(lines)
        self.jobs_done += 1
        job = runner_output.read_job(text, key, job_id)
        if not job.started and not killed:
            self.close(graceful=False)
            return None
        if killed or job.signed is None or job.signed.restart or self.jobs_done >= MAX_JOBS_PER_JVM:
            self.needs_restart = True
        if self.needs_restart:
            cpu = max(0.0, self.close(graceful=not killed) - before)
        else:
            cpu = self.sandbox.cpu_seconds(self.proc) - before
        return Answer(text, killed, "".join(self.stderr)[-4000:], cpu)

    def _over_budget(self, start: float, cpu_before: float, seconds: float) -> bool:
        wall = time.monotonic() - start
        # CPU is read only once the wall-clock limit is reached: the sandbox's account costs a little
        return wall >= seconds and over_budget(wall, self.sandbox.cpu_seconds(self.proc) - cpu_before, seconds)

    def close(self, graceful: bool = True) -> float:
        """Stop the JVM (asked first, by closing its input, so its CPU time is counted; killed if it
        does not go); its total CPU seconds."""
        self.needs_restart = True
        cpu = self.sandbox.stop(self.proc, graceful)
        shutil.rmtree(self.inbox, ignore_errors=True)
        return cpu


@register_engine
class FastEngine:
    name = Engine.FAST

    def __init__(self, options: EngineOptions):
        self.options = options
        self.sandbox = options.confining_sandbox(self.name)
        self.runner_dir = runner.runner_classes(options.cache_dir)
        self.rebuild = RebuildEngine(options)
        self.d4j_rebuild = d4j_rebuild.Defects4JRebuild(options)
        self._warm = _Pool(options.settings.workers)
        self._compilers = _Pool(options.settings.workers)
        """JVMs that only compile: no candidate's code runs in them."""
        self._confirmers = _Pool(options.settings.workers)
        """Confirming JVMs of candidates that passed there, by workspace and candidate, kept for that
        candidate's behaviour probe (a plausible candidate's comes next): they ran no other candidate's
        code, and need no start of their own."""
        self._failures = _Failures()
        self._pace = pace.Pace(self.options.cache_dir)
        self._checkers = _Pool(options.settings.workers)
        """JVMs that run the developer's fix alone, where a test that failed a candidate is tried before it joins
        :attr:`_failures` (:meth:`_learn`)."""
        self._passed = _Kept(KEPT_PER_WORKER * max(1, options.settings.workers))
        """The classes of candidates that passed, by workspace and candidate, as compiled and checked for
        their validation: their behaviour probe (it comes next) runs those, not a compile of its own."""
        self._probe_sources = _Kept(KEPT_PER_WORKER * max(1, options.settings.workers))
        """Compiled probe sources by workspace and text: the text holds the reference, not the candidate
        (:func:`probe_source.probe_methods`), so a bug's probes share one compile."""
        self._lock = threading.Lock()
        self._counter = 0
        self.start_backoff = JVM_START_BACKOFF
        self.narrow = narrowing.enabled()
        self._recordings: dict[str, narrowing.Recording] = {}
        self._recording_lock = threading.Lock()
        self._recording_cpu: dict[str, float] = {}
        """CPU-s of recordings made on the way to a run, counted in that run's."""
        self._timing_lock = threading.Lock()
        self._timing_tried: set[str] = set()

    def prepare(self, bug: Bug) -> Workspace:
        return prepare_workspace(bug, self.options)

    # -- the pools of warm JVMs: at most `workers` idle ones of each kind --
    def _acquire(self, ws: Workspace) -> WarmJvm:
        return self._warm.take(str(ws.root)) or self._new(ws)

    def _new(self, ws: Workspace, one_job: bool = False, compiler: bool = False, full_jit: bool = False) -> WarmJvm:
        """A warm JVM for ``ws``: a test JVM (``one_job``: closed after its job, not kept warm), or with ``compiler``
        one that only compiles (its heap :data:`COMPILER_MEMORY_MB`); the quick JIT compiler only
        (:data:`runner.QUICK_JIT`) unless ``full_jit``."""
        memory = COMPILER_MEMORY_MB if compiler else None
        return retry(
            lambda: WarmJvm(self.sandbox, ws, self.runner_dir, self.options, one_job or compiler, memory, full_jit),
            what=f"starting the warm test JVM for {ws.bug.id}",
            transient=lambda exc: isinstance(exc, JvmFailure),
            backoff=self.start_backoff,
        )

    def _release(self, ws: Workspace, jvm: WarmJvm) -> None:
        if jvm.one_job:  # a confirming JVM, kept for its candidate's probe at most
            jvm.close()
        else:
            self._warm.give(str(ws.root), jvm)

    @staticmethod
    def _own(ws: Workspace, method: str) -> str:
        return f"{ws.root}\n{method}"

    def close(self) -> None:
        self._warm.close()
        self._compilers.close()
        self._confirmers.close()
        self._checkers.close()

    def _job_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"c{self._counter}"

    def compile(self, ws: Workspace, method: str, log_dir: Path | None = None) -> Compiled | Outcome:
        """``method`` spliced into its file and compiled by a compiling JVM, its classes read by the
        class-file check; or the outcome that ends the candidate there (it does not splice or compile,
        or the check refuses it). A compiling JVM runs no candidate's code, so what one candidate did
        cannot change what another compiles into."""
        made = self.compile_source(ws, lambda dest: jobs.write_spliced(ws, method, dest), log_dir)
        if isinstance(made, Outcome):
            return made
        checked = class_check.checked(
            Outcome(phase=Phase.COMPILE, compiled=True, cpu_seconds=made.cpu_seconds),
            lambda: class_check.rejection(ws, class_check.from_report(made.classes)),
        )
        tell(log, "class-file check: %s", checked.rejection or checked.harness_error or "passed")
        return checked.noted(made.note, first=True) if checked.rejection or checked.harness_error else made

    def compile_source(
        self,
        ws: Workspace,
        write: Callable[[Path], jobs.SplicedFile | Outcome],
        log_dir: Path | None = None,
        compile_classpath: tuple[Path, ...] = (),
    ) -> Compiled | Outcome:
        """The source file ``write`` makes (given its path) compiled by a compiling JVM of ``ws``
        (``compile_classpath`` before the workspace's), or the outcome when it cannot be written or
        does not compile. javac's own failure on the file is the file's (:func:`compiler_failure`):
        the compiling JVM is replaced, and the next file meets a new one."""
        key = str(ws.root)
        ended = 0
        # a compiling JVM found gone before it answered is replaced, and one that ended while compiling
        # is given the file once more
        for _ in range(3):
            try:
                jvm = self._compilers.take(key) or self._new(ws, compiler=True)
            except JvmFailure as exc:
                return Outcome(phase=Phase.COMPILE, compiled=False, harness_error=str(exc))
            job_id = self._job_id()
            job = jvm.inbox / job_id
            job.mkdir(mode=0o755)
            try:
                source = write(job / ws.buggy_file().name)
                if isinstance(source, Outcome):
                    return source
                request = jobs.runner_job(
                    ws,
                    job_id,
                    known=frozenset(),
                    stop_at_first_failure=True,
                    test_timeout=self.options.settings.test_timeout,
                    source=source.path,
                )
                request.compile_only = True
                request.compile_classpath[:0] = compile_classpath
                request_file = request.write(job / "request.txt")
                secret = report_signing.new_key()
                answer = jvm.ask(request_file, job_id, secret, self.options.settings.candidate_timeout)
                if answer is None:
                    continue
                jobs.keep(log_dir, {source.path.name: source.path, "compile.out": answer.text})
                report = runner_output.read_job(answer.text, secret, job_id)
                if report.signed is None and not answer.killed_for_time:
                    ended += 1
                    if ended < 2:
                        continue
                failure = compiler_failure(
                    killed_for_time=answer.killed_for_time, ended=ended, seconds=self.options.settings.candidate_timeout
                )
                if failure is not None:
                    tell(
                        log,
                        "%s: javac failed in compiling JVM %s: %s",
                        source.path.name,
                        jvm.label,
                        failure.compile_errors,
                    )
                    return replace(failure, cpu_seconds=answer.cpu_seconds).noted(source.note, first=True)
                if report.signed is None or not report.signed.compiled:
                    outcome = runner_output.job_outcome(
                        report, killed_for_time=answer.killed_for_time, stderr_tail=answer.stderr_tail, triggers=()
                    )
                    tell(log, "%s: did not compile in compiling JVM %s", source.path.name, jvm.label)
                    return replace(outcome, cpu_seconds=answer.cpu_seconds).noted(source.note, first=True)
                tell(
                    log,
                    "%s: compiled in compiling JVM %s (no candidate's code runs there)",
                    source.path.name,
                    jvm.label,
                )
                return Compiled(dict(report.class_files), source.note, answer.cpu_seconds)
            finally:
                shutil.rmtree(job, ignore_errors=True)
                self._compilers.give(key, jvm)
        return Outcome(phase=Phase.COMPILE, compiled=False, harness_error="the compiling JVM kept dying")

    def run(
        self,
        workspace: Workspace,
        method: str,
        *,
        known_failures: frozenset[str] = frozenset(),
        stop_at_first_failure: bool = True,
        log_dir: Path | None = None,
    ) -> Outcome:
        job = CandidateJob(workspace, method, known_failures, stop_at_first_failure, log_dir)
        if not declaration.affects_other_classes(workspace.bug.buggy_method, method):
            outcome = self.run_compiled(job)
        elif d4j_rebuild.is_checkout(workspace):
            tell(log, "the declaration changed in a way other classes can see: Defects4J rebuilds the checkout")
            # rebuilt callers may bind to a changed declaration: every relevant test runs
            outcome = self.d4j_rebuild.run(
                workspace,
                method,
                log_dir=log_dir,
                tests=lambda rebuilt: self.run_compiled(job.on(rebuilt), narrow=False),
            )
        else:
            tell(log, "the declaration changed in a way other classes can see: the rebuild engine recompiles all")
            outcome = self.rebuild.run(
                workspace,
                method,
                known_failures=known_failures,
                stop_at_first_failure=stop_at_first_failure,
                log_dir=log_dir,
            )
            return outcome.noted(REBUILT, first=True)
        return linkage.noted(outcome, workspace)

    def recording(self, workspace: Workspace) -> narrowing.Recording:
        """Which tests execute the buggy method (:mod:`narrowing`): the cached recording of this
        workspace, or a run of every test on the buggy version that records it (when no
        baseline made it)."""
        key = narrowing.recording_key(workspace)
        with self._recording_lock:
            found = self._recordings.get(key) or narrowing.load(self.options.cache_dir, workspace, key)
            if found is None:
                tell(log, "recording which tests execute the method: every test run on the buggy version")
                outcome, _ = self._in_jvm(
                    CandidateJob.every_test(workspace, workspace.bug.buggy_method),
                    fresh_jvm=False,
                    tests=self._recording_job(workspace, key),
                )
                self._recording_cpu[key] = self._recording_cpu.get(key, 0.0) + outcome.cpu_seconds
                found = narrowing.load(self.options.cache_dir, workspace, key) or narrowing.from_report(None, key)
            if found.whole and not found.checked:
                found = self._checked(workspace, found)
            self._recordings[key] = found
            return found

    def _timed(self, ws: Workspace) -> float:
        """How long the reference takes on each test (:mod:`pace`), learnt where no baseline's run taught it
        (a run resumed after the cache was emptied; an engine called directly): one run of every test on
        it, in a JVM no candidate's code ran in, once a workspace; the CPU-s it took, the candidate's to pay."""
        if self._pace.known(ws):
            return 0.0
        with self._timing_lock:
            if self._pace.known(ws) or str(ws.root) in self._timing_tried:
                return 0.0
            self._timing_tried.add(str(ws.root))
            tell(log, "timing the reference: every test run on it, to pace the candidates' time limits")
            outcome, _ = self._in_jvm(CandidateJob.every_test(ws, pace.reference_of(ws)), fresh_jvm=True, full_jit=True)
            return outcome.cpu_seconds

    def _checked(self, workspace: Workspace, recording: narrowing.Recording) -> narrowing.Recording:
        """``recording`` once the buggy version's narrowed run agrees with its whole run
        (:func:`narrowing.checked`), saved as it stands."""
        plan = narrowing.plan_for(recording, workspace)
        if plan is None:
            return recording.model_copy(update={"checked": True})
        tell(log, "checking the recording: the buggy version's narrowed run must fail as its whole run did")
        outcome, _ = self._in_jvm(
            CandidateJob.every_test(workspace, workspace.bug.buggy_method), fresh_jvm=False, tests=TestChoice(plan=plan)
        )
        self._recording_cpu[recording.key] = self._recording_cpu.get(recording.key, 0.0) + outcome.cpu_seconds
        checked = narrowing.checked(recording, plan, workspace, [*outcome.failing_tests, *outcome.timed_out_tests])
        if outcome.harness_error or not outcome.compiled:
            checked = checked.model_copy(
                update={
                    "whole": False,
                    "why_not_whole": "the buggy version's narrowed "
                    f"run did not complete: {outcome.harness_error or 'not compiled'}",
                }
            )
        checked = checked.model_copy(update={"checked": True})
        narrowing.save(self.options.cache_dir, workspace, checked)
        return checked

    def _recording_job(self, workspace: Workspace, key: str) -> TestChoice:
        return TestChoice(reach=narrowing.reach_method(workspace) or "", key=key)

    def _tests(self, job: CandidateJob) -> TestChoice:
        """The reference's baseline (the fixed version's; the buggy one's where there is no fix) runs every
        test, uninstrumented: the recording's call in a hot loop slows a test down (Csv-1's ``testRandom`` met its
        limit with it), and the ground truth's verdict must not pay for the recording. Every other run
        (the buggy baseline too) runs the tests that can notice the change, recorded first (a run of
        its own, :meth:`recording`) when they are not yet."""
        if not self.narrow:
            return TestChoice()
        bug = job.ws.bug
        if job.method == (bug.fixed_method or bug.buggy_method) and not job.stop_at_first_failure:
            return TestChoice()
        return TestChoice(plan=narrowing.plan_for(self.recording(job.ws), job.ws))

    def probe(
        self,
        workspace: Workspace,
        reference: str,
        candidate: str,
        *,
        tests: frozenset[str] | None = None,
        log_dir: Path | None = None,
        developer_fix: bool = True,
        skip: frozenset[str] = frozenset(),
        steady: Mapping[str, str] | None = None,
    ) -> ProbeRun:
        """A behaviour probe of ``candidate`` beside ``reference`` (the developer's fix, else the buggy
        method standing in for one) in a warm JVM (:mod:`probing`): the probe source compiled by a
        compiling JVM once a bug, and the candidate's classes as its validation compiled them (compiled
        again only when they are no longer kept, or it was not validated here); ``skip``: digests of inputs
        run on neither body (:func:`nl2fix.validation.behaviour.passed_over`); ``steady``: digests of inputs
        the reference runs on once, with its outcome's (:func:`probing.probe`)."""
        text = probing.probe_text(workspace, reference, candidate)
        if isinstance(text, ProbeRun):
            return text
        made = self._probe_source(workspace, text, log_dir)
        if isinstance(made, Outcome):
            return ProbeRun(
                error="the probe source does not compile: " + (made.compile_errors or made.harness_error)[:500],
                cpu_seconds=made.cpu_seconds,
            )
        # the candidate's class exactly as validation compiled and checked it: its code cannot tell a probe
        own = self._passed.get(self._own(workspace, candidate), pop=True) or self.compile(workspace, candidate, log_dir)
        if isinstance(own, Outcome):
            return ProbeRun(
                error="not probed: the candidate does not compile as validated",
                cpu_seconds=made.cpu_seconds + own.cpu_seconds,
            )
        jvm = self._probing_jvm(workspace, candidate)
        tell(
            log,
            "behaviour probe in test JVM %s (%s)",
            jvm.label,
            "only this candidate ran there" if jvm.ran else "no candidate's code ran there",
        )
        try:
            if not _trusted(workspace, candidate):
                jvm.ran.add(candidate)
            run = probing.probe(
                jvm,
                workspace,
                self._job_id(),
                made.classes,
                own.classes,
                tests=tests,
                test_timeout=self.options.settings.test_timeout,
                job_timeout=self.options.settings.candidate_timeout,
                log_dir=log_dir,
                developer_fix=developer_fix,
                budget=0.0 if candidate == reference else probing.CANDIDATE_BUDGET,
                skip=skip,
                steady=steady,
            )
        finally:
            self._release(workspace, jvm)
        run.cpu_seconds += made.cpu_seconds + own.cpu_seconds
        return run

    def _probe_source(self, ws: Workspace, text: str, log_dir: Path | None) -> Compiled | Outcome:
        """The probe source ``text`` compiled: by a compiling JVM the first time, then as kept (its compile
        counted once, by the probe that made it)."""
        key = self._own(ws, text)
        kept = self._probe_sources.get(key)
        if kept is not None:
            return replace(kept, cpu_seconds=0.0)
        made = self.compile_source(
            ws, lambda dest: probing.write_source(ws, text, dest), log_dir, compile_classpath=(self.runner_dir,)
        )
        if isinstance(made, Compiled):
            self._probe_sources.keep(key, made)
        return made

    def _probing_jvm(self, ws: Workspace, candidate: str) -> WarmJvm:
        """Where ``candidate``'s probe runs (:func:`may_probe_in`): its own confirming JVM, kept since it
        passed there, else an idle JVM that ran only this candidate or nothing untrusted, else a new one."""
        trusted = _trusted(ws, candidate)
        kept = None if trusted else self._confirmers.take(self._own(ws, candidate))
        if kept is not None:
            return kept

        def allowed(jvm: WarmJvm) -> bool:
            return may_probe_in(jvm.ran, candidate, trusted=trusted)

        key = str(ws.root)
        # one that ran this candidate first: one that ran none stays fresh for the next validation
        return (
            self._warm.take(key, lambda jvm: bool(jvm.ran) and allowed(jvm))
            or self._warm.take(key, allowed)
            or self._new(ws)
        )

    def _learn(self, job: CandidateJob, outcome: Outcome) -> float:
        """The tests ``outcome`` failed join the bug's :class:`_Failures` where the developer's fix passes them
        as a JVM that judged other candidates would run them (the triggers, the tests joined before, the test),
        in a JVM that runs the fix alone (:attr:`_checkers`: no candidate's code can have made it pass); the
        CPU-s it took, the candidate's to pay. Without a developer's fix (a user's own project) none joins."""
        fix = job.ws.bug.fixed_method
        due = self._failures.new(job.ws, outcome, job.known_failures) if fix else []
        if not due:
            return 0.0
        tried = CandidateJob(job.ws, fix, known_failures=job.known_failures)
        made = self.compile(job.ws, fix)
        if isinstance(made, Outcome):
            return made.cpu_seconds
        plan, key, cpu = self._tests(tried), str(job.ws.root), made.cpu_seconds
        for test in due:
            tests = plan.warm((*self._failures.of(job.ws), test))
            jvm = self._checkers.take(key)
            if jvm is None:
                jvm = self._new(job.ws)
                cpu += jvm.startup_cpu
            try:
                ran = self._run(jvm, tried, tests, made)
            finally:
                self._checkers.give(key, jvm)
            cpu += ran.cpu_seconds if ran else 0.0
            joins = ran is not None and passes(ran, job.known_failures) and test in (ran.passed_tests or ())
            if joins:
                self._failures.join(job.ws, test)
            tell(
                log,
                "%s: %s",
                test,
                "the fix passes it as a used JVM runs it, so a used JVM runs it after the triggers from now on"
                if joins
                else "the fix does not pass it as a used JVM would run it, so only fresh JVMs run it",
            )
        return cpu

    def run_compiled(self, job: CandidateJob, *, narrow: bool = True) -> Outcome:
        """Validate the job's method against its workspace's compiled classes (the fast path): compiled by a
        compiling JVM (:meth:`compile`), run in a test JVM. A pass in a JVM that ran other candidates'
        code first is run again in a fresh JVM, which decides (:func:`confirmed`): a JVM state an
        earlier candidate left (beyond what the runner restores and checks) could have made it pass. So
        is a time limit, a harness failure, an unexpected end or a test that ran out of heap there
        (:func:`unsettled`), which an earlier candidate could have caused.

        Such a JVM runs a candidate's trigger tests and the few tests that failed earlier candidates of
        the bug only (when the run stops at the first failure, :class:`_Failures`): most wrong candidates
        fail one and cost no fresh JVM, and one that passes them runs every other test once, in the fresh
        JVM, instead of twice. The fresh JVM's verdict on the tests the warm
        one did not run stands; a test the warm JVM passed that fails there is a disagreement."""
        start = time.monotonic()
        tests = self._tests(job) if narrow else TestChoice()
        # what the bug's candidates share, made on the way to this one: its CPU-s are this run's
        shared_cpu = self._recording_cpu.pop(narrowing.recording_key(job.ws), 0.0)
        shared_cpu += 0.0 if job.trusted else self._timed(job.ws)
        made = self.compile(job.ws, job.method, job.log_dir)
        if isinstance(made, Outcome):
            outcome = made
        else:
            outcome = self._tested(job, tests, made).costing(made.cpu_seconds).noted(made.note, first=True)
            if passes(outcome, job.known_failures) and not job.trusted:
                # counted in this validation: a probe of the candidate does not pay for it again
                self._passed.keep(self._own(job.ws, job.method), replace(made, cpu_seconds=0.0))
            elif not job.trusted:
                outcome = outcome.costing(self._learn(job, outcome))
        return replace(
            outcome,
            cpu_seconds=outcome.cpu_seconds + shared_cpu,
            wall_seconds=time.monotonic() - start,
            log_dir=job.log_dir,
        )

    def _tested(self, job: CandidateJob, tests: TestChoice, made: Compiled) -> Outcome:
        """The compiled candidate run in a warm test JVM, and a pass, or a non-pass an earlier candidate
        could have caused, judged again in a fresh one (see :meth:`run_compiled`)."""
        triggers_first = job.stop_at_first_failure and bool(job.ws.trigger_tests) and not job.trusted
        outcome, fresh = self._in_jvm(job, fresh_jvm=False, tests=tests, compiled=made, triggers_first=triggers_first)
        confirm = functools.partial(self._in_jvm, job, fresh_jvm=True, confirming=True, tests=tests, compiled=made)
        known = job.known_failures
        if not fresh and not passes(outcome, known) and unsettled(outcome):
            # the fresh JVM's outcome stands, on every test; the optimising JIT, as the warm JVM had
            tell(log, "not settled where other candidates' code ran: judged again in a fresh JVM, which decides")
            warm = outcome
            outcome, _ = confirm(full_jit=True)
            return outcome.costing(warm.cpu_seconds).noted(RECHECKED, first=True)
        if passes(outcome, known) and not fresh:
            tell(log, "passed where other candidates' code ran: confirmed in a fresh JVM, which decides")
            warm = outcome
            # the quick compiler only for a narrowed set: a whole run is long enough for the optimising
            # tier to pay (Math-3's 2,257 tests: 24.8 CPU-s with C1 only, 15.6 with it)
            outcome, _ = confirm(full_jit=tests.plan is None)
            if outcome.timed_out and tests.plan is not None:
                # its quick compiler's code is slower than the warm JVM's optimised code: a test near its
                # limit is given the JIT it passed with before the two count as disagreeing
                cpu = outcome.cpu_seconds
                outcome, _ = confirm(full_jit=True)
                outcome = outcome.costing(cpu)
            outcome = outcome.costing(warm.cpu_seconds)
            disagree = _disagree(warm, outcome, warm_ran_all=not triggers_first, known=known)
            tell(log, "the fresh JVM %s", "disagrees: it decides" if disagree else "agrees")
            outcome = confirmed(warm, outcome, warm_ran_all=not triggers_first, known=known)
        return outcome

    def _in_jvm(
        self,
        job: CandidateJob,
        *,
        fresh_jvm: bool,
        confirming: bool = False,
        full_jit: bool = False,
        tests: TestChoice = TestChoice(),
        compiled: Compiled | None = None,
        triggers_first: bool = False,
    ) -> tuple[Outcome, bool]:
        """One run of the job's tests in a test JVM (another if that one dies), and whether it came
        from a JVM in which no candidate's code had run before. A confirming JVM takes no other
        candidate: the warm JVM it confirmed stays the bug's, since the candidates after it run faster
        in a JVM the earlier ones warmed up; one in which the candidate passed is kept for its
        behaviour probe (:meth:`_probing_jvm`). It runs with the quick JIT
        (:data:`runner.QUICK_JIT`) unless ``full_jit`` (a fresh JVM's only). ``compiled``: the candidate's classes
        (compiled here when not given: the trusted versions' runs of :meth:`recording`).
        ``triggers_first``: a JVM that judged other candidates runs the trigger tests only."""
        own_compile = compiled is None
        if compiled is None:
            made = self.compile(job.ws, job.method, job.log_dir)
            if isinstance(made, Outcome):
                return made, False
            compiled = made
        outcome, cpu, deaths, fresh = None, compiled.cpu_seconds if own_compile else 0.0, 0, False
        # up to three JVMs: one found dead before it took the job is replaced, and one that died in
        # the candidate's hands is given a second run
        for _ in range(3):
            try:
                jvm = self._new(job.ws, confirming, full_jit=full_jit) if fresh_jvm else self._acquire(job.ws)
            except JvmFailure as exc:
                outcome = Outcome(phase=Phase.COMPILE, compiled=False, harness_error=str(exc))
                break
            fresh = not jvm.ran
            chosen = tests.warm(self._failures.of(job.ws)) if triggers_first and not fresh else tests
            state = "fresh: no candidate's code ran there" if fresh else f"warm: {len(jvm.ran)} candidate(s) ran there"
            tell(log, "test JVM %s (%s): %s", jvm.label, state, described(chosen, job.ws))
            try:
                outcome = self._run(jvm, job, chosen, compiled)
            finally:
                if confirming and outcome is not None and passes(outcome, job.known_failures) and not job.trusted:
                    self._confirmers.give(self._own(job.ws, job.method), jvm)
                elif confirming:
                    jvm.close()
                else:
                    self._release(job.ws, jvm)
            if outcome is None:
                tell(log, "test JVM %s was gone before it took the job", jvm.label)
                continue
            tell(log, "test JVM %s: %s", jvm.label, jobs.summary(outcome))
            # a confirming JVM is started for this candidate alone: its start-up is the candidate's cost
            cpu += outcome.cpu_seconds + (jvm.startup_cpu if confirming else 0.0)
            # a JVM that died in the candidate's hands gets one more, fresh JVM: a pass needs the
            # runner's signed report, and the second run decides
            if not outcome.jvm_died or deaths:
                break
            deaths += 1
            fresh_jvm = True
        if outcome is None:
            outcome = Outcome(phase=Phase.COMPILE, compiled=False, harness_error="the warm test JVM kept dying")
        if deaths and outcome.jvm_died:
            outcome = outcome.noted("the test JVM ended during the job twice", first=True)
        outcome = replace(outcome, cpu_seconds=cpu)
        return (outcome.noted(compiled.note, first=True) if own_compile else outcome), fresh

    def _limit(self, jvm: WarmJvm, candidate: CandidateJob, tests: TestChoice) -> pace.Limit:
        """The CPU limit of each of ``candidate``'s tests in ``jvm`` (:mod:`pace`): the user's for the project's
        own versions; in a JVM that ran other candidates' code, where a limit met is not the verdict, paced
        to the reference's triggers and the tests that failed earlier candidates; else the verdict's."""
        cap = self.options.settings.test_timeout
        if _trusted(candidate.ws, candidate.method):
            return pace.Limit(cap)
        if not jvm.ran:
            return self._pace.fresh(candidate.ws, cap, self.options.settings.timeout_pace)
        chosen = (*candidate.ws.trigger_tests, *tests.failed_before) if tests.triggers_only else None
        return pace.Limit(min(cap, self._pace.used(candidate.ws, chosen).seconds))

    def _run(self, jvm: WarmJvm, candidate: CandidateJob, tests: TestChoice, compiled: Compiled) -> Outcome | None:
        """One job: the compiled candidate's tests. None when the JVM was gone before it took the job."""
        ws = candidate.ws
        job_id = self._job_id()
        job = jvm.inbox / job_id
        job.mkdir(mode=0o755)
        try:
            chosen = (
                replace(ws, relevant_tests=tuple(tests.only()))
                if tests.triggers_only
                else replace(ws, relevant_tests=tests.plan.relevant)
                if tests.plan
                else ws
            )
            used = bool(jvm.ran)
            limit = self._limit(jvm, candidate, tests)
            runner_job = jobs.runner_job(
                chosen,
                job_id,
                known=candidate.known_failures,
                stop_at_first_failure=candidate.stop_at_first_failure,
                test_timeout=limit.seconds,
                compiled=jobs.write_classes(compiled.classes, job / "classes"),
            )
            runner_job.only = tests.only()
            runner_job.reach = tests.reach
            runner_job.closed_init = jvm.closed_init
            request = runner_job.write(job / "request.txt")
            key = report_signing.new_key()
            if not candidate.trusted:
                jvm.ran.add(candidate.method)
            answer = jvm.ask(request, job_id, key, self.options.settings.candidate_timeout)
            if answer is None:
                return None
            jobs.keep(
                candidate.log_dir, {"request.txt": request, "runner.out": answer.text, "runner.err": answer.stderr_tail}
            )
            report = runner_output.read_job(answer.text, key, job_id)
            if candidate.method == pace.reference_of(ws) and not used and report.signed is not None:
                # only where no candidate's code ran: none can make the fix seem slower, and later limits looser
                self._pace.saw(ws, report.signed.tests)
            outcome = runner_output.job_outcome(
                report,
                killed_for_time=answer.killed_for_time,
                stderr_tail=answer.stderr_tail,
                triggers=ws.trigger_tests,
            )
            outcome = replace(outcome, cpu_seconds=answer.cpu_seconds)
            if outcome.timed_out_tests:
                outcome = outcome.noted(limit.why)
            if tests.plan and not tests.triggers_only:
                outcome = replace(outcome, left_out=tuple(sorted(tests.plan.left_out)))
            if tests.reach is not None:
                narrowing.save(self.options.cache_dir, ws, narrowing.from_report(report.signed, tests.key))
            return outcome
        finally:
            shutil.rmtree(job, ignore_errors=True)
