"""``--sandbox bwrap`` (the default): candidate code under bubblewrap on the host (Linux).

No network (its own network namespace), a read-only view of the machine's own root (the homes, the
daemons' live folders and nl2fix's cache shown empty, devices present but not opened) and of the paths
a job needs, write access only to the job's own directories, a private size-limited tmpfs for ``/tmp``
and for the working directory, ``--die-with-parent``, and a session of its own without a terminal
(from :func:`nl2fix.core.processes.run_command`); resource limits by ``prlimit`` (address space,
processes, file size, CPU time) and a wall-clock timeout by ``run_command``. When nl2fix runs as
root, bubblewrap runs privileged (so it can reach paths below ``/root``) and the job itself runs
as a uid of its own (see :data:`~defects4j_adapter.sandbox.base.JOB_UID_BASE`) without
capabilities or new privileges (root ignores the process limit). The job is the namespace's pid 1
(``--as-pid-1``): its CPU time reaches ``wait4`` and is counted.

Inside nl2fix's docker image the container is the confinement, and ``--sandbox bwrap`` gets its
:class:`~defects4j_adapter.sandbox.unconfined.ContainerSandbox` instead.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.sandbox.base import (
    BASE_ENV,
    JOB_PATH,
    PRIVATE_HOST_DIRS,
    PRIVATE_TOP_DIRS,
    SCRATCH,
    SYSTEM_DIRS,
    CommandSandbox,
    Limits,
    Mounts,
    Sandbox,
    SandboxKind,
    SandboxSpec,
    as_job_uid,
    chown_tree,
    job_uid,
    limit_args,
    nl2fix_own,
    register_sandbox,
    under,
)
from defects4j_adapter.sandbox.unconfined import ContainerSandbox, in_container
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command, which

HOST_TREES = ("/var",)
"""The machine's own folders a job sees read-only beside the system (:data:`SYSTEM_DIRS`), as any local user
reads them: a root made of binds and empty folders always told itself from a machine one level deeper (the
eighth red team's ``root_listing``: no ``/var``; the ninth's ``var_lib``: an empty ``/var``). What is not the
system's is masked (:data:`PRIVATE_HOST_DIRS`, :meth:`BwrapSandbox.masks`)."""

EMPTY_TOP_DIRS = (*PRIVATE_TOP_DIRS, "/sys")
"""Top-level folders shown empty: the private ones and the kernel's objects. Present, as on every Linux machine; a
path a job needs below one (a cache under ``/root``) is bound inside it."""


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _empty_like(path: Path, paths: Sequence[Path]) -> list[str]:
    """An empty folder where the host has one, with the host's mode bar others' and the group's writing; one a
    job's path lies in (``paths``) open to the job, which may not be the folder's owner."""
    mode = path.stat().st_mode & 0o1755 if path.exists() else 0o755
    if any(under(p, [str(path)]) for p in paths):
        mode |= 0o755
    return ["--perms", f"{mode:04o}", "--tmpfs" if under(path, _SHOWN) else "--dir", str(path)]


def _host_top_level(paths: Sequence[Path]) -> list[str]:
    """The host's other top-level entries: its folders (``/lost+found``, a data disk's) empty, its links the same
    links, its files (``/.dockerenv``, ``/swap.img``) read-only as they are, private by their own mode (the tenth
    red team's ``top_level_file``): a root listing is the machine's."""
    known = {"/", "/proc", "/dev", "/tmp", *SYSTEM_DIRS, *HOST_TREES, *EMPTY_TOP_DIRS}
    args: list[str] = []
    for entry in sorted(os.scandir("/"), key=lambda e: e.name):
        top = Path("/", entry.name)
        if str(top) in known:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif entry.is_dir():
            args += _empty_like(top, paths)
        elif entry.is_file():
            args += ["--ro-bind-try", str(top), str(top)]
    return args


@functools.lru_cache(maxsize=1)
def _host_devices() -> tuple[str, ...]:
    """The host's ``/dev`` beside bubblewrap's own minimal one (``--dev``: its ``null``, ``tty``, a terminal
    instance of the job's own): every other node the machine has, bound read-only and so without device access
    (bubblewrap mounts a bind ``nodev``; the ninth red team's ``dev_console``), but a node any user of the machine
    may open (``crw-rw-rw-``: ``fuse``, ``net/tun``), bound as it is. Live folders (message queues, huge pages)
    empty. Once per process: a machine's devices seldom change while it validates."""
    args: list[str] = []
    for entry in sorted(os.scandir("/dev"), key=lambda e: e.name):
        if entry.name in _BWRAP_DEV:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry.path), entry.path]
        elif entry.name in _LIVE_DEV:
            args += ["--perms", "0755", "--dir", entry.path]
        else:
            args += [_device_bind(entry.path), entry.path, entry.path]
            if entry.is_dir():
                args += _open_nodes_below(entry.path)
    return tuple(args)


def _device_bind(path: str) -> str:
    st = os.stat(path, follow_symlinks=False)
    shared = (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) and st.st_mode & 0o666 == 0o666
    return "--dev-bind-try" if shared else "--ro-bind-try"


def _open_nodes_below(folder: str) -> list[str]:
    args = []
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(root, name)
            if not os.path.islink(path) and _device_bind(path) == "--dev-bind-try":
                args += ["--dev-bind-try", path, path]
    return args


_BWRAP_DEV = frozenset(
    {"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx", "shm", "fd", "stdin", "stdout", "stderr"}
    | {"core"}
)
"""What bubblewrap's ``--dev`` makes, the job's own."""
_LIVE_DEV = frozenset({"mqueue", "hugepages"})
_SHOWN = (*SYSTEM_DIRS, *HOST_TREES)


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


class BwrapSandbox(CommandSandbox):
    name = "bwrap"
    confined = True

    def __init__(self, bwrap: Path, private: Sequence[str] = ()):
        self.bwrap = bwrap
        self.private = tuple(private)
        """The user's paths no job reads (:attr:`SandboxSpec.private`)."""
        self.spec = SandboxSpec(SandboxKind.BWRAP, private=self.private)

    def masks(self) -> list[str]:
        """What a job sees empty of what it would see: :data:`PRIVATE_HOST_DIRS`, nl2fix's own (:func:`nl2fix_own`)
        and the user's private paths, where they lie in the system or :data:`HOST_TREES`. Real folders only (a link
        to ``/run`` is masked there); a file is shown empty."""
        paths = [Path(p) for p in PRIVATE_HOST_DIRS if _real_dir(Path(p))]
        paths += [p.resolve() for p in (*nl2fix_own(), *map(Path, self.private))]
        return [str(p) for p in dict.fromkeys(paths) if under(p, _SHOWN) and (p.is_dir() or p.is_file())]

    def masks_within(self, paths: Sequence[Path]) -> list[str]:
        """The user's private paths that lie inside a path bound for the job (``paths``), as named and where
        they lead: masked after those binds, which would otherwise show them again (Defects4J's fixes inside
        its installation, :func:`~defects4j_adapter.workspaces.confined_defects4j.fix_sources`)."""
        named = (q for p in self.private for q in (Path(os.path.abspath(p)), Path(os.path.realpath(p))))
        tops = [str(p) for p in paths]
        return [str(p) for p in dict.fromkeys(named) if under(p, tops) and (p.is_dir() or p.is_file())]

    def empty_file(self) -> str:
        """An empty file of nl2fix's, bound read-only over a private file a job would see."""
        path = cache.cache_dir() / "empty"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o644)
        return str(path)

    def tmp_dir(self, mounts: Mounts) -> str:
        return "/tmp"

    def command(
        self, args: Sequence[str], mounts: Mounts, limits: Limits
    ) -> tuple[list[str], dict[str, str], Path | None]:
        as_root = os.geteuid() == 0
        if as_root:
            # bubblewrap runs privileged (it reaches paths below /root); the job drops to a uid of its own
            uid = job_uid()
            for path in mounts.writable:
                chown_tree(path, uid)
            argv = [
                str(self.bwrap),
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
            ]
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
        argv += ["--proc", "/proc", "--dev", "/dev", *_host_devices()]
        argv += ["--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
        shown = [top for top in HOST_TREES if Path(top).is_dir()]
        for top in shown:
            argv += ["--ro-bind", top, top]
        job_paths = [*mounts.read_only, *mounts.writable]
        masks = self.masks()
        for top in EMPTY_TOP_DIRS:
            argv += _empty_like(Path(top), job_paths)
        for mask in masks:
            if Path(mask).is_dir():
                argv += _empty_like(Path(mask), job_paths)
            else:
                argv += ["--ro-bind", self.empty_file(), mask]
        hidden = [*EMPTY_TOP_DIRS, *masks]
        argv += _host_top_level(job_paths)
        visible = (*SYSTEM_DIRS, *shown)

        def seen(path: Path) -> bool:
            return under(path, visible) and not under(path, hidden) and path.exists()

        extra = [home for home in _java_homes() if not seen(home)]
        made: set[Path] = {Path("/"), Path("/tmp"), *map(Path, hidden)}
        binds: list[str] = []
        for flag, paths in (("--ro-bind", [*extra, *mounts.read_only]), ("--bind", mounts.writable)):
            for path in paths:
                if flag == "--ro-bind" and seen(path):
                    continue
                for parent in reversed(path.parents):
                    if parent not in made and not seen(parent):
                        binds += ["--perms", "0755", "--dir", str(parent)]
                        made.add(parent)
                binds += [flag, str(path), str(path)]
                made.add(path)
        argv += binds
        for mask in self.masks_within(job_paths):
            argv += ["--tmpfs", mask] if Path(mask).is_dir() else ["--ro-bind", self.empty_file(), mask]
        if mounts.links_from is not None:
            argv += ["--perms", "1777", "--size", scratch, "--tmpfs", str(SCRATCH)]
            for entry in sorted(mounts.links_from.iterdir()):
                argv += ["--symlink", str(entry), str(SCRATCH / entry.name)]
            argv += ["--chdir", str(SCRATCH)]
        env = {**BASE_ENV, "PATH": JOB_PATH, "HOME": "/tmp", **mounts.env}
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv.append("--")
        if as_root:
            argv += as_job_uid(uid)
        argv += [*limit_args(limits), *args]
        return argv, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, None


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


@register_sandbox(SandboxKind.BWRAP)
def make_bwrap(spec: SandboxSpec, quiet: bool) -> Sandbox:
    """Bubblewrap, or inside nl2fix's docker image the container's own confinement; refused with a
    hint where bubblewrap cannot confine."""
    if in_container():
        return ContainerSandbox(spec.private)
    problem = bwrap_problem()
    bwrap = which("bwrap")
    if problem or bwrap is None:
        raise Nl2FixError(
            f"cannot confine candidate code: {problem or 'bubblewrap (bwrap) is not installed'}",
            "install bubblewrap (apt-get install bubblewrap), use --sandbox docker, or, knowing that "
            "model-written code will then run with your rights, pass --sandbox none (--no-sandbox)",
        )
    return BwrapSandbox(bwrap, spec.private)
