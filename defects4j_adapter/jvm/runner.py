"""nl2fix's Java test runner (``defects4j_adapter/java/nl2fix/runner``): built once per machine,
and the jobs and JVM command lines it is given.

The runner takes a request file (:class:`Job`; a workspace's is made by
:func:`defects4j_adapter.engines.jobs.runner_job`): an optional source file to compile in memory,
the project's class path, the trigger tests and relevant test classes, the known failures.
``run`` mode validates one job and exits; ``serve`` mode is a warm JVM that reads request paths
from standard input. Its report is parsed by :mod:`defects4j_adapter.engines.runner_output`.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.jvm import aot, junit_classpath, os_wall, reference_java
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command

JUNIT_JARS = (Path("/usr/share/java/junit4.jar"), Path("/usr/share/java/hamcrest-core.jar"))
SOURCES = Path(__file__).resolve().parents[1] / "java"
MODULE = "nl2fix.runner"
MAIN_CLASS = "nl2fix.runner.Main"
OPENED_TO_RUNNER = (
    "java.base/jdk.internal.reflect",
    "java.base/java.lang",
    "java.base/java.util.concurrent",
    "java.base/java.nio",
    "java.base/sun.reflect.generics.reflectiveObjects",
)
"""The JDK's packages opened to the runner's module alone (never to ``ALL-UNNAMED``, where the judged code
is): ``jdk.internal.reflect`` to hide ``Class``'s private reflection natives (``ReflectionWall.java``) and keep
the JDK's reflection filter its own (``ReflectionFilters.java``); ``java.lang`` to name a job's class loader in
the JVM's messages as the JDK's application loader is named, ``loader 'app'`` with no ``@<id>``
(``LoaderName.java``) and to clear a JDK class's cache of its last ``newInstance`` caller after a job
(``CallerCaches.java``); ``java.util.concurrent`` to give the common pool plain workers, as a plain JVM's
(``PoolWorkers.java``); ``java.nio`` to read what the direct buffers reserve after a job (``Lifetime.java``);
``sun.reflect.generics.reflectiveObjects`` to make a generic type of a project's classes again of the twin's in a
behaviour probe's copy (``Graphs.generic``)."""
LAUNCH_PROPERTY = "nl2fix.launchFile"
"""Names the launch file to the runner, which deletes it before any job (``Main.java``)."""
_WRITE_AND_LAUNCH = (
    # $$: the shell's pid, which the JVM keeps (exec): unique wherever the temporary folder is shared; the
    # JDK by its real path (the docker image's is reached through a link named /opt/nl2fix-jdk)
    'f="$1/java.$$.args"; j=$(readlink -e "$2") || j=$2; shift 2; '
    '{ printf "\\"-D%s=%s\\"\\n" "$LAUNCH_PROPERTY" "$f"; printf "%s\\n" "$@"; } > "$f" && exec "$j" "@$f"'
)
COMPILE_TIMEOUT = 300.0


def junit_jars() -> tuple[Path, ...]:
    """JUnit 4 and Hamcrest, as Debian's junit4 package installs them."""
    missing = [str(p) for p in JUNIT_JARS if not p.is_file()]
    if missing:
        raise Nl2FixError(
            f"JUnit 4 is not installed ({', '.join(missing)} missing)",
            "run scripts/setup.sh (or apt-get install junit4 libhamcrest-java)",
        )
    return JUNIT_JARS


def _sources() -> list[Path]:
    return sorted(SOURCES.rglob("*.java"))


def runner_classes(cache_base: Path | None = None) -> Path:
    """The compiled runner and its native agent (:mod:`os_wall`), built on first use under
    ``<cache>/runner/<hash of their sources>``."""
    h = hashlib.sha256()
    for src in [*_sources(), os_wall.SOURCE]:
        h.update(src.name.encode())
        h.update(src.read_bytes())
    final = (cache_base or cache.cache_dir()) / "runner" / h.hexdigest()[:16]

    def build(tmp: Path) -> None:
        jdk = reference_java.current(cache_base).jdk
        result = run_command(
            [
                str(jdk.javac),
                "--release",
                "11",
                "-nowarn",
                "-Xlint:none",
                # string concatenation as StringBuilder calls rather than invokedynamic: each concatenation's
                # first run in a JVM would otherwise spin its method handles, and most of the runner's JVMs are
                # fresh (a pass's confirmation, its probe); the projects, built for Java 8 and older, never link it
                "-XDstringConcat=inline",
                "-encoding",
                "UTF-8",
                "-d",
                str(tmp),
                "--add-reads",
                f"{MODULE}=ALL-UNNAMED",
                "-cp",
                ":".join(map(str, junit_jars())),
                *map(str, _sources()),
            ],
            timeout=COMPILE_TIMEOUT,
        )
        if not result.ok:
            raise Nl2FixError(f"the nl2fix test runner does not compile:\n{(result.stdout + result.stderr)[:2000]}")
        os_wall.build_agent(tmp, jdk.home)

    return cache.build_once(final, build)


JUNIT_HOOKS = "junit-hooks"
"""Under the runner's folder (a name the module system reads no package from): JUnit's reporting
with the runner's hook, per JUnit jar."""
HOOKED_CLASS = "org/junit/internal/runners/model/EachTestNotifier.class"


def junit_hook(runner_dir: Path, junit: Sequence[Path]) -> Path | None:
    """A folder to put before ``junit`` on the test JVM's class path: JUnit's ``EachTestNotifier``
    from the first of those jars that holds it, with a call of the runner's ``Thrown.reported`` first
    in ``addFailure(Throwable)``, so that the runner sees what a test threw even when JUnit then
    reports no failure (``JUnitHook.java``). Made once per JUnit jar under the runner's folder, which
    every sandbox already sees; None when no jar holds the class (no JUnit 4: the runner then passes
    no test)."""
    return _junit_hook(runner_dir, tuple((p, p.stat().st_mtime if p.is_file() else 0.0) for p in junit))


@functools.lru_cache(maxsize=64)
def _junit_hook(runner_dir: Path, junit: tuple[tuple[Path, float], ...]) -> Path | None:
    h = hashlib.sha256()
    for jar, _ in junit:
        h.update(jar.read_bytes() if jar.is_file() else b"-")
    final = runner_dir / JUNIT_HOOKS / h.hexdigest()[:16]

    def build(tmp: Path) -> None:
        result = run_command(
            [
                str(reference_java.current().jdk.java),
                "--module-path",
                str(runner_dir),
                "-m",
                f"{MODULE}/nl2fix.runner.JUnitHook",
                str(tmp),
                *(str(j) for j, _ in junit),
            ],
            timeout=COMPILE_TIMEOUT,
        )
        if not result.ok and result.returncode != 3:
            raise Nl2FixError(f"JUnit's reporting could not be hooked:\n{(result.stdout + result.stderr)[:2000]}")

    hooked = cache.build_once(final, build)
    return hooked if (hooked / HOOKED_CLASS).is_file() else None


QUICK_JIT = ("-XX:TieredStopAtLevel=1",)
"""The quick compiler only: a test JVM's jobs are short and their code cold and short-lived, each
candidate's classes loaded anew in a loader of their own, so the optimising tier's compilations cost
more than they save. A warm JVM (a candidate's triggers, a probe), a pass's confirmation on a narrowed set
of tests, and the JVM that only compiles candidates (javac's code is broad rather than hot: 62 compiles
of JxPath-5's candidates took 2.2 CPU-s with it, 4.3 with :data:`FULL_RUN_JIT`). RepairBench's answers to
7 bugs (58 unique, ``bench_real.py --replay``, both in one run): 0.46 CPU-s a candidate with it in warm
JVMs, 0.52 with :data:`FULL_RUN_JIT`, probes 0.8 times as dear, every verdict alike."""
FULL_RUN_JIT = (
    "-XX:Tier4InvocationThreshold=50000",
    "-XX:Tier4CompileThreshold=150000",
    "-XX:Tier4BackEdgeThreshold=400000",
)
"""A fresh JVM that runs a whole set of tests (all 2,257 of Math-3's: 15.6 CPU-s, 24.8 with the quick
compiler only) or decides a limit met elsewhere: the optimising tier for really hot code (a runaway loop
still meets the same ``OutOfMemoryError`` as under Defects4J before the per-test limit)."""


@dataclass(frozen=True)
class HiddenPlaces:
    """Where a candidate may not look (``HiddenPlaces.java``: the runner refuses its read and fails the test):
    places a sandbox shows empty and a plain run on the machine full, which no fix reads."""

    hidden: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    """The job's own paths inside them (its workspace under nl2fix's cache), which it reads."""

    def options(self) -> list[str]:
        return [
            f"-Dnl2fix.{name}={':'.join(p for p in paths if ':' not in p)}"
            for name, paths in (("hidden", self.hidden), ("shown", self.shown))
        ]


def jvm_command(
    runner_dir: Path,
    *,
    memory_mb: int,
    tmp_dir: str,
    mode: list[str],
    test_classpath: Sequence[Path] = (),
    java: reference_java.TestJava | None = None,
    full_jit: bool = False,
    confined: bool = True,
    job_dirs: Sequence[str] = (),
    hidden: HiddenPlaces = HiddenPlaces(),
    precompiled: aot.Library = aot.NONE,
    argfile: bool = True,
) -> list[str]:
    """``java ... nl2fix.runner.Main <mode>`` on the test Java (:mod:`reference_java`): the runner
    and JUnit on the class path (the project's JUnit and Hamcrest from ``test_classpath`` when it
    has a usable one, see :mod:`junit_classpath`), the project on the runner's candidate class
    loader (see ``SystemLoader``). ``java``: the sandbox's test Java, when not the host's.
    ``full_jit``: the JIT of :data:`FULL_RUN_JIT` instead of :data:`QUICK_JIT`. The JVM loads
    the runner's native agent; ``confined`` (the sandbox claims to confine candidates): the runner
    takes no job when it can open its own memory all the same (:mod:`os_wall`). ``job_dirs``: the
    folders a ``serve`` runner empties after every job (:meth:`Sandbox.job_dirs`); a warm JVM
    whose temporary folder or working directory is not among them takes no second job. ``hidden``: where
    the candidate may not look (:meth:`Sandbox.hidden_places`). ``precompiled``: the JDK's code compiled ahead of time
    (:meth:`Sandbox.precompiled`), which the sandbox must show (give it to
    :func:`defects4j_adapter.engines.jobs.workspace_mounts` too); a JVM on another Java (a docker image's) does not
    map it.

    With ``argfile`` (how the engines start it) the JVM's own command line is ``java @<tmp_dir>/java.<pid>.args``:
    a shell inside the sandbox writes the options to that file and ``exec``'s the JVM, which deletes it
    before any job, so ``/proc/self/cmdline`` (which any process of the same uid may read, and which the
    project's code reads unchecked) names neither the runner, its folder under nl2fix's cache nor its
    main class. Without it: the plain command, for tests that take options out of it."""
    host = reference_java.current()
    java = java or host
    args = [
        str(java.jdk.java),
        *os_wall.jvm_options(runner_dir, confined=confined),
        f"-Xmx{memory_mb}m",
        aot.GC,
        "-XX:-UsePerfData",
        *(FULL_RUN_JIT if full_jit else QUICK_JIT),
        # made by and for the host's JDK: a docker image's JVM would refuse it (see aot)
        *(precompiled.options() if java.jdk == host.jdk else []),
        f"-Djava.io.tmpdir={tmp_dir}",
        f"-Dnl2fix.jobDirs={':'.join(d for d in job_dirs if ':' not in d)}",
        *hidden.options(),
        "-Djava.system.class.loader=nl2fix.runner.SystemLoader",
        "-Djava.awt.headless=true",
        *java.flags,
    ]
    if java.jdk.major >= 12:
        args.append("-Djava.security.manager=allow")
    junit = junit_classpath.project_junit(test_classpath) or junit_jars()
    hook = junit_hook(runner_dir, junit)
    # the runner on the module path, JUnit on the class path (its reporting hooked first): see
    # java/module-info.java
    command = [
        *args,
        "-XX:+DisableAttachMechanism",
        "--module-path",
        str(runner_dir),
        "--add-modules",
        MODULE,
        "--add-reads",
        f"{MODULE}=ALL-UNNAMED",
        *runner_opens(),
        "-cp",
        ":".join(map(str, [*([hook] if hook else []), *junit])),
        MAIN_CLASS,
        *mode,
    ]
    return _through_argfile(command, tmp_dir) if argfile else command


def runner_opens() -> list[str]:
    """``--add-opens`` of :data:`OPENED_TO_RUNNER`, each to the runner's module alone."""
    return [option for package in OPENED_TO_RUNNER for option in ("--add-opens", f"{package}={MODULE}")]


def _through_argfile(command: list[str], tmp_dir: str) -> list[str]:
    """``command`` run as ``java @file``, the file written inside the sandbox (the job's own temporary
    folder, which the sandbox makes) by the shell that then becomes the JVM (``exec``: same pid)."""
    java, *options = command
    script = _WRITE_AND_LAUNCH.replace("$LAUNCH_PROPERTY", LAUNCH_PROPERTY)
    return ["/bin/sh", "-c", script, "sh", tmp_dir.rstrip("/") or "/", java, *map(_argfile_quoted, options)]


def _argfile_quoted(arg: str) -> str:
    """One argument as the JDK's argfile reader reads it back: double quotes, backslash escapes."""
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class Job:
    """One request to the runner."""

    id: str
    classpath: list[Path]
    triggers: list[str]
    relevant: list[str]
    source: Path | None = None
    compiled: Path | None = None
    """Instead of ``source``: a folder of the candidate's classes, compiled and checked beforehand."""
    compile_only: bool = False
    """Compile ``source`` and report its classes, running nothing (the compiling JVM's job)."""
    compile_classpath: list[Path] = field(default_factory=list)
    release: str = "8"
    encoding: str = "UTF-8"
    known: list[str] = field(default_factory=list)
    test_classes: list[Path] = field(default_factory=list)
    """Folders of compiled tests: the runner defines their classes in the candidate's packages
    before the candidate's code runs (see ``TestClasses.java``)."""
    packages: list[str] = field(default_factory=list)
    """The candidate's package (``org.example``; empty for the default package)."""
    candidate_classes: list[str] = field(default_factory=list)
    """The top-level classes of the candidate's source file (``org.example.Text``): JUnit events
    fired while one of their classes is on the stack are forgeries (see ``TestExecutor.java``)."""
    stop_at_first_failure: bool = True
    test_timeout_ms: int = 10_000
    only: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Relevant classes of which only the tests named (``pkg.Class::method``) run; the others run whole."""
    closed_init: Path | None = None
    """A folder of the project's classes whose static initialiser is closed, rewritten to take their static fields'
    values from the runner (``defects4j_adapter/bytecode/closed_init.py``, ``Statics.java``)."""
    reach: str | None = None
    """The recording job: the method (by name) whose calls are recorded, each by the test that reached
    it (see ``MethodReach.java``; nothing to do with a behaviour probe)."""
    behaviour: bool = False
    """A behaviour probe: the runner records and compares the calls to the probe source's wrapper
    (see ``BehaviourProbe.java``)."""
    behaviour_candidate: Path | None = None
    """A behaviour probe's candidate: the folder of its class files as validation compiled them."""
    behaviour_fix_reference: bool = True
    """Whether a behaviour probe's reference is the developer's fix (then a derived input it fails on
    unexpectedly is outside what a fix owes and dropped); the buggy method standing in for one drops none."""
    behaviour_budget_ms: int = 0
    """A behaviour probe's budget: CPU milliseconds its probing of the tests' calls may use in all, after which
    it stops with the rows made so far (``BehaviourProbe#overBudget``); 0: none but the per-test limit."""
    behaviour_skip: frozenset[str] = frozenset()
    """Digests of the inputs a behaviour probe runs on neither body (``BehaviourProbe#begin``)."""
    behaviour_steady: Mapping[str, str] = field(default_factory=dict)
    """Digests of the inputs a behaviour probe runs the reference on once (``BehaviourProbe#STEADY``), each with the
    digest of the reference's outcome there in its own probe (a candidate's row unlike it ends the probe:
    ``BehaviourProbe.Session#decides``)."""

    def text(self) -> str:
        rows: list[tuple[str, str | Path]] = [("id", self.id)]
        if self.source is not None:
            rows += [("source", self.source), ("release", self.release), ("encoding", self.encoding)]
            rows += [("compile_classpath", p) for p in self.compile_classpath]
        rows += [("compiled", self.compiled)] if self.compiled is not None else []
        rows += [("compile_only", "true")] if self.compile_only else []
        rows += [("classpath", p) for p in self.classpath]
        rows += [("trigger", t) for t in self.triggers]
        rows += [("relevant", t) for t in self.relevant]
        rows += [("known", t) for t in sorted(self.known)]
        rows += [("test_classes", p) for p in self.test_classes]
        rows += [("package", p) for p in self.packages]
        rows += [("candidate_class", c) for c in self.candidate_classes]
        rows += [("only", f"{cls} {test}") for cls, tests in self.only.items() for test in tests]
        rows += [("reach", self.reach)] if self.reach else []
        rows += [("closed_init", self.closed_init)] if self.closed_init is not None else []
        rows += [
            ("stop_at_first_failure", str(self.stop_at_first_failure).lower()),
            ("test_timeout_ms", str(self.test_timeout_ms)),
        ]
        if self.behaviour:
            rows.append(("behaviour", "true"))
        rows += [("behaviour_candidate", self.behaviour_candidate)] if self.behaviour_candidate is not None else []
        if self.behaviour and not self.behaviour_fix_reference:
            rows.append(("behaviour_fix_reference", "false"))
        if self.behaviour and self.behaviour_budget_ms:
            rows.append(("behaviour_budget_ms", str(self.behaviour_budget_ms)))
        rows += [("behaviour_skip", d) for d in sorted(self.behaviour_skip)] if self.behaviour else []
        rows += (
            [("behaviour_steady", f"{d} {o}") for d, o in sorted(self.behaviour_steady.items())]
            if self.behaviour
            else []
        )
        lines = []
        for key, value in rows:
            value = str(value)
            if "\n" in value or "\r" in value:
                raise ValueError(f"request value for {key} holds a line break: {value!r}")
            lines.append(f"{key} {value}")
        return "\n".join(lines) + "\n"

    def write(self, path: Path) -> Path:
        path.write_text(self.text(), encoding="utf-8")
        path.chmod(0o644)
        return path
