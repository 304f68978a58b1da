"""Every subprocess call goes through :func:`run_command`: a timeout, a typed result, CPU time.

CPU time is measured per call with ``wait4`` (it covers the child and the descendants it
waited for), so engines can be compared in CPU-seconds even when many calls run in parallel; a call
killed at its timeout is measured from ``/proc`` first (:func:`tree_cpu`), as the descendants killed
with it are reaped by no one who reports them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from resource import struct_rusage

DEFAULT_OUTPUT_LIMIT = 1_000_000
_CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ExecResult:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_seconds: float
    cpu_seconds: float
    timed_out: bool = False
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


class _RusagePopen(subprocess.Popen[bytes]):
    """Popen that keeps the child's resource usage from ``wait4``, whichever call reaps it: ``wait()``
    reaps through ``_try_wait``, ``poll()`` (and ``__del__``) through ``_internal_poll``'s ``waitpid``,
    and a child reaped by plain ``waitpid`` would report no CPU time at all."""

    rusage: struct_rusage | None = None

    def _reap(
        self, pid: int, flags: int, _wait4: Callable[[int, int], tuple[int, int, struct_rusage]] = os.wait4
    ) -> tuple[int, int]:
        """``os.waitpid``'s call and answer, keeping the usage. ``os.wait4`` is bound as a default
        because ``__del__`` may poll while the interpreter is tearing down its modules."""
        reaped, status, usage = _wait4(pid, flags)
        if reaped == pid:
            self.rusage = usage
        return reaped, status

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            return self._reap(self.pid, wait_flags)
        except ChildProcessError:  # as Popen's own: SIGCHLD ignored, the child's status is gone
            return self.pid, 0

    def _internal_poll(self, _deadstate: int | None = None, **_: object) -> int | None:
        internal_poll: Callable[..., int | None] = super()._internal_poll  # type: ignore[misc]  # private, untyped
        return internal_poll(_deadstate=_deadstate, _waitpid=self._reap)


def clip_output(data: bytes, limit: int) -> tuple[str, bool]:
    """Decoded output, cut to ``limit`` characters with a note of what was cut; whether it was."""
    text = data.decode("utf-8", errors="replace")
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n[... {len(text) - limit} characters cut]", True


def run_command(
    args: Sequence[str | os.PathLike[str]],
    *,
    timeout: float,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    output_limit: int = DEFAULT_OUTPUT_LIMIT,
) -> ExecResult:
    """Run ``args`` with a hard timeout; on timeout the whole process group is killed."""
    argv = tuple(str(a) for a in args)
    start = time.monotonic()
    try:
        proc = _RusagePopen(
            argv,
            cwd=str(cwd) if cwd is not None else None,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        return ExecResult(argv, 127, "", f"{exc}", 0.0, 0.0)
    timed_out, killed_cpu = False, 0.0
    try:
        out, err = proc.communicate(input.encode() if input is not None else None, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        # a JVM under a build tool under a shell, killed together: wait4 reports only what the child
        # reaped, and the JVM that ran the loop is reaped by no one who reports it
        killed_cpu = tree_cpu(proc.pid)
        _kill_group(proc)
        out, err = proc.communicate()
    wall = time.monotonic() - start
    cpu = max(killed_cpu, proc.rusage.ru_utime + proc.rusage.ru_stime if proc.rusage else 0.0)
    stdout, cut_out = clip_output(out, output_limit)
    stderr, cut_err = clip_output(err, output_limit)
    return ExecResult(argv, proc.returncode, stdout, stderr, wall, cpu, timed_out, cut_out or cut_err)


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


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def which(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(found) if found else None


def spawn(
    args: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start a long-lived process (a warm JVM serving requests) with pipes on all three streams,
    in its own process group. The caller bounds every wait on it and ends it with :func:`stop`."""
    return _RusagePopen(
        tuple(str(a) for a in args),
        cwd=str(cwd) if cwd is not None else None,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen[bytes]) -> float:
    """Kill a process started by :func:`spawn` (its whole group) and reap it; its CPU seconds."""
    if proc.poll() is None:
        _kill_group(proc)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    usage = getattr(proc, "rusage", None)
    return usage.ru_utime + usage.ru_stime if usage else 0.0
