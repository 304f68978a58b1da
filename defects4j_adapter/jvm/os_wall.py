"""The operating system's wall around every JVM that runs or compiles candidate code: no such JVM can
open its own memory (or another process's).

A candidate's Java code can open any path, its own JVM's ``/proc/self/mem`` included, with a name
put together at run time that no class-file check sees; with its memory open it reads the job's
report key and rewrites the runner's report. nl2fix's native agent
(``defects4j_adapter/native/nl2fix_wall.c``, loaded with ``-agentpath:`` before any Java code
runs) makes the JVM non-dumpable, so that its ``/proc`` entries belong to root and a job uid that
is not root cannot open them, and installs a seccomp filter against ``ptrace``,
``process_vm_readv``/``writev`` and the like. The agent is built from that source by the system's C
compiler with the runner (:func:`defects4j_adapter.jvm.runner.runner_classes`), never downloaded.

Whether the wall holds is checked, not assumed: before it takes a job the runner tries to open its
own memory and says so on a plain line (``MemoryWall.java``), and :func:`require_closed` refuses a
JVM of a confining sandbox that could (and the runner itself refuses to start when asked to require
it). Under ``--sandbox none`` (no separate job uid) the JVM can open it: allowed, said once.
"""

from __future__ import annotations

import enum
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command, which

log = logging.getLogger(__name__)

SOURCE = Path(__file__).resolve().parents[1] / "native" / "nl2fix_wall.c"
LIBRARY = "libnl2fix_wall.so"
REQUIRED_PROPERTY = "nl2fix.memory_wall"
"""``-Dnl2fix.memory_wall=required``: the runner halts before any job when it can open its memory."""
BUILD_TIMEOUT = 120.0
LINE = "NL2FIX\tMEMORY\t"


def build_agent(dest: Path, jdk_home: Path) -> Path:
    """Compile the agent into ``dest`` with the system's C compiler and the headers of the JDK at
    ``jdk_home`` (``include/jvmti.h``; JVMTI's interface is the same in every JDK since 9)."""
    cc = which("cc") or which("gcc")
    if cc is None:
        raise Nl2FixError(
            "no C compiler (cc) to build nl2fix's native agent, which keeps candidate code out of its JVM's memory",
            "install one (apt-get install gcc, or run scripts/setup.sh)",
        )
    include = jdk_home / "include"
    if not (include / "jvmti.h").is_file():
        raise Nl2FixError(
            f"no {include / 'jvmti.h'}: nl2fix's native agent is built with the JDK's JVMTI header",
            "install a full JDK (apt-get install openjdk-17-jdk-headless) or point JAVA_HOME at one",
        )
    out = dest / LIBRARY
    result = run_command(
        [str(cc), "-O2", "-Wall", "-shared", "-fPIC", f"-I{include}", f"-I{include / 'linux'}"]
        + ["-o", str(out), str(SOURCE)],
        timeout=BUILD_TIMEOUT,
    )
    if not result.ok:
        output = (result.stdout + result.stderr)[:2000]
        raise Nl2FixError(
            f"nl2fix's native agent ({SOURCE}) does not compile:\n{output}",
            "it needs Linux's headers (apt-get install linux-libc-dev) on x86_64 or aarch64",
        )
    return out


def jvm_options(runner_dir: Path, *, confined: bool, launcher_prefix: str = "") -> list[str]:
    """The options that load the agent built into ``runner_dir``; with ``confined`` the runner is
    told to refuse work when the wall does not hold. ``launcher_prefix``: ``-J`` for javac."""
    options = [f"-agentpath:{runner_dir / LIBRARY}"]
    if confined:
        options.append(f"-D{REQUIRED_PROPERTY}=required")
    return [launcher_prefix + option for option in options]


class MemoryState(str, enum.Enum):
    """What the runner found when it tried to open its own memory."""

    CLOSED = "closed"
    OPEN = "open"
    UNREPORTED = "unreported"
    """No ``MEMORY`` line: the runner never reached its ``main``."""


@dataclass(frozen=True)
class MemoryCheck:
    state: MemoryState
    detail: str = ""
    """What opened (``/proc/self/mem (read), ...``)."""


def memory_check(text: str) -> MemoryCheck:
    """The runner's own report, its first ``MEMORY`` line: written before any code under test ran,
    whatever that code prints later."""
    for line in text.splitlines():
        if line.startswith(LINE):
            state, _, detail = line[len(LINE) :].rstrip("\r\n").partition("\t")
            return MemoryCheck(MemoryState.OPEN if state != MemoryState.CLOSED.value else MemoryState.CLOSED, detail)
    return MemoryCheck(MemoryState.UNREPORTED)


_told = threading.Event()


def require_closed(text: str, *, confined: bool, started: bool) -> None:
    """Refuse a JVM whose runner (output ``text``) could open its own memory when the sandbox
    claims to confine candidates; ``started``: the runner said it was ready, so it must have
    reported. Unconfined (``--sandbox none``) it is allowed and said once."""
    check = memory_check(text)
    if check.state is MemoryState.CLOSED or (check.state is MemoryState.UNREPORTED and not started):
        return
    what = check.detail or "the runner did not say whether it could"
    if not confined:
        if not _told.is_set():
            _told.set()
            log.warning(
                "note: --sandbox none: the test JVMs can open their own memory (%s), so a candidate "
                "could read the report's key and forge its verdict",
                what,
            )
        return
    raise Nl2FixError(
        f"refusing a test JVM that can open its own memory ({what}) although the sandbox claims to confine "
        "candidates: a candidate could read the report's key there and forge its verdict",
        "nl2fix's agent makes the JVM non-dumpable, which keeps its /proc entries from a job uid that is not "
        "root: run nl2fix as root (jobs then get uids of their own) or as an ordinary user with unprivileged "
        "user namespaces (bubblewrap), or use --sandbox docker; see docs/threat-model.md",
    )
