"""A Ray cluster of several nodes on this machine, for the tests and ``scripts/bench_validate.py``.

Each node is a ``ray start --block`` process this object started (``--head`` first, then
``--address`` of the head), with a CPU count and an environment of its own -- its own
``NL2FIX_CACHE_DIR``, so no node sees another's workspaces. Node death is noticed within
seconds (short health checks), and :meth:`stop` ends only the processes it started. The cluster
takes a token of its own (Ray's token authentication; otherwise Ray would use, or not, whatever
``~/.ray/auth_token`` another cluster of this user left): drivers connect with :attr:`auth_env`.
"""

from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import spawn, stop, which

FAST_HEALTH_CHECKS = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command name) of every process below ``pid``, from /proc."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append((int(entry.name), name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child[0])
    return out


class LocalRayCluster:
    """``nodes`` Ray nodes of ``cpus`` CPUs each; node ``i``'s environment is this process's updated
    with ``env(i)`` (a None value removes the variable)."""

    def __init__(self, nodes: int = 2, cpus: int = 1, env: Callable[[int], dict[str, str | None]] = lambda i: {}):
        if which("ray") is None:
            raise Nl2FixError("the `ray` command is not installed", "pip install 'nl2fix[ray]'")
        # Ray's sockets live below its temp dir, and a socket's path may not exceed 107 bytes
        self.temp_dir = Path(tempfile.mkdtemp(prefix="nl2fix-ray-", dir="/tmp"))
        token = self.temp_dir / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        self.auth_env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
        """What a driver's environment needs to connect."""
        self.cpus, self.env = cpus, env
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        try:
            for _ in range(nodes):
                self.add_node()
        except BaseException:
            self.stop()
            raise

    def add_node(self) -> None:
        i = len(self.procs)
        where = (
            ["--head", "--port", str(self.port), "--include-dashboard=false", "--temp-dir", str(self.temp_dir)]
            if i == 0
            else ["--address", self.address]
        )
        given = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **FAST_HEALTH_CHECKS, **self.auth_env, **self.env(i)}
        env = {k: v for k, v in given.items() if v is not None}
        self.procs.append(
            spawn(
                [
                    "ray",
                    "start",
                    "--block",
                    "--num-cpus",
                    str(self.cpus),
                    "--node-ip-address",
                    "127.0.0.1",
                    "--disable-usage-stats",
                    *where,
                ],
                env=env,
            )
        )
        self.wait_for(i + 1)

    def wait_for(self, count: int) -> None:
        """Until node ``count - 1`` says it started (``ray start`` waits for the node to join)."""
        proc, seen = self.procs[count - 1], b""
        deadline = time.monotonic() + START_TIMEOUT
        while b"Ray runtime started" not in seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Nl2FixError(f"Ray node {count - 1} did not start in {START_TIMEOUT:.0f} s: {seen[-2000:]!r}")
            assert proc.stdout is not None and proc.stderr is not None  # spawn pipes all three streams
            ready, _, _ = select.select([proc.stdout, proc.stderr], [], [], min(left, 1.0))
            for stream in ready:
                chunk = os.read(stream.fileno(), 65536)
                seen += chunk
            if proc.poll() is not None:
                raise Nl2FixError(
                    f"Ray node {count - 1} exited while starting: {seen[-2000:].decode(errors='replace')}"
                )

    def kill_raylet(self, i: int) -> int:
        """Kill node ``i``'s raylet (as a crashed or lost machine would go); its pid."""
        for pid, name in descendants(self.procs[i].pid):
            if name == "raylet":
                os.kill(pid, signal.SIGKILL)
                return pid
        raise Nl2FixError(f"node {i} has no raylet running")

    def stop(self) -> None:
        """End the nodes, workers first (each ``ray start --block`` and everything in its process group)."""
        for proc in reversed(self.procs):
            below = descendants(proc.pid)
            stop(proc)
            for pid, _ in below:  # any that left the group
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.procs = []
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> LocalRayCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
