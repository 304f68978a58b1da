"""Where untrusted candidate code runs: one :class:`Sandbox` interface, chosen by a
:class:`SandboxSpec` (``--sandbox bwrap|docker|none``).

:class:`BwrapSandbox` (Linux, bubblewrap): no network (its own network namespace), a read-only
view of the system and of the paths a job needs, write access only to the job's own
directories, a private size-limited tmpfs for ``/tmp`` and for the working directory,
``--die-with-parent``, and a session of its own without a terminal (from
:func:`nl2fix.core.processes.run_command`); resource limits by ``prlimit`` (address space, processes,
file size, CPU time) and a wall-clock timeout by ``run_command``. When nl2fix runs as root,
bubblewrap runs privileged (so it can reach paths below ``/root``) and the job itself runs as
a uid of its own (see ``JOB_UID_BASE``) without capabilities or new privileges (root ignores the process limit). The job is
the namespace's pid 1 (``--as-pid-1``): its CPU time reaches ``wait4`` and is counted.

:class:`UnconfinedSandbox` keeps the limits and timeouts but confines nothing; it exists for
machines without bubblewrap and is used only when asked for with ``--no-sandbox``, loudly.
:class:`ContainerSandbox` is the same inside nl2fix's docker image, where the container confines.
:class:`defects4j_adapter.sandbox.docker.DockerSandbox` runs each job in a container of the JVM
image (:mod:`defects4j_adapter.sandbox.images`).

A sandbox travels to other processes (remote workers) as its spec: pickling one pickles its
:class:`SandboxSpec`, and unpickling makes the sandbox anew there with :func:`make_sandbox`.
"""

from __future__ import annotations

import abc
import enum
import functools
import itertools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from defects4j_adapter.jvm import reference_java
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import ExecResult, run_command, spawn, stop, which

CONTAINER_ENV = "NL2FIX_CONTAINER"
"""Set to 1 by docker/Dockerfile: the process runs inside nl2fix's validation container."""
JOB_UID_BASE = 200_000
JOB_UID_SPAN = 100_000
"""As root, each job runs as a uid of its own from this range (no account, no files, no rights):
the process limit (RLIMIT_NPROC) counts every process of a uid machine-wide, so jobs sharing one
uid would share one budget, and a candidate that forks without bound would make the jobs running
beside it fail to start threads, blaming them for its own behaviour."""
_job_uids = itertools.count()
SCRATCH = Path("/nl2fix-scratch")
"""The working directory inside the bubblewrap sandbox (a private tmpfs)."""
BASE_ENV = {"LANG": "C.UTF-8", "TZ": "America/Los_Angeles", "MALLOC_ARENA_MAX": "2"}
# Defects4J's documented set-up exports TZ=America/Los_Angeles; some of its tests depend on it.


_CLK_TCK = os.sysconf("SC_CLK_TCK")


class SandboxKind(str, enum.Enum):
    """What confines candidate code (``--sandbox``)."""

    BWRAP = "bwrap"
    """Bubblewrap on the host (the default)."""
    DOCKER = "docker"
    """A container of the JVM image per job (a Docker daemon)."""
    NONE = "none"
    """Nothing: limits and timeouts only (``--no-sandbox``)."""


@dataclass(frozen=True)
class SandboxSpec:
    """Which sandbox to make, and its settings: small and picklable, so that another process
    (a remote worker) makes the same sandbox with :func:`make_sandbox`."""

    kind: SandboxKind = SandboxKind.BWRAP
    image: str = ""
    """docker: the JVM image to run (default: the one built for this recipe, built if absent)."""
    cpus: float = 1.0
    """docker: CPUs per container (``--cpus``)."""
    memory_mb: int = 3072
    """docker: memory per container (``--memory``; the JVM's heap is bounded by ``-Xmx`` first)."""

    @classmethod
    def of(cls, value: "SandboxSpec | SandboxKind | str | bool") -> "SandboxSpec":
        """A spec from a spec, a kind or its name, or a bool (True: bwrap, False: none)."""
        if isinstance(value, SandboxSpec):
            return value
        if isinstance(value, bool):
            return cls(SandboxKind.BWRAP if value else SandboxKind.NONE)
        return cls(SandboxKind(value))


@dataclass(frozen=True)
class Limits:
    wall_seconds: float
    memory_mb: int | None = None
    """Address-space limit (RLIMIT_AS); JVMs are bounded by ``-Xmx`` first."""
    processes: int = 512
    """Processes and threads (RLIMIT_NPROC)."""
    file_size_mb: int = 64
    """Largest file the job may write (RLIMIT_FSIZE)."""
    cpu_seconds: int | None = None
    """CPU time (RLIMIT_CPU)."""
    scratch_mb: int = 256
    """Size of the private tmpfs (``/tmp`` and the working directory)."""


@dataclass(frozen=True)
class Mounts:
    """What a job sees besides the system: paths bound at their own place."""

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    links_from: Path | None = None
    """The working directory is a private scratch directory holding a symlink to every entry of
    this folder (the project root), so tests read project files by relative paths and whatever
    they write lands in the scratch directory."""
    host_scratch: Path | None = None
    """A host folder the unconfined sandbox may use for that scratch directory and ``/tmp``."""
    env: Mapping[str, str] = field(default_factory=dict)


def _limit_args(limits: Limits) -> list[str]:
    args = ["prlimit", f"--nproc={limits.processes}", f"--fsize={limits.file_size_mb * 1024 * 1024}"]
    if limits.memory_mb:
        args.append(f"--as={limits.memory_mb * 1024 * 1024}")
    if limits.cpu_seconds:
        args.append(f"--cpu={limits.cpu_seconds}")
    return args + ["--"]


def tree_cpu(pid: int) -> float:
    """CPU seconds so far of a process and its descendants (live ones, and dead ones they reaped)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / _CLK_TCK
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


class Sandbox(abc.ABC):
    name: str
    confined: bool
    spec: SandboxSpec

    def __reduce__(self):
        return _remake, (self.spec,)

    @abc.abstractmethod
    def tmp_dir(self, mounts: Mounts) -> str:
        """What ``java.io.tmpdir`` should be inside the sandbox."""

    @abc.abstractmethod
    def run(self, args: Sequence[str], mounts: Mounts, limits: Limits, input: str | None = None) -> ExecResult:
        """Run ``args`` confined, to its end or the wall-clock limit."""

    @abc.abstractmethod
    def spawn(self, args: Sequence[str], mounts: Mounts, limits: Limits):
        """A long-lived confined process with binary pipes on its three standard streams
        (``Popen``-like); the caller enforces the wall-clock limit per request and ends it with
        :meth:`stop`."""

    @abc.abstractmethod
    def cpu_seconds(self, proc) -> float:
        """CPU seconds so far of a process from :meth:`spawn`."""

    @abc.abstractmethod
    def stop(self, proc, graceful: bool = True) -> float:
        """End a process from :meth:`spawn`; its CPU seconds."""

    def test_java(self) -> reference_java.TestJava:
        """The Java jobs run on (the host's test Java; a container's own under docker)."""
        return reference_java.current()


class CommandSandbox(Sandbox):
    """A sandbox that is a command line wrapped around the job's, run as nl2fix's child."""

    @abc.abstractmethod
    def command(self, args: Sequence[str], mounts: Mounts, limits: Limits) -> tuple[list[str], dict[str, str], Path | None]:
        """The full command line, environment and host working directory for ``args``."""

    def run(self, args: Sequence[str], mounts: Mounts, limits: Limits, input: str | None = None) -> ExecResult:
        argv, env, cwd = self.command(args, mounts, limits)
        return run_command(argv, timeout=limits.wall_seconds, env=env, cwd=cwd, input=input)

    def spawn(self, args: Sequence[str], mounts: Mounts, limits: Limits) -> subprocess.Popen:
        argv, env, cwd = self.command(args, mounts, limits)
        return spawn(argv, env=env, cwd=cwd)

    def cpu_seconds(self, proc) -> float:
        return tree_cpu(proc.pid)

    def stop(self, proc, graceful: bool = True) -> float:
        # asked first, by closing its input, so that its CPU time reaches wait4
        if graceful:
            try:
                proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        return stop(proc)


SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _host_system_binds() -> list[str]:
    args = []
    for top in SYSTEM_DIRS:
        p = Path(top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            args += ["--ro-bind", top, top]
    return args


def _java_homes() -> list[Path]:
    """The JDKs jobs run: ``java`` on PATH's and the test Java (:mod:`reference_java`)."""
    java = which("java")
    homes = [Path(os.path.realpath(java)).parent.parent] if java else []
    try:
        homes.append(reference_java.current().jdk.home)
    except Nl2FixError:
        pass  # no JDK to run tests on: the job that needs one says so
    return list(dict.fromkeys(homes))


def under(path: Path, tops: Iterable[str]) -> bool:
    return any(str(path) == top or str(path).startswith(top + "/") for top in tops)


class BwrapSandbox(CommandSandbox):
    name = "bwrap"
    confined = True

    spec = SandboxSpec(SandboxKind.BWRAP)

    def __init__(self, bwrap: Path):
        self.bwrap = bwrap

    def tmp_dir(self, mounts: Mounts) -> str:
        return "/tmp"

    def command(self, args, mounts, limits):
        as_root = os.geteuid() == 0
        if as_root:
            # bubblewrap runs privileged (it reaches paths below /root); the job drops to a uid of its own
            uid = job_uid()
            for path in mounts.writable:
                chown_tree(path, uid)
            argv = [str(self.bwrap), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                    "--unshare-cgroup-try"]
        else:
            argv = [str(self.bwrap), "--unshare-all"]
        # No --new-session: the job stays in bwrap's process group, which run_command and spawn
        # start in a session of its own without a terminal (so TIOCSTI has nothing to inject
        # into), and a timeout's kill of that group reaches the job itself. The job runs as the
        # namespace's pid 1 (--as-pid-1): when it dies, the kernel kills whatever it started,
        # and its CPU time reaches wait4.
        argv += ["--die-with-parent", "--as-pid-1", "--clearenv"]
        argv += _host_system_binds()
        scratch = str(limits.scratch_mb * 1024 * 1024)
        argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
        extra = [home for home in _java_homes() if not under(home, SYSTEM_DIRS)]
        made: set[Path] = {Path("/"), Path("/tmp")}
        binds: list[str] = []
        for flag, paths in (("--ro-bind", [*extra, *mounts.read_only]), ("--bind", mounts.writable)):
            for path in paths:
                if flag == "--ro-bind" and under(path, SYSTEM_DIRS):
                    continue
                for parent in reversed(path.parents):
                    if parent not in made and not under(parent, SYSTEM_DIRS):
                        binds += ["--perms", "0755", "--dir", str(parent)]
                        made.add(parent)
                binds += [flag, str(path), str(path)]
                made.add(path)
        argv += binds
        if mounts.links_from is not None:
            argv += ["--perms", "1777", "--size", scratch, "--tmpfs", str(SCRATCH)]
            for entry in sorted(mounts.links_from.iterdir()):
                argv += ["--symlink", str(entry), str(SCRATCH / entry.name)]
            argv += ["--chdir", str(SCRATCH)]
        env = {**BASE_ENV, "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", **mounts.env}
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv.append("--")
        if as_root:
            argv += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
                     "--inh-caps=-all", "--bounding-set=-all", "--"]
        argv += [*_limit_args(limits), *args]
        return argv, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, None


class UnconfinedSandbox(CommandSandbox):
    """Limits and timeouts only: candidate code can reach the network and write anywhere."""

    name = "none"
    confined = False
    spec = SandboxSpec(SandboxKind.NONE)

    def tmp_dir(self, mounts: Mounts) -> str:
        if mounts.host_scratch is None:
            return "/tmp"
        tmp = mounts.host_scratch / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return str(tmp)

    def command(self, args, mounts, limits):
        cwd = None
        if mounts.links_from is not None:
            if mounts.host_scratch is None:
                raise ValueError("the unconfined sandbox needs a host scratch folder for the working directory")
            cwd = mounts.host_scratch / "cwd"
            cwd.mkdir(parents=True, exist_ok=True)
            for entry in mounts.links_from.iterdir():
                link = cwd / entry.name
                if not link.is_symlink():
                    link.symlink_to(entry)
        env = {**os.environ, **BASE_ENV, **mounts.env}
        return [*_limit_args(limits), *args], env, cwd


class ContainerSandbox(UnconfinedSandbox):
    """Inside nl2fix's docker image (``NL2FIX_CONTAINER=1``, run with ``--network none``) the
    container is the confinement: jobs keep the limits and timeouts and need no bubblewrap, which
    an unprivileged container cannot start anyway."""

    name = "container"
    confined = True
    spec = SandboxSpec(SandboxKind.BWRAP)


def in_container() -> bool:
    return os.environ.get(CONTAINER_ENV) == "1"


def job_uid() -> int:
    """A uid no other job of this or (very likely) another nl2fix process is using now."""
    return JOB_UID_BASE + (os.getpid() * 997 + next(_job_uids)) % JOB_UID_SPAN


def chown_tree(root: Path, uid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, uid, uid)


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot confine candidates here, or None when it can."""
    bwrap = which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if which("prlimit") is None:
        return "prlimit (util-linux) is not installed"
    probe = BwrapSandbox(bwrap)
    argv, env, _ = probe.command(["true"], Mounts(), Limits(wall_seconds=30))
    result = run_command(argv, timeout=30, env=env)
    if not result.ok:
        return f"bubblewrap does not work here: {(result.stderr or result.stdout).strip()[:300]}"
    return None


def make_sandbox(spec: SandboxSpec | SandboxKind | str | bool = True, *, quiet: bool = False) -> Sandbox:
    """The sandbox ``spec`` asks for (a bool: True for bwrap, False for none). Bubblewrap becomes
    the container's own confinement inside nl2fix's docker image; ``none`` says loudly what it
    gives up (unless ``quiet``: a copy remade in another process)."""
    spec = SandboxSpec.of(spec)
    if spec.kind is SandboxKind.DOCKER:
        from defects4j_adapter.sandbox.docker import DockerSandbox

        return DockerSandbox(spec)
    if spec.kind is SandboxKind.BWRAP and in_container():
        return ContainerSandbox()
    if spec.kind is SandboxKind.BWRAP:
        problem = bwrap_problem()
        if problem:
            raise Nl2FixError(
                f"cannot confine candidate code: {problem}",
                "install bubblewrap (apt-get install bubblewrap), use --sandbox docker, or, knowing that "
                "model-written code will then run with your rights, pass --sandbox none (--no-sandbox)",
            )
        return BwrapSandbox(which("bwrap"))
    if not quiet:
        print(
            "WARNING: --sandbox none: candidate code runs UNCONFINED (network, your files); only time, memory, "
            "process and file-size limits apply" + (" (and not the process limit: running as root)" if os.geteuid() == 0 else ""),
            file=sys.stderr,
        )
    if shutil.which("prlimit") is None:
        raise Nl2FixError("prlimit (util-linux) is not installed", "install util-linux")
    return UnconfinedSandbox()


def _remake(spec: SandboxSpec) -> Sandbox:
    return make_sandbox(spec, quiet=True)
