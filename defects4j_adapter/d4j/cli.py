"""A thin wrapper over the Defects4J command line: find it, run it with the right Java and a
timeout through :func:`nl2fix.core.processes.run_command`, and hand back typed results.

What the output means is decided in :mod:`defects4j_adapter.d4j.parsers`; the argument lists are
built by the pure ``*_args`` functions so the command sequence can be checked without Defects4J.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from xml.sax.saxutils import quoteattr

from defects4j_adapter.d4j import parsers
from defects4j_adapter.d4j.parsers import FailingTests, FailureKind, FailureSignature, TestReport
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import ExecResult, run_command

JAVA_HOME_ENV = "NL2FIX_D4J_JAVA_HOME"
"""The JDK Defects4J runs on: Java 8 for Defects4J 2.x, Java 11 for 3.x. Defaults to $JAVA_HOME."""
HOME_ENVS = ("D4J_HOME", "DEFECTS4J_HOME")
# Defects4J sets this itself (Constants.pm); set it for the whole process tree so that tools we
# start around it agree.
TIMEZONE = "America/Los_Angeles"

EXPORT_PROPERTIES = (
    "tests.trigger",
    "tests.relevant",
    "cp.compile",
    "cp.test",
    "dir.src.classes",
    "dir.src.tests",
    "dir.bin.classes",
    "dir.bin.tests",
)

INSTALL_HINT = (
    "install Defects4J 2.0.1 with Java 8 and Perl: `git clone --branch v2.0.1 https://github.com/rjust/defects4j"
    " && cd defects4j && cpanm --installdeps . && ./init.sh`, then put defects4j/framework/bin on PATH"
    " (or set D4J_HOME); or validate inside the image: `docker build -t nl2fix-d4j -f docker/Dockerfile .`"
    " (see docker/README.md). Every engine needs it for Defects4J bugs (the fast one checks each bug"
    " out through it once); only `--dataset example` runs without it"
)

CHECKOUT_TIMEOUT = 1800.0
COMPILE_TIMEOUT = 900.0
EXPORT_TIMEOUT = 600.0
INFO_TIMEOUT = 120.0
EXPORT_TARGET = "nl2fix.export"
GRADLE_HOME_DIR = ".gradle_local_home"
"""Defects4J's ``$GRADLE_LOCAL_HOME_DIR``: where its Mockito module points Gradle's home."""
QUICK_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""For the JVMs of a preparation (Ant, javac), which live seconds to a minute: the optimising JIT
and a concurrent collector cost them more CPU than they save (javac on Math: 68 CPU-s with them,
24 without), and neither changes the classes javac writes."""


def locate(env: Mapping[str, str] | None = None) -> Path | None:
    """``defects4j`` on PATH, else ``$D4J_HOME/framework/bin/defects4j``."""
    env = os.environ if env is None else env
    for folder in env.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / "defects4j" if folder else None
        if candidate and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    for name in HOME_ENVS:
        if env.get(name):
            candidate = Path(env[name]) / "framework" / "bin" / "defects4j"
            if candidate.is_file():
                return candidate
    return None


def d4j_environment(base: Mapping[str, str], java_home: str | None) -> dict[str, str]:
    """The environment Defects4J runs in: ``java_home`` (when given) as JAVA_HOME and first on
    PATH, and Defects4J's time zone."""
    env = dict(base)
    if java_home:
        env["JAVA_HOME"] = java_home
        env["PATH"] = os.pathsep.join([str(Path(java_home) / "bin"), env.get("PATH", "")]).rstrip(os.pathsep)
    env["TZ"] = TIMEZONE
    return env


@dataclass(frozen=True)
class Layout:
    """Where an installation keeps what its Perl scripts hand to Ant (``core/Constants.pm``; an
    environment variable of the same name overrides each, as there)."""

    home: Path
    """``$BASE_DIR``: the installation's root."""
    projects: Path
    """``$PROJECTS_DIR``: ``framework/projects``."""
    build_file: Path
    """``$D4J_BUILD_FILE``: ``defects4j.build.xml``, which defines every ``export.<property>`` target."""
    ant: Path
    """``$MAJOR_ROOT/bin/ant``: the Ant that Defects4J runs."""


def layout_of(executable: Path, env: Mapping[str, str]) -> Layout | None:
    """The layout of the installation whose ``framework/bin/defects4j`` is ``executable``; None
    when it is not laid out so (a wrapper script elsewhere)."""
    scripts = Path(env.get("SCRIPT_DIR") or Path(executable).resolve().parent.parent)
    home = Path(env.get("BASE_DIR") or scripts.parent)
    layout = Layout(
        home=home,
        projects=Path(env.get("PROJECTS_DIR") or scripts / "projects"),
        build_file=Path(env.get("D4J_BUILD_FILE") or scripts / "projects" / "defects4j.build.xml"),
        ant=Path(env.get("MAJOR_ROOT") or home / "major") / "bin" / "ant",
    )
    return layout if layout.build_file.is_file() and layout.ant.is_file() else None


def export_build_file(layout: Layout, out_dir: Path, props: Sequence[str]) -> str:
    """An Ant build file whose target ``nl2fix.export`` runs Defects4J's own ``export.<property>``
    target for each property, each in a project of its own (``antcall``) as each ``defects4j
    export`` does, writing the value to ``out_dir/<property>``."""
    calls = "".join(
        f'    <antcall target="export.{prop}">'
        f'<param name="file.export" value={quoteattr(str(out_dir / prop))}/></antcall>\n'
        for prop in props
    )
    return (
        '<project name="nl2fix-export" basedir="${basedir}">\n'
        f"  <import file={quoteattr(str(layout.build_file))}/>\n"
        f'  <target name="{EXPORT_TARGET}">\n{calls}  </target>\n'
        "</project>\n"
    )


def ant_args(layout: Layout, build_file: Path, work_dir: Path, targets: Sequence[str]) -> tuple[str, ...]:
    """The command line Defects4J's ``Project::_ant_call`` runs, with another build file."""
    return (
        str(layout.ant),
        "-f",
        str(build_file),
        f"-Dd4j.home={layout.home}",
        f"-Dd4j.dir.projects={layout.projects}",
        f"-Dbasedir={work_dir}",
        *targets,
    )


def ant_environment(d4j_env: Mapping[str, str], layout: Layout, work_dir: Path) -> dict[str, str]:
    """What Defects4J's Perl adds for Ant: its Ant first on PATH (``Constants.pm``), and Gradle's
    home inside the work dir (its Mockito module; other projects never read it); and the quick
    JVM options for every JVM of the run."""
    env = dict(d4j_env)
    env["PATH"] = os.pathsep.join([str(layout.ant.parent), env.get("PATH", "")]).rstrip(os.pathsep)
    env["GRADLE_USER_HOME"] = str(work_dir / env.get("GRADLE_LOCAL_HOME_DIR", GRADLE_HOME_DIR))
    env["JAVA_TOOL_OPTIONS"] = f"{env.get('JAVA_TOOL_OPTIONS', '')} {QUICK_JVM_OPTIONS}".strip()
    return env


def checkout_args(project: str, version: str, work_dir: Path) -> tuple[str, ...]:
    return ("checkout", "-p", project, "-v", version, "-w", str(work_dir))


def compile_args(work_dir: Path) -> tuple[str, ...]:
    return ("compile", "-w", str(work_dir))


def test_args(work_dir: Path, *, test: str | None = None, relevant: bool = False) -> tuple[str, ...]:
    """``test -w DIR`` with ``-t Class::method`` for one test, or ``-r`` for the relevant tests."""
    if test and relevant:
        raise ValueError("defects4j test takes -t or -r, not both")
    if test is not None and "::" not in test:
        raise ValueError(f"defects4j test -t needs Class::method, got {test!r}")
    extra = ("-t", test) if test else ("-r",) if relevant else ()
    return ("test", "-w", str(work_dir), *extra)


def export_args(work_dir: Path, prop: str) -> tuple[str, ...]:
    return ("export", "-p", prop, "-w", str(work_dir))


def info_args(project: str, bug: int | None = None) -> tuple[str, ...]:
    return ("info", "-p", project, *(("-b", str(bug)) if bug is not None else ()))


def output_of(result: ExecResult) -> str:
    return f"{result.stdout}\n{result.stderr}"


def failure_of(result: ExecResult, extra: str = "") -> FailureSignature | None:
    """Why a Defects4J command failed; None when it succeeded (or nothing known matched)."""
    text = output_of(result) + extra
    if result.returncode == 127 and not result.timed_out:
        # The shell's (or run_command's) "cannot execute": defects4j or its perl is missing.
        text += "\ndefects4j: command not found"
    return parsers.classify_failure(text)


@dataclass(frozen=True)
class CommandResult:
    result: ExecResult
    failure: FailureSignature | None = None

    @property
    def ok(self) -> bool:
        return self.result.ok

    def describe(self, limit: int = 1500) -> str:
        """A short account for error messages: the failed step, the signature, the output's end."""
        step = parsers.failed_step(self.result.stderr)
        head = f"`{Path(self.result.args[0]).name} {' '.join(_without_work_dir(self.result.args[1:]))}`"
        if self.result.timed_out:
            return f"{head} did not finish in {self.result.wall_seconds:.0f} s"
        why = f" ({self.failure.kind.value}: {self.failure.name})" if self.failure else ""
        at = f" at {step!r}" if step else ""
        tail = output_of(self.result).strip()[-limit:]
        return f"{head} failed{at}{why}, exit {self.result.returncode}:\n{tail}"


@dataclass(frozen=True)
class CompileResult(CommandResult):
    errors: str = ""
    """The compiler's first errors when the candidate did not compile."""


@dataclass(frozen=True)
class TestRun(CommandResult):
    """One ``defects4j test`` call: stdout's summary, the ``failing_tests`` and ``all_tests`` files."""

    report: TestReport | None = None
    failing: FailingTests = FailingTests()
    started: tuple[str, ...] | None = None
    """Tests that started (from ``all_tests``); None when Defects4J wrote no such file."""
    failing_text: str | None = None
    started_text: str | None = None
    """The two files as read."""

    @property
    def timed_out_tests(self) -> tuple[str, ...]:
        """Tests Defects4J's own JUnit watchdog killed."""
        watchdog = parsers.signature("junit-watchdog").pattern
        return tuple(t for t, cause in self.failing.causes.items() if watchdog.search(cause))


def read_compile(result: ExecResult) -> CompileResult:
    """A :class:`CompileResult` from what ``defects4j compile`` printed."""
    if result.ok:
        return CompileResult(result)
    failure = failure_of(result)
    candidates = failure is not None and failure.kind is FailureKind.COMPILE_FAILURE
    return CompileResult(result, failure, parsers.compile_errors(output_of(result)) if candidates else "")


def read_test_run(result: ExecResult, failing_text: str | None, started_text: str | None) -> TestRun:
    """A :class:`TestRun` from what ``defects4j test`` printed and the ``failing_tests`` and
    ``all_tests`` files it left (None for a file it did not write)."""
    failing = parsers.parse_failing_tests(failing_text or "")
    report = parsers.parse_test_output(result.stdout)
    failure = None
    if not result.ok or report is None or failing.count or report.count:
        failure = failure_of(result, "\n" + (failing_text or ""))
    return TestRun(
        result,
        failure,
        report=report,
        failing=failing,
        started=parsers.parse_all_tests(started_text) if started_text is not None else None,
        failing_text=failing_text,
        started_text=started_text,
    )


class JobRunner(Protocol):
    """Runs a Defects4J call that builds or tests a working copy (and so runs the project's build
    files and tests), writing nothing but ``work_dir``: a sandbox
    (:mod:`defects4j_adapter.workspaces.confined_defects4j`)."""

    def __call__(
        self,
        args: Sequence[str],
        *,
        work_dir: Path,
        env: Mapping[str, str],
        timeout: float,
        outputs: Sequence[Path] = (),
    ) -> ExecResult:
        """``outputs``: folders besides ``work_dir`` the call writes (nl2fix's own, made for it)."""
        ...


def unconfined(
    args: Sequence[str], *, work_dir: Path, env: Mapping[str, str], timeout: float, outputs: Sequence[Path] = ()
) -> ExecResult:
    """A :class:`JobRunner` that confines nothing (``--no-sandbox``, and inside nl2fix's docker image)."""
    return run_command(args, timeout=timeout, cwd=work_dir, env=env)


class Defects4J:
    """The ``defects4j`` executable, run under a chosen JDK with timeouts. What builds or tests a
    working copy goes through ``runner``; ``checkout`` and ``info`` run no project code and run as
    they are."""

    def __init__(
        self,
        executable: Path,
        *,
        java_home: str | None = None,
        base_env: Mapping[str, str] | None = None,
        runner: JobRunner = unconfined,
    ):
        self.executable = Path(executable)
        self.java_home = java_home
        self.env = d4j_environment(os.environ if base_env is None else base_env, java_home)
        self.runner = runner

    def with_runner(self, runner: JobRunner) -> Defects4J:
        """This installation, its builds and tests run by ``runner``."""
        copy = Defects4J(self.executable, java_home=self.java_home, base_env={}, runner=runner)
        copy.env = dict(self.env)
        return copy

    @classmethod
    def find(cls, env: Mapping[str, str] | None = None) -> Defects4J:
        """The installed Defects4J, or an :class:`Nl2FixError` saying how to get one."""
        env = os.environ if env is None else env
        exe = locate(env)
        if exe is None:
            raise Nl2FixError(
                "Defects4J is not installed here: no `defects4j` on PATH and no $D4J_HOME/framework/bin/defects4j",
                INSTALL_HINT,
            )
        java_home = env.get(JAVA_HOME_ENV) or None
        if java_home and not (Path(java_home) / "bin" / "java").exists():
            raise Nl2FixError(
                f"{JAVA_HOME_ENV}={java_home} has no bin/java",
                "point it at a JDK: Java 8 for Defects4J 2.x, Java 11 for 3.x",
            )
        return cls(exe, java_home=java_home, base_env=env)

    def run(self, args: Sequence[str], *, timeout: float) -> ExecResult:
        """A call that runs no project code (``checkout``, ``info``)."""
        return run_command([str(self.executable), *args], timeout=timeout, env=self.env)

    def build(self, args: Sequence[str], work_dir: Path, *, timeout: float) -> ExecResult:
        """A call that builds or tests ``work_dir``, through the runner."""
        return self.runner([str(self.executable), *args], work_dir=work_dir, env=self.env, timeout=timeout)

    def checkout(
        self, project: str, version: str, work_dir: Path, *, timeout: float = CHECKOUT_TIMEOUT
    ) -> CommandResult:
        result = self.run(checkout_args(project, version, work_dir), timeout=timeout)
        return CommandResult(result, None if result.ok else failure_of(result))

    def compile(self, work_dir: Path, *, timeout: float = COMPILE_TIMEOUT) -> CompileResult:
        return read_compile(self.build(compile_args(work_dir), work_dir, timeout=timeout))

    def test(self, work_dir: Path, *, timeout: float, test: str | None = None, relevant: bool = False) -> TestRun:
        """Run one test (``-t``) or the relevant tests (``-r``); old result files are removed first
        so that what is read afterwards is this run's."""
        for name in (parsers.FAILING_TESTS_FILE, parsers.ALL_TESTS_FILE):
            (work_dir / name).unlink(missing_ok=True)
        result = self.build(test_args(work_dir, test=test, relevant=relevant), work_dir, timeout=timeout)
        return read_test_run(
            result, _read(work_dir / parsers.FAILING_TESTS_FILE), _read(work_dir / parsers.ALL_TESTS_FILE)
        )

    def export(self, work_dir: Path, prop: str, *, timeout: float = EXPORT_TIMEOUT) -> str:
        """The raw value of one property; an :class:`Nl2FixError` when Defects4J cannot say."""
        result = self.build(export_args(work_dir, prop), work_dir, timeout=timeout)
        if not result.ok:
            raise environment_error(f"cannot export {prop} of {work_dir}", CommandResult(result, failure_of(result)))
        return result.stdout

    def export_and_compile(
        self,
        work_dir: Path,
        props: Sequence[str] = EXPORT_PROPERTIES,
        *,
        timeout: float = EXPORT_TIMEOUT + COMPILE_TIMEOUT,
    ) -> tuple[dict[str, str], CompileResult]:
        """The raw value of each property, as ``defects4j export -p`` prints it, then ``work_dir``
        compiled as ``defects4j compile`` compiles it (exports first: exporting a class path runs
        Ant targets that may clean build folders, rjust/defects4j#39).

        Each ``defects4j export`` starts Ant twice, about 3 CPU-s; where the installation's
        layout is known, everything here is one Ant run of Defects4J's own targets instead."""
        layout = layout_of(self.executable, self.env)
        if layout is None:
            return {prop: self.export(work_dir, prop) for prop in props}, self.compile(work_dir)
        with tempfile.TemporaryDirectory(prefix="nl2fix-export-") as tmp:
            out = Path(tmp)
            build_file = out / "export.xml"
            build_file.write_text(export_build_file(layout, out, props), encoding="utf-8")
            result = self.runner(
                ant_args(layout, build_file, work_dir, (EXPORT_TARGET, "compile", "compile.tests")),
                work_dir=work_dir,
                env=ant_environment(self.env, layout, work_dir),
                timeout=timeout,
                outputs=(out,),
            )
            values = {p: (out / p).read_text(encoding="utf-8", errors="replace") for p in props if (out / p).is_file()}
        missing = [p for p in props if p not in values]
        if missing:
            raise environment_error(
                f"cannot export {', '.join(missing)} of {work_dir}", CommandResult(result, failure_of(result))
            )
        return values, read_compile(result)

    def info(self, project: str, bug: int | None = None, *, timeout: float = INFO_TIMEOUT) -> parsers.BugInfo:
        result = self.run(info_args(project, bug), timeout=timeout)
        if not result.ok:
            raise environment_error(f"`defects4j info -p {project}` failed", CommandResult(result, failure_of(result)))
        return parsers.parse_info(result.stdout)


PERMANENT_FAILURES = frozenset(
    ("tool-missing", "perl-module-missing", "java-version-mismatch", "defects4j-not-initialised", "disk-full")
)
"""Signatures of a set-up that is wrong: trying again cannot help. Any other failure of a checkout,
export or compile may be the machine's moment (one checkout under load failed at 'Tag post-fix
revision' and went through a minute later)."""


class Defects4JFailure(Nl2FixError):
    """A Defects4J command failed; ``transient`` when trying again may help."""

    def __init__(self, message: str, hint: str, *, transient: bool):
        super().__init__(message, hint)
        self.transient = transient


def is_transient(exc: Exception) -> bool:
    return isinstance(exc, Defects4JFailure) and exc.transient


def environment_error(what: str, outcome: CommandResult) -> Defects4JFailure:
    """An :class:`Nl2FixError` for a harness-side failure, with the hint its signature calls for."""
    failure = outcome.failure
    hint = INSTALL_HINT
    if failure is not None and failure.name == "java-version-mismatch":
        hint = (
            f"Defects4J 2.x needs Java 8 and 3.x Java 11: set {JAVA_HOME_ENV} to that JDK"
            f"{_installed_jdks()}, or use the docker image (docker/README.md)"
        )
    elif failure is not None and failure.name == "perl-module-missing":
        hint = "run `cpanm --installdeps .` in the Defects4J folder, or use the docker image (docker/README.md)"
    elif failure is not None and failure.name == "defects4j-not-initialised":
        hint = "run ./init.sh in the Defects4J folder (it downloads the project repositories)"
    elif failure is not None and failure.kind is FailureKind.CHECKOUT_FAILURE:
        hint = "check the project and bug id with `defects4j info -p PROJECT -b N`; the raw output is above"
    return Defects4JFailure(
        f"{what}: {outcome.describe()}", hint, transient=failure is None or failure.name not in PERMANENT_FAILURES
    )


def _without_work_dir(args: Sequence[str]) -> list[str]:
    out, skip = [], False
    for arg in args:
        if skip or arg == "-w":
            skip = not skip
            continue
        out.append(arg)
    return out


def _installed_jdks(root: Path = Path("/usr/lib/jvm")) -> str:
    found = sorted(str(p) for p in root.glob("*") if (p / "bin" / "java").exists()) if root.is_dir() else []
    return f" (JDKs here: {', '.join(found)})" if found else ""


NOT_A_FILE = "--- nl2fix: the result file is not a regular file\n"
"""What a result file that is a link (or anything but a file) reads as: a failure, never a pass,
and nothing read on the host through a link the job made."""


def _read(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:
        return NOT_A_FILE
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_A_FILE
        return fh.read().decode("utf-8", errors="replace")
