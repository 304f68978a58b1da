"""Where untrusted candidate code runs: the :class:`Sandbox` interface, chosen by a
:class:`SandboxSpec` (``--sandbox bwrap|docker|none``), the limits and mounts a job gets, the
helpers the implementations share, and the registry they join.

The implementations, each in a module of its own that registers it with :func:`register_sandbox`:
:mod:`defects4j_adapter.sandbox.bwrap` (bubblewrap on the host; inside nl2fix's docker image, the
container's own confinement), :mod:`defects4j_adapter.sandbox.unconfined` (limits and timeouts only,
``--sandbox none``; and that container confinement) and :mod:`defects4j_adapter.sandbox.docker` (a
container of the JVM image per job). :func:`defects4j_adapter.sandbox.providers.make_sandbox`
imports them all and makes the one a spec asks for.

A sandbox travels to other processes (remote workers) as its spec: pickling one pickles its
:class:`SandboxSpec` and the function registered for its kind, and unpickling makes the sandbox
anew there with that function.
"""

from __future__ import annotations

import abc
import enum
import itertools
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nl2fix
from defects4j_adapter import cache
from defects4j_adapter.jvm import aot, reference_java, runner
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.core.processes import ExecResult, run_command, spawn, stop, tree_cpu
from nl2fix.core.registry import Registry

JOB_UID_BASE = 200_000
JOB_UID_SPAN = 100_000
"""As root, each job runs as a uid of its own from this range (no account, no files, no rights):
the process limit (RLIMIT_NPROC) counts every process of a uid machine-wide, so jobs sharing one
uid would share one budget, and a candidate that forks without bound would make the jobs running
beside it fail to start threads, blaming them for its own behaviour."""
_job_uids = itertools.count()
SCRATCH = Path("/workspace")
"""The working directory inside a confined job (a private tmpfs): a name many CI runners use, so that
``user.dir`` does not tell a candidate that nl2fix runs it (the fifth red team's ``right_under_nl2fix/``)."""
BASE_ENV = {"LANG": "C.UTF-8", "TZ": "America/Los_Angeles", "MALLOC_ARENA_MAX": "2"}
# Defects4J's documented set-up exports TZ=America/Los_Angeles; some of its tests depend on it.
JOB_PATH = "/usr/local/bin:/usr/bin:/bin"
"""``PATH`` inside a confined job, bubblewrap's and docker's alike: the system's folders only, none that
names nl2fix (the docker image's JDK is run by its real path; ``/usr/bin/java`` is the same JDK there)."""
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The host's system, which a sandbox shows read-only (an image has its own)."""
PRIVATE_TOP_DIRS = ("/boot", "/home", "/media", "/mnt", "/opt", "/root", "/run", "/srv")
"""Top-level folders of what is not the system's: the users' homes (secrets, nl2fix's default cache), where
machines keep software, services' data and benchmarks (``/opt``, ``/srv``: the tenth red team read a benchmark's
fixed tree and a venv's copy of nl2fix's there), removable media and the daemons' sockets (``/run/docker.sock``
would be root on the host to a job of a user in the docker group: a read-only mount does not stop connecting to a
socket). Bubblewrap shows them empty; a candidate may not look there (:meth:`Sandbox.hidden_places`)."""
PRIVATE_HOST_DIRS = (
    "/var/run",
    "/var/lock",
    "/var/tmp",
    "/var/spool",
    "/var/mail",
    "/var/lib/docker",
    "/var/lib/containerd",
)
"""Folders of ``/var`` private the same way: other users' and daemons' live files (temporary files, sockets,
mail, queued jobs, containers' file systems), which no build reads."""

PRIVATE_DEVICE_DIRS = ("/dev/shm", "/dev/mqueue", "/dev/hugepages")
"""Other processes' shared memory, message queues and huge pages: a job's own are empty (bubblewrap's ``--dev``, a
container's), where a plain run on a machine in use finds a browser's or a database's segments (the lead's round
11, ``private_data/dev_shm``)."""


def nl2fix_own() -> list[Path]:
    """What of nl2fix's no job reads wherever it lies: its cache (other jobs' workspaces, the developers' compiled
    fixes, ``nl2fix check``'s store), its installed package (a wheel carries the example benchmark) and the
    example benchmark."""
    return [cache.cache_dir(), Path(nl2fix.__file__).parent, EXAMPLE_BENCHMARK]


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
    (a remote worker) makes the same sandbox
    (:func:`defects4j_adapter.sandbox.providers.make_sandbox`)."""

    kind: SandboxKind = SandboxKind.BWRAP
    image: str = ""
    """docker: the JVM image to run (default: the one built for this recipe, built if absent)."""
    cpus: float = 1.0
    """docker: CPUs per container (``--cpus``)."""
    memory_mb: int = 3072
    """docker: memory per container (``--memory``; the JVM's heap is bounded by ``-Xmx`` first)."""
    private: tuple[str, ...] = ()
    """The user's folders and files no job may read, wherever they lie: the run's folder (its store holds every
    bug's fixed method), the dataset and its projects (the fixed trees). A sandbox that shows the machine's own
    folders shows these empty (round 10 read the developer's fix from a benchmark and a store in them and sent
    it out as a failure message, which the conversation strategy hands the model)."""

    @classmethod
    def of(cls, value: SandboxSpec | SandboxKind | str | bool) -> SandboxSpec:
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


def limit_args(limits: Limits) -> list[str]:
    args = ["prlimit", f"--nproc={limits.processes}", f"--fsize={limits.file_size_mb * 1024 * 1024}"]
    if limits.memory_mb:
        args.append(f"--as={limits.memory_mb * 1024 * 1024}")
    if limits.cpu_seconds:
        args.append(f"--cpu={limits.cpu_seconds}")
    return args + ["--"]


class Sandbox(abc.ABC):
    name: str
    confined: bool
    spec: SandboxSpec

    def __reduce__(self):
        return SANDBOXES.get(self.spec.kind), (self.spec, True)

    @abc.abstractmethod
    def tmp_dir(self, mounts: Mounts) -> str:
        """What ``java.io.tmpdir`` should be inside the sandbox."""

    def hidden_places(self, mounts: Mounts) -> runner.HiddenPlaces:
        """Where a job's candidate may not look, whatever this sandbox shows there: the private places
        (:data:`PRIVATE_TOP_DIRS`, :data:`PRIVATE_HOST_DIRS`, :data:`PRIVATE_DEVICE_DIRS`), nl2fix's own and the
        user's private paths, which a sandbox shows empty and a plain run full (the lead's rounds 10 and 11,
        ``private_data/``). The job's own paths among them (its workspace in nl2fix's cache) stay readable."""
        # where the job's temporary folder is not /tmp (a scratch folder of its own: nl2fix's image, --sandbox none)
        # /tmp is the one the machine's processes share, which a plain run sees full (red team 12's image_tmp)
        shared_tmp = () if self.tmp_dir(mounts) == "/tmp" else ("/tmp",)
        hidden = (
            *PRIVATE_TOP_DIRS,
            *PRIVATE_HOST_DIRS,
            *PRIVATE_DEVICE_DIRS,
            *shared_tmp,
            *map(str, nl2fix_own()),
            *self.spec.private,
        )
        return runner.HiddenPlaces(hidden, tuple(str(p) for p in (*mounts.read_only, *mounts.writable)))

    def job_dirs(self, mounts: Mounts) -> tuple[str, ...]:
        """The folders a job writes that belong to this sandbox's process alone, as the job sees
        them: its temporary folder and working directory (a private tmpfs each, of
        :attr:`Limits.scratch_mb`). A warm runner empties them after every job (``Scratch.java``)."""
        return (self.tmp_dir(mounts), *([str(SCRATCH)] if mounts.links_from is not None else []))

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

    def precompiled(self) -> aot.Library:
        """The JDK's code compiled ahead of time that this sandbox's JVMs map (:func:`aot.for_host`): one value for
        both :func:`defects4j_adapter.engines.jobs.workspace_mounts`, which shows its folder, and
        :func:`runner.jvm_command`, which names it. A JVM stops when it cannot read a library it is named, so a
        sandbox whose jobs could not read it gives none, and one whose JVMs run on another Java (a docker image's,
        which would refuse it) none either."""
        return aot.for_host() if self.test_java().jdk == reference_java.current().jdk else aot.NONE


class CommandSandbox(Sandbox):
    """A sandbox that is a command line wrapped around the job's, run as nl2fix's child."""

    @abc.abstractmethod
    def command(
        self, args: Sequence[str], mounts: Mounts, limits: Limits
    ) -> tuple[list[str], dict[str, str], Path | None]:
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


def under(path: Path, tops: Iterable[str]) -> bool:
    return any(str(path) == top or str(path).startswith(top + "/") for top in tops)


def job_uid() -> int:
    """A uid no other job of this or (very likely) another nl2fix process is using now."""
    return JOB_UID_BASE + (os.getpid() * 997 + next(_job_uids)) % JOB_UID_SPAN


def as_job_uid(uid: int) -> list[str]:
    """``setpriv`` to ``uid`` (:func:`job_uid`) without groups, capabilities or new privileges: how a job that root
    starts gives up root."""
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def others_can_read(path: Path) -> bool:
    """Whether a uid that owns nothing here and is in no group (:func:`as_job_uid`'s) can read ``path``: every folder
    above it searchable by others, the file itself readable."""
    real = path.resolve()
    folders = [p for p in real.parents if p != Path(p.anchor)]
    return bool(real.stat().st_mode & 0o004) and all(p.stat().st_mode & 0o001 for p in folders)


def chown_tree(root: Path, uid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, uid, uid)


SandboxFactory = Callable[[SandboxSpec, bool], Sandbox]
"""Makes the sandbox of a spec; the bool: quietly (a copy remade in another process)."""
SANDBOXES: Registry[SandboxKind, SandboxFactory] = Registry("sandbox")
register_sandbox = SANDBOXES.register
"""Decorator: the function that makes the sandbox of a kind."""
