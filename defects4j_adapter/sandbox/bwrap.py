"""``--sandbox bwrap`` (the default): candidate code under bubblewrap on the host (Linux).

No network (its own network namespace), a read-only view of the system and of the paths a job
needs, write access only to the job's own directories, a private size-limited tmpfs for ``/tmp``
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
from collections.abc import Sequence
from pathlib import Path

from defects4j_adapter.jvm import reference_java
from defects4j_adapter.sandbox.base import (
    BASE_ENV,
    JOB_PATH,
    SCRATCH,
    SYSTEM_DIRS,
    CommandSandbox,
    Limits,
    Mounts,
    Sandbox,
    SandboxKind,
    SandboxSpec,
    chown_tree,
    job_uid,
    limit_args,
    register_sandbox,
    under,
)
from defects4j_adapter.sandbox.unconfined import ContainerSandbox, in_container
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command, which

EMPTY_TOP_DIRS = ("/boot", "/home", "/media", "/mnt", "/opt", "/root", "/run", "/srv", "/sys", "/var")
"""The rest of a Linux system's top-level folders, empty in the job's root: a root of only the system's
binds, ``/tmp``, ``/proc``, ``/dev`` and the job's paths told a candidate it ran under nl2fix's bubblewrap
(``new File("/var").exists()`` false: the eighth red team's ``root_listing``). Empty folders show no host
data; a path a job needs below one of them (a cache under ``/root``) is bound inside it as before."""


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

    spec = SandboxSpec(SandboxKind.BWRAP)

    def __init__(self, bwrap: Path):
        self.bwrap = bwrap

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
        argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
        for top in EMPTY_TOP_DIRS:
            argv += ["--perms", "0755", "--dir", top]
        extra = [home for home in _java_homes() if not under(home, SYSTEM_DIRS)]
        made: set[Path] = {Path("/"), Path("/tmp"), *map(Path, EMPTY_TOP_DIRS)}
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
        env = {**BASE_ENV, "PATH": JOB_PATH, "HOME": "/tmp", **mounts.env}
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv.append("--")
        if as_root:
            argv += [
                "setpriv",
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "--no-new-privs",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
            ]
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
        return ContainerSandbox()
    problem = bwrap_problem()
    bwrap = which("bwrap")
    if problem or bwrap is None:
        raise Nl2FixError(
            f"cannot confine candidate code: {problem or 'bubblewrap (bwrap) is not installed'}",
            "install bubblewrap (apt-get install bubblewrap), use --sandbox docker, or, knowing that "
            "model-written code will then run with your rights, pass --sandbox none (--no-sandbox)",
        )
    return BwrapSandbox(bwrap)
