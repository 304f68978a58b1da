"""The operating system's wall (:mod:`defects4j_adapter.jvm.os_wall`): a JVM started as the engines
start it, under bubblewrap and in a container, cannot open its own memory; without the native agent
it can (so these tests can fail); the runner says which, and the harness refuses a confined JVM
whose memory is open. Real JVMs and sandboxes; the ordinary-user deployment as an unprivileged
account of its own (``unprivileged``)."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.jvm import os_wall, reference_java, runner
from defects4j_adapter.jvm.os_wall import MemoryState
from defects4j_adapter.sandbox.base import Limits, Mounts
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import ExecResult, run_command
from tests.helpers.paths import REPO

OPEN = "NL2FIX\tMEMORY\topen\t/proc/self/mem (read), /proc/self/mem (write)\n"
CLOSED = "NL2FIX\tMEMORY\tclosed\n"


def test_the_runner_s_first_memory_line_counts():
    # code under test may print a line of its own later: the runner's comes first
    assert os_wall.memory_check(OPEN + CLOSED).state is MemoryState.OPEN
    assert os_wall.memory_check("noise\n" + CLOSED + OPEN).state is MemoryState.CLOSED
    assert os_wall.memory_check(OPEN).detail == "/proc/self/mem (read), /proc/self/mem (write)"
    assert os_wall.memory_check("NL2FIX\tREADY\n").state is MemoryState.UNREPORTED


def test_a_confined_jvm_with_open_memory_is_refused_and_an_unconfined_one_is_told_once(caplog):
    with pytest.raises(Nl2FixError, match=r"can open its own memory \(/proc/self/mem \(read\)"):
        os_wall.require_closed(OPEN, confined=True, started=False)
    with pytest.raises(Nl2FixError, match="the runner did not say"):
        os_wall.require_closed("NL2FIX\tREADY\n", confined=True, started=True)
    os_wall.require_closed(CLOSED, confined=True, started=True)
    os_wall.require_closed("", confined=True, started=False)  # never reached main: nothing of a candidate ran
    os_wall._told.clear()
    os_wall.require_closed(OPEN, confined=False, started=True)
    os_wall.require_closed(OPEN, confined=False, started=True)
    assert caplog.text.count("--sandbox none: the test JVMs can open their own memory") == 1


def _runner_output(box, argv: list[str]) -> str:
    """What a ``serve``-mode runner prints before it reads a job (its input is closed at once)."""
    result = box.run(argv, Mounts(read_only=(runner.runner_classes(),)), Limits(wall_seconds=120), input="")
    return result.stdout


def _serve(box) -> list[str]:
    return runner.jvm_command(
        runner.runner_classes(),
        memory_mb=128,
        tmp_dir="/tmp",
        mode=["serve"],
        java=box.test_java(),
        confined=box.confined,
        argfile=False,  # the tests here take options out of it
    )


def _without_agent(argv: list[str], *, keep_required: bool = False) -> list[str]:
    return [
        a for a in argv if not a.startswith("-agentpath:") and (keep_required or os_wall.REQUIRED_PROPERTY not in a)
    ]


@pytest.mark.slow
def test_a_jvm_started_as_the_engines_start_it_cannot_open_its_own_memory(nl2fix_cache, box):
    # /proc/self/mem for reading and writing, /proc/<its pid>/mem, pagemap, environ: the runner tries
    # each before READY (MemoryWall.java)
    argv = _serve(box)
    assert any(a.startswith("-agentpath:") for a in argv)
    text = _runner_output(box, argv)
    assert os_wall.memory_check(text).state is MemoryState.CLOSED, text
    assert "NL2FIX\tREADY" in text
    # the same JVM without the agent opens all of it: the wall is the agent's, not the sandbox's alone
    opened = os_wall.memory_check(_runner_output(box, _without_agent(argv)))
    assert opened.state is MemoryState.OPEN, opened
    for what in ("/proc/self/mem (read)", "/proc/self/mem (write)", "/mem (read)", "/proc/self/pagemap (read)"):
        assert what in opened.detail, opened
    # and told to require the wall, the runner itself takes no job without it
    refused = _runner_output(box, _without_agent(argv, keep_required=True))
    assert "it takes no candidate" in refused and "NL2FIX\tREADY" not in refused, refused
    with pytest.raises(Nl2FixError, match="can open its own memory"):
        os_wall.require_closed(refused, confined=box.confined, started=False)


@pytest.mark.slow
def test_javac_runs_under_the_agent(nl2fix_cache, box, tmp_path):
    # the rebuild engine's javac gets the agent through its launcher (-J): it still compiles
    src = tmp_path / "src"
    src.mkdir()
    (src / "A.java").write_text("class A { int f() { return 1; } }\n")
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(tmp_path, 0o755)
    wall = os_wall.jvm_options(runner.runner_classes(), confined=False, launcher_prefix="-J")
    argv = [str(box.test_java().jdk.javac), *wall, "-d", str(out), str(src / "A.java")]
    mounts = Mounts(read_only=(runner.runner_classes(), src), writable=(out,))
    result = box.run(argv, mounts, Limits(wall_seconds=120))
    assert result.ok, result.stderr
    assert (out / "A.class").is_file()


USER = "nl2fix-user"
VENV = Path("/home/nl2fix-user/venv")
"""Made by scripts/setup.sh (as root): an unprivileged account and a venv of the system's Python."""


def _as_user(argv: list[str], cwd: Path, timeout: float) -> ExecResult:
    env = {"HOME": f"/home/{USER}", "PATH": f"{VENV}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    return run_command(
        ["runuser", "-u", USER, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv],
        cwd=cwd,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def ordinary_user():
    """nl2fix-user, whose unprivileged user namespaces work; skips with the reason otherwise."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as the unprivileged account (scripts/setup.sh makes it as root)")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        pytest.skip(f"no {USER} account: run scripts/setup.sh as root")
    if not (VENV / "bin" / "python").is_file() or not (VENV / "nl2fix-requirements.installed").is_file():
        pytest.skip(f"no venv with nl2fix's dependencies at {VENV}: run scripts/setup.sh as root")
    probe = _as_user(
        ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"], Path("/"), 60
    )
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot make a user namespace for {USER} here: {probe.stderr.strip()[:300]}")
    return USER


@pytest.fixture(scope="module")
def user_tree(ordinary_user):
    """A copy of this tree installed into the account's venv (setuptools writes into the source folder),
    owned by the account: ``(work folder, tree)``."""
    work = Path(tempfile.mkdtemp(prefix="nl2fix-unprivileged-", dir="/tmp"))
    try:
        tree = work / "nl2fix"
        shutil.copytree(
            REPO,
            tree,
            ignore=shutil.ignore_patterns(
                ".git", "__pycache__", "*.egg-info", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache"
            ),
        )
        uid = pwd.getpwnam(ordinary_user).pw_uid
        for path in [work, *work.rglob("*")]:
            os.lchown(path, uid, uid)
        installed = _as_user(
            [str(VENV / "bin" / "pip"), "install", "-q", "--no-deps", "--no-build-isolation", str(tree)], work, 600
        )
        assert installed.returncode == 0, installed.stderr[-2000:]
        yield work, tree
    finally:
        shutil.rmtree(work, ignore_errors=True)


AS_USER = {
    "bwrap": (
        "sandbox and not docker and not unprivileged",
        ["tests/defects4j_adapter/jvm/test_os_wall.py", "tests/defects4j_adapter/engines/test_redteam_os_wall.py"],
        5,
    ),
    # javac writing into a folder of the job's: as root the sandbox gives it to a job uid, which an ordinary
    # user cannot (every rebuild in docker failed so, with EPERM)
    "docker": ("docker and not unprivileged", ["tests/defects4j_adapter/jvm/test_os_wall.py"], 2),
}
"""Per sandbox: the tests run as the account (marker expression, files) and how many must pass."""


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.unprivileged
@pytest.mark.parametrize("sandbox", sorted(AS_USER))
def test_the_wall_holds_for_an_ordinary_user(user_tree, sandbox):
    # this file's tests and the red-team attacks on memory and standard output, run as that user: under
    # bubblewrap without root, a user namespace, no uid of the job's own; in docker as a member of the docker
    # group (scripts/setup.sh makes it one), the job as the account's own uid
    if sandbox == "docker" and USER not in _members("docker"):
        pytest.skip(f"{USER} is not in the docker group (scripts/setup.sh adds it where Docker is installed)")
    work, tree = user_tree
    markers, tests, at_least = AS_USER[sandbox]
    ran = _as_user(
        [
            str(VENV / "bin" / "python"),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            markers,
            "--basetemp",
            str(work / f"pytest-{sandbox}"),
            *tests,
        ],
        tree,
        1200,
    )
    print(ran.stdout[-3000:])
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    summary = ran.stdout.strip().splitlines()[-1]
    passed = int(summary.split(" passed")[0].split()[-1]) if " passed" in summary else 0
    # the runner's own check, javac, both engines' attacks and the harness's refusal, none skipped
    assert passed >= at_least and "skipped" not in summary and "failed" not in summary, summary


def _members(group: str) -> list[str]:
    try:
        return grp.getgrnam(group).gr_mem
    except KeyError:
        return []


def test_the_agent_is_built_from_its_source_and_needs_a_c_compiler(tmp_path, monkeypatch):
    built = os_wall.build_agent(tmp_path, reference_java.current().jdk.home)
    assert built.name == os_wall.LIBRARY and built.stat().st_size > 0
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(Nl2FixError, match=r"no C compiler") as refused:
        os_wall.build_agent(tmp_path, reference_java.current().jdk.home)
    assert "apt-get install gcc" in str(refused.value)


PROBE_C = r"""
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void say(const char *what, long rc) {
    printf("%s %s\n", what, rc == -1 && errno == EPERM ? "EPERM" : "ALLOWED");
}

int main(int argc, char **argv) {
    char here[8] = "abcdefg", there[8];
    struct iovec local = {there, 8}, remote = {here, 8};
    if (argc > 1) {
        void *agent = dlopen(argv[1], RTLD_NOW);
        typedef int (*wall)(void);
        wall close_wall = agent ? (wall)dlsym(agent, "nl2fix_wall_close") : 0;
        if (!close_wall || close_wall() != 0) { printf("no agent\n"); return 2; }
    }
    printf("dumpable %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    errno = 0; say("process_vm_readv", syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0));
    errno = 0; say("process_vm_writev", syscall(SYS_process_vm_writev, getpid(), &local, 1, &remote, 1, 0));
    errno = 0; say("ptrace", ptrace(PTRACE_PEEKDATA, getppid(), 0, 0));
    errno = 0; say("prctl_dumpable", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
    errno = 0; say("personality", personality(ADDR_NO_RANDOMIZE));
    errno = 0; say("kcmp", syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0));
    printf("personality_query %s\n", personality(0xffffffff) == -1 ? "EPERM" : "ALLOWED");
    return 0;
}
"""


def test_the_seccomp_filter_refuses_what_reaches_another_process_s_memory(nl2fix_cache, tmp_path):
    # the agent's wall (Agent_OnLoad's first step) called by a small C program, which then tries each call; without
    # the agent the same calls get through (process_vm_readv on itself, prctl, personality)
    source = tmp_path / "probe.c"
    source.write_text(PROBE_C)
    probe = tmp_path / "probe"
    built = run_command(["cc", "-o", str(probe), str(source), "-ldl"], timeout=120)
    assert built.ok, built.stderr

    def calls(*args: str) -> dict[str, str]:
        done = run_command([str(probe), *args], timeout=60)
        assert done.ok, done.stdout + done.stderr
        return dict(line.split(" ", 1) for line in done.stdout.splitlines())

    walled = calls(str(runner.runner_classes() / os_wall.LIBRARY))
    assert walled == {
        "dumpable": "0",
        "process_vm_readv": "EPERM",
        "process_vm_writev": "EPERM",
        "ptrace": "EPERM",
        "prctl_dumpable": "EPERM",
        "personality": "EPERM",
        "kcmp": "EPERM",
        "personality_query": "ALLOWED",
    }, walled
    bare = calls()
    assert bare["dumpable"] == "1" and bare["process_vm_readv"] == "ALLOWED" and bare["prctl_dumpable"] == "ALLOWED"
