"""``--sandbox docker``: candidate code in a container of the JVM image
(:mod:`defects4j_adapter.sandbox.images`).

Each confined job (the fast engine's warm JVM, a rebuild's javac or test run) gets a container
of its own, which lives as long as the job: the fast engine's lives as long as its warm JVM,
i.e. per bug and worker across up to hundreds of candidates. The container's main process
only sleeps; the job is ``exec``'d into it through the Docker SDK, and its standard streams
(the runner's line protocol, the per-job key) travel over the exec's socket. That keeps the
container's cgroup alive until nl2fix has read the job's CPU time from it: the processes of a
container are not nl2fix's children, so ``wait4`` cannot count them.

Confinement: ``--network none``, a read-only root, the job's paths bound at their own place
(read-only unless the job must write there), a size-limited tmpfs for ``/tmp`` and the working
directory, memory, process-count, CPU-share and file-size limits, as root a uid of the job's own (as
under bubblewrap, see :func:`defects4j_adapter.sandbox.base.job_uid`; run by an ordinary user in the
docker group, that user's uid: it cannot give the job's files to another), no capabilities,
``no-new-privileges``, and an init that reaps what the job leaves. On a timeout the whole
container is killed; the next job gets a new one.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import os
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from defects4j_adapter.sandbox import images
from defects4j_adapter.sandbox.base import (
    BASE_ENV,
    JOB_PATH,
    SCRATCH,
    SYSTEM_DIRS,
    Limits,
    Mounts,
    Sandbox,
    SandboxKind,
    SandboxSpec,
    chown_tree,
    job_uid,
    register_sandbox,
    under,
)
from nl2fix.core.processes import DEFAULT_OUTPUT_LIMIT, ExecResult, clip_output

STOP_TIMEOUT = 30
_LINK_AND_RUN = 'cd "$1"; shift; while [ "$1" != -- ]; do ln -sfn "$1" .; shift; done; shift; exec "$@"'
"""Run as ``sh -c`` before the job: the working directory's links to the project's entries."""

CONSOLE = "/dev/console"


class _SocketWriter:
    """The exec's standard input: bytes go to the socket; closing it half-closes the socket."""

    def __init__(self, sock):
        self._sock = sock
        self.closed = False

    def write(self, data: bytes) -> int:
        self._sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered."""

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self._sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass


class ContainerProcess:
    """A job exec'd into a container of its own, shaped like the ``Popen`` the engines read:
    binary ``stdin``/``stdout``/``stderr``, ``poll``/``wait``; :meth:`kill` removes the container."""

    def __init__(self, container, exec_id: str, api, sock):
        self.container, self.exec_id, self._api, self._sock = container, exec_id, api, sock
        self._raw = sock._sock if hasattr(sock, "_sock") else sock
        self.stdin = _SocketWriter(self._raw)
        out_r, self._out_w = os.pipe()
        err_r, self._err_w = os.pipe()
        self.stdout, self.stderr = os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb")
        self.returncode: int | None = None
        self._eof = threading.Event()
        self._cpu_file = _cpu_file(container)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        from docker.utils.socket import frames_iter

        fds = {1: self._out_w, 2: self._err_w}
        try:
            for stream, data in frames_iter(self._sock, tty=False):
                fd = fds.get(stream)
                if fd is not None and data:
                    try:
                        os.write(fd, data)
                    except OSError:
                        fds.pop(stream)  # nobody reads it any more
        except OSError:
            pass  # the container was killed under the socket
        finally:
            for fd in (self._out_w, self._err_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._eof.set()

    def poll(self) -> int | None:
        if self.returncode is None and self._eof.is_set():
            state = self._api.exec_inspect(self.exec_id)
            if not state.get("Running"):
                self.returncode = state.get("ExitCode")
                if self.returncode is None:
                    self.returncode = -9
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._eof.wait(timeout):
            assert timeout is not None  # a wait without a timeout returns only once the flag is set
            raise subprocess.TimeoutExpired("docker exec", timeout)
        deadline = time.monotonic() + 5
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.returncode if self.returncode is not None else -9

    def cpu_seconds(self) -> float:
        """CPU seconds of everything run in the container so far (its cgroup's account)."""
        if self._cpu_file is not None:
            try:
                return _read_cpu(self._cpu_file)
            except (OSError, ValueError):
                pass
        try:
            stats = self.container.stats(stream=False)
            return stats["cpu_stats"]["cpu_usage"]["total_usage"] / 1e9
        except Exception:
            return 0.0

    def kill(self) -> float:
        """Remove the container and everything in it; its CPU seconds."""
        cpu = self.cpu_seconds()
        try:
            self.container.remove(force=True)
        except Exception:
            pass
        self._eof.wait(STOP_TIMEOUT)
        if self.returncode is None:
            self.returncode = -9
        for stream in (self.stdin, self.stdout, self.stderr, self._raw):
            try:
                stream.close()
            except OSError:
                pass
        return cpu


def _cpu_file(container) -> Path | None:
    """The cgroup file that accounts the container's CPU time (cgroup v1 or v2), from its init's
    ``/proc/<pid>/cgroup``; None when it cannot be found (the SDK's stats are read instead)."""
    pid = container.attrs.get("State", {}).get("Pid") or 0
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            for top in (controllers, "cpuacct", "cpu,cpuacct"):
                candidate = Path(f"/sys/fs/cgroup/{top}{path}/cpuacct.usage")
                if candidate.is_file():
                    return candidate
        if controllers == "" and Path(f"/sys/fs/cgroup{path}/cpu.stat").is_file():
            return Path(f"/sys/fs/cgroup{path}/cpu.stat")
    return None


def _read_cpu(path: Path) -> float:
    text = path.read_text()
    if path.name == "cpuacct.usage":
        return int(text) / 1e9
    for line in text.splitlines():
        if line.startswith("usage_usec "):
            return int(line.split()[1]) / 1e6
    raise ValueError(f"no usage_usec in {path}")


PID_LABEL = "nl2fix.pid"
"""Each container names the nl2fix process that made it: no container outlives its process."""


def _remove_containers(keep) -> None:
    """Remove the sandbox's containers whose maker ``keep(pid)`` does not vouch for."""
    try:
        containers = images.client().containers.list(all=True, filters={"label": PID_LABEL})
    except Exception:
        return
    for container in containers:
        if not keep(int(container.labels.get(PID_LABEL, "0") or 0)):
            try:
                container.remove(force=True)
            except Exception:
                pass


def _alive(pid: int) -> bool:
    return pid > 0 and Path(f"/proc/{pid}").exists()


@functools.cache
def _clean_up_at_exit(pid: int) -> None:
    atexit.register(_remove_containers, lambda maker: maker != pid)


class DockerSandbox(Sandbox):
    name = "docker"
    confined = True

    def __init__(self, spec: SandboxSpec):
        self.image = spec.image or images.ensure()
        self.spec = dataclasses.replace(spec, image=self.image)  # a remote copy runs the very same image
        # a killed nl2fix leaves its containers sleeping: whoever comes next removes them, and this
        # process removes its own when it exits
        _remove_containers(_alive)
        _clean_up_at_exit(os.getpid())
        self._java = images.test_java(self.image)

    def test_java(self):
        return self._java

    def tmp_dir(self, mounts: Mounts) -> str:
        return "/tmp"

    def _mounts(self, mounts: Mounts):
        from docker.types import Mount

        out, seen = [], set()
        for paths, read_only in ((mounts.read_only, True), (mounts.writable, False)):
            for path in paths:
                # the image has its own system (JUnit at the same Debian paths); the host's stays out
                if read_only and under(path, SYSTEM_DIRS) or str(path) in seen:
                    continue
                seen.add(str(path))
                out.append(Mount(target=str(path), source=str(path), type="bind", read_only=read_only))
        if Path(CONSOLE).exists():
            # the machine's console, present as on the machine and opened by no job (root's alone, and the
            # container's own uid is not root): a container started without a terminal has none, which told a
            # candidate it ran under nl2fix (the ninth red team's dev_console)
            out.append(Mount(target=CONSOLE, source=CONSOLE, type="bind", read_only=True))
        return out

    def spawn(self, args: Sequence[str], mounts: Mounts, limits: Limits) -> ContainerProcess:
        from docker.types import Ulimit

        if os.geteuid() == 0:
            uid = job_uid()
            for path in mounts.writable:
                chown_tree(path, uid)
        else:
            # an ordinary user (in the docker group) cannot give files away: the job runs as that user's
            # uid, which owns its writable paths already, as under bubblewrap without root
            uid = os.getuid()
        tmpfs = f"size={limits.scratch_mb}m,mode=1777"
        ulimits = [Ulimit(name="fsize", soft=limits.file_size_mb << 20, hard=limits.file_size_mb << 20)]
        if limits.cpu_seconds:
            ulimits.append(Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds))
        memory = f"{limits.memory_mb or self.spec.memory_mb}m"
        client = images.client()
        container = client.containers.run(
            self.image,
            ["sleep", "infinity"],
            detach=True,
            init=True,
            user=f"{uid}:{uid}",
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": tmpfs, str(SCRATCH): tmpfs},
            mounts=self._mounts(mounts),
            mem_limit=memory,
            memswap_limit=memory,
            pids_limit=limits.processes,
            nano_cpus=int(self.spec.cpus * 1e9),
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            ulimits=ulimits,
            labels={PID_LABEL: str(os.getpid())},
        )
        try:
            container.reload()  # its init's pid, for the cgroup
            return self._exec(container, args, mounts, uid)
        except BaseException:
            container.remove(force=True)
            raise

    def _exec(self, container, args: Sequence[str], mounts: Mounts, uid: int) -> ContainerProcess:
        env = {**BASE_ENV, "PATH": JOB_PATH, "HOME": "/tmp", **mounts.env}
        argv = list(args)
        if mounts.links_from is not None:
            links = [str(e) for e in sorted(mounts.links_from.iterdir())]
            argv = ["sh", "-c", _LINK_AND_RUN, "sh", str(SCRATCH), *links, "--", *argv]
        api = images.client().api
        exec_id = api.exec_create(
            container.id,
            argv,
            stdin=True,
            stdout=True,
            stderr=True,
            user=f"{uid}:{uid}",
            environment=env,
            workdir=str(SCRATCH) if mounts.links_from else "/tmp",
        )["Id"]
        sock = api.exec_start(exec_id, socket=True)
        return ContainerProcess(container, exec_id, api, sock)

    def run(self, args, mounts, limits, input=None) -> ExecResult:
        start = time.monotonic()
        proc = self.spawn(args, mounts, limits)
        chunks: dict[str, list[bytes]] = {"out": [], "err": []}

        def drain(stream, into):
            for block in iter(lambda: stream.read1(65536), b""):
                into.append(block)

        readers = [
            threading.Thread(target=drain, args=(s, chunks[k]), daemon=True)
            for s, k in ((proc.stdout, "out"), (proc.stderr, "err"))
        ]
        for reader in readers:
            reader.start()
        if input is not None:
            proc.stdin.write(input.encode())
        proc.stdin.close()
        timed_out = not proc._eof.wait(max(0.0, limits.wall_seconds - (time.monotonic() - start)))
        returncode = -9 if timed_out else proc.wait(5)
        cpu = proc.kill()
        for reader in readers:
            reader.join(5)
        out, cut_out = clip_output(b"".join(chunks["out"]), DEFAULT_OUTPUT_LIMIT)
        err, cut_err = clip_output(b"".join(chunks["err"]), DEFAULT_OUTPUT_LIMIT)
        return ExecResult(
            tuple(map(str, args)),
            returncode,
            out,
            err,
            time.monotonic() - start,
            cpu,
            timed_out=timed_out,
            truncated=cut_out or cut_err,
        )

    def cpu_seconds(self, proc: ContainerProcess) -> float:
        return proc.cpu_seconds()

    def stop(self, proc: ContainerProcess, graceful: bool = True) -> float:
        # the cgroup counts every CPU second without the JVM's orderly exit
        return proc.kill()


@register_sandbox(SandboxKind.DOCKER)
def make_docker(spec: SandboxSpec, quiet: bool) -> Sandbox:
    return DockerSandbox(spec)
