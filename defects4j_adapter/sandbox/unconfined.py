"""``--sandbox none``: limits and timeouts without confinement, and the confinement of nl2fix's
docker image, which is the same thing inside a container.

:class:`UnconfinedSandbox` keeps the limits and timeouts but confines nothing; it exists for
machines without bubblewrap and is used only when asked for with ``--no-sandbox``, loudly.
:class:`ContainerSandbox` is the same inside nl2fix's docker image, where the container confines
(what ``--sandbox bwrap`` gets there, see :mod:`defects4j_adapter.sandbox.bwrap`).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from defects4j_adapter.jvm import aot
from defects4j_adapter.sandbox.base import (
    BASE_ENV,
    JOB_PATH,
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
    others_can_read,
    register_sandbox,
)
from nl2fix.core.errors import Nl2FixError

log = logging.getLogger(__name__)

CONTAINER_ENV = "NL2FIX_CONTAINER"
"""Set to 1 by docker/Dockerfile: the process runs inside nl2fix's validation container."""
IMAGE_RUNS = "/runs"
"""Where docker/Dockerfile has users mount their runs."""


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

    def job_dirs(self, mounts: Mounts) -> tuple[str, ...]:
        # without a scratch folder of its own the temporary folder is the host's: nothing to empty
        if mounts.host_scratch is None:
            return ()
        return (self.tmp_dir(mounts), *([str(mounts.host_scratch / "cwd")] if mounts.links_from is not None else []))

    def command(
        self, args: Sequence[str], mounts: Mounts, limits: Limits
    ) -> tuple[list[str], dict[str, str], Path | None]:
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
        return [*limit_args(limits), *args], env, cwd


class ContainerSandbox(UnconfinedSandbox):
    """Inside nl2fix's docker image (``NL2FIX_CONTAINER=1``, run with ``--network none``) the
    container is the confinement: jobs keep the limits and timeouts and need no bubblewrap, which
    an unprivileged container cannot start anyway. Run as the container's root (the image's default),
    each job runs as a uid of its own without capabilities, as bubblewrap's jobs do, with Defects4J's
    environment and nothing of nl2fix's (no API key): the run's folder, Defects4J's copies of the fixes and
    its installation, root's and closed to others in the image, are out of its reach, which a job running as
    nl2fix's own user is not (it owned them)."""

    name = "container"
    confined = True

    def __init__(self, private: Sequence[str] = ()):
        # the image's runs folder holds every run's store (each bug's fixed method), not only this one's
        self.spec = SandboxSpec(SandboxKind.BWRAP, private=tuple(dict.fromkeys((IMAGE_RUNS, *private))))

    def command(
        self, args: Sequence[str], mounts: Mounts, limits: Limits
    ) -> tuple[list[str], dict[str, str], Path | None]:
        argv, env, cwd = super().command(args, mounts, limits)
        if os.geteuid() != 0:
            return argv, env, cwd
        uid = job_uid()
        home = self.tmp_dir(mounts)  # made before the job's uid takes the scratch folder
        for path in (*mounts.writable, *([mounts.host_scratch] if mounts.host_scratch is not None else [])):
            chown_tree(path, uid)
        job_env = {**BASE_ENV, "PATH": env.get("PATH", JOB_PATH), "HOME": home, **mounts.env}
        return [*as_job_uid(uid), *argv], job_env, cwd

    def precompiled(self) -> aot.Library:
        # as root each job is a uid of its own, which reads the library where it lies (nothing is mounted here):
        # under root's closed home (the default folder: Ubuntu's /root is 0700) every JVM would stop at its start
        library = super().precompiled()
        closed = [p for p in library.paths if not others_can_read(p)] if os.geteuid() == 0 else []
        if closed:
            _say_closed(closed[0])
            return aot.Library(why_not=f"the jobs' uids cannot read {closed[0]}")
        return library


@functools.cache
def _say_closed(library: Path) -> None:
    log.warning(
        "the JDK's precompiled code (%s) is in a folder the jobs' uids cannot read; they compile it themselves. "
        "Set %s to a folder others may search (the image's: /cache/aot)",
        library,
        aot.DIR_ENV,
    )


def in_container() -> bool:
    return os.environ.get(CONTAINER_ENV) == "1"


@register_sandbox(SandboxKind.NONE)
def make_unconfined(spec: SandboxSpec, quiet: bool) -> Sandbox:
    """The unconfined sandbox, which says loudly what it gives up (unless ``quiet``: a copy remade
    in another process)."""
    if not quiet:
        log.warning(
            "WARNING: --sandbox none: candidate code runs UNCONFINED (network, your files); only time, memory, "
            "process and file-size limits apply%s",
            " (and not the process limit: running as root)" if os.geteuid() == 0 else "",
        )
    if shutil.which("prlimit") is None:
        raise Nl2FixError("prlimit (util-linux) is not installed", "install util-linux")
    return UnconfinedSandbox()
