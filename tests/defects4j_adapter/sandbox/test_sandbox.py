"""The sandbox confines for real: bubblewrap, prlimit, and real processes."""

from __future__ import annotations

import os
import pickle
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.sandbox import base as sb
from defects4j_adapter.sandbox import bwrap
from defects4j_adapter.sandbox.base import Limits, Mounts
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.sandbox.unconfined import UnconfinedSandbox
from defects4j_adapter.workspaces.confined_defects4j import build_sandbox
from nl2fix.core.errors import Nl2FixError

NO_MOUNTS = Mounts()


def sh(box, script: str, mounts: Mounts = NO_MOUNTS, **limits):
    return box.run(["sh", "-c", script], mounts, Limits(wall_seconds=limits.pop("wall_seconds", 20), **limits))


def test_writes_land_only_in_the_writable_folder(box, tmp_path):
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    (outside / "marker").write_text("keep")
    script = f"rm -f {outside}/marker; echo x > {outside}/new; echo ok > {work}/out; echo t > /tmp/t && cat /tmp/t"
    result = sh(box, script, Mounts(read_only=(outside,), writable=(work,)))
    assert (outside / "marker").read_text() == "keep"
    assert not (outside / "new").exists()
    assert (work / "out").read_text() == "ok\n"
    assert "t" in result.stdout  # a private /tmp works
    assert "Read-only file system" in result.stderr


def test_the_host_tmp_is_not_visible(box, tmp_path):
    (tmp_path / "secret").write_text("s")
    result = sh(box, f"cat {tmp_path}/secret; ls /tmp | wc -l")
    assert "No such file" in result.stderr and result.stdout.strip() == "0"


def test_the_root_is_the_machine_s_read_only_without_its_users_and_daemons_files(box):
    # a root of binds and empty folders told a candidate it ran under nl2fix's bubblewrap, one level deeper each
    # time (red team round 8, root_listing: no /var; round 9, var_lib and dev_console: an empty /var, no console)
    script = (
        "for p in /var /var/lib /home /root /run /tmp; do test -d $p || echo missing $p; done; "
        "test -e /dev/console && echo console; cat /dev/console 2>&1 >/dev/null | grep -q denied && echo closed; "
        "touch /var/lib/x 2>/dev/null && echo wrote"
    )
    result = sh(box, script)
    words = result.stdout.split()
    assert "missing" not in words and "wrote" not in words, result.stdout
    host_console = Path("/dev/console").exists()
    assert ("console" in words) == host_console, result.stdout  # the machine's, where it has one
    assert ("closed" in words) == host_console, result.stdout  # and opened by no job
    if box.name == "bwrap":
        assert sorted(sh(box, "ls -A /var/lib").stdout.split()) == sorted(os.listdir("/var/lib"))
        assert sorted(sh(box, "ls -A /").stdout.split()) == sorted(os.listdir("/"))  # the machine's listing


def test_bubblewrap_masks_the_homes_the_daemons_sockets_and_nl2fix_s_cache_wherever_it_is(monkeypatch):
    # /var/cache holds files on any Debian machine (apt's); as nl2fix's cache a job must see it empty, like the
    # homes (the default cache, users' secrets), /opt and /srv (software, benchmarks), /run (docker's socket) and
    # /var/tmp (other users' files)
    monkeypatch.setenv("NL2FIX_CACHE_DIR", "/var/cache")
    assert os.listdir("/var/cache")
    box = make_sandbox("bwrap")
    listed = sh(box, "ls -A /home /opt /run /srv /var/tmp /var/cache 2>&1").stdout.split()
    assert listed == ["/home:", "/opt:", "/run:", "/srv:", "/var/cache:", "/var/tmp:"], listed  # each empty


def test_there_is_no_network(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    result = box.run(
        ["bash", "-c", f"echo hello > /dev/tcp/127.0.0.1/{port} && echo connected"], Mounts(), Limits(wall_seconds=20)
    )
    assert "connected" not in result.stdout and "refused" in result.stderr.lower()
    with pytest.raises(socket.timeout):
        server.accept()
    server.close()


def test_the_process_limit_stops_a_fork_bomb(box):
    result = sh(
        box, "i=0; while [ $i -lt 200 ]; do sleep 30 & i=$((i+1)); done; echo started", processes=40, wall_seconds=10
    )
    assert "fork" in result.stderr.lower() or "resource" in result.stderr.lower()
    assert not result.timed_out or result.wall_seconds < 15


def test_the_file_size_limit_stops_a_runaway_write(box, tmp_path):
    result = sh(box, "head -c 20000000 /dev/zero > /tmp/big; echo rc=$?; ls -l /tmp/big", file_size_mb=1)
    assert "rc=0" not in result.stdout
    assert "1048576" in result.stdout


def test_the_scratch_tmpfs_is_bounded(box):
    result = sh(
        box,
        "for i in 1 2 3 4 5 6; do head -c 1000000 /dev/zero > /tmp/f$i || echo full; done",
        file_size_mb=8,
        scratch_mb=3,
    )
    assert "full" in result.stdout


def test_the_wall_clock_limit_kills(box):
    result = sh(box, "sleep 60", wall_seconds=1)
    assert result.timed_out and result.wall_seconds < 10


def test_the_working_directory_links_to_the_project(box, tmp_path):
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "input.txt").write_text("hello\n")
    result = sh(
        box,
        "cat data/input.txt; echo made > new.txt; cat new.txt; echo x > data/forbidden",
        Mounts(read_only=(project,), links_from=project),
    )
    assert result.stdout.split() == ["hello", "made"]
    assert not (project / "new.txt").exists() and not (project / "data" / "forbidden").exists()


def test_a_job_s_path_is_the_system_s_in_every_sandbox(box):
    # PATH is the one environment variable a job always has: it names no folder of nl2fix's (the docker
    # image's JDK link, /opt/nl2fix-jdk, was on it), bubblewrap's and docker's alike, and java on it runs
    result = sh(box, 'echo "$PATH"; java -version 2>&1 | head -1')
    path, java = result.stdout.splitlines()
    assert path == "/usr/local/bin:/usr/bin:/bin" and "version" in java, result


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch happens only for root")
def test_root_runs_each_confined_job_as_a_uid_of_its_own(box):
    uids = {int(sh(box, "id -u").stdout) for _ in range(3)}
    assert len(uids) == 3
    assert all(sb.JOB_UID_BASE <= uid < sb.JOB_UID_BASE + sb.JOB_UID_SPAN for uid in uids)


def test_the_memory_limit_stops_a_runaway_allocation(box):
    # tail buffers a line without end: 400 MB of it meets the 100 MB limit (an address-space
    # limit under bubblewrap, the memory cgroup in a container)
    result = sh(box, "head -c 400000000 /dev/zero | tail -n 1 | wc -c", memory_mb=100)
    assert result.stdout.strip() != "400000000"


def test_a_sandbox_pickles_as_its_spec(box):
    # what a remote worker receives with the engine options: the same kind of sandbox, made anew
    copy = pickle.loads(pickle.dumps(box))
    assert type(copy) is type(box) and copy.spec == box.spec
    assert sh(copy, "echo again").stdout == "again\n"


def test_bubblewrap_keeps_the_run_s_private_paths_when_pickled_and_under_the_defects4j_engine(tmp_path):
    # a remote worker, and the defects4j engine's bubblewrap under --sandbox docker, must mask what the driver named
    private = (str(tmp_path / "run"),)
    box = make_sandbox(sb.SandboxSpec(private=private))
    assert pickle.loads(pickle.dumps(box)).spec.private == private
    docker = sb.SandboxSpec(sb.SandboxKind.DOCKER, private=private)
    assert build_sandbox(make_sandbox(docker)).spec.private == private


def test_the_job_s_folders_are_its_temporary_folder_and_working_directory_each_a_file_system_of_its_own(box, tmp_path):
    # a warm runner empties these after every job (Scratch.java) and checks what their file system
    # uses against the start: that needs each to be a private tmpfs, the job's whole quota
    mounts = Mounts(read_only=(tmp_path,), links_from=tmp_path)
    dirs = box.job_dirs(mounts)
    assert dirs == (box.tmp_dir(mounts), str(sb.SCRATCH))
    result = sh(box, f"pwd; stat -c %d / {' '.join(dirs)}", mounts)
    cwd, root, *devices = result.stdout.split()
    assert cwd == dirs[1] and len({root, *devices}) == 3, result


@pytest.mark.sandbox
def test_unconfined_empties_only_folders_of_its_own(tmp_path):
    # without a scratch folder the temporary folder is the host's /tmp, which no runner may empty
    box = UnconfinedSandbox()
    assert box.job_dirs(Mounts(links_from=tmp_path)) == ()
    scratch = tmp_path / "s"
    dirs = box.job_dirs(Mounts(links_from=tmp_path, host_scratch=scratch))
    assert dirs == (str(scratch / "tmp"), str(scratch / "cwd"))


@pytest.mark.sandbox
def test_unconfined_needs_asking_and_says_so_loudly(caplog):
    box = make_sandbox(False)
    assert isinstance(box, UnconfinedSandbox) and not box.confined
    assert [r.levelname for r in caplog.records if "UNCONFINED" in r.getMessage()] == ["WARNING"]


@pytest.mark.sandbox
def test_unconfined_still_applies_limits(tmp_path):
    box = UnconfinedSandbox()
    result = sh(
        box,
        "head -c 3000000 /dev/zero > big; ls -l big",
        Mounts(links_from=tmp_path, host_scratch=tmp_path / "s"),
        file_size_mb=1,
    )
    assert "1048576" in result.stdout


@pytest.mark.sandbox
def test_without_bubblewrap_confinement_is_refused_with_a_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap (nor anything else) on the PATH
    bwrap.bwrap_problem.cache_clear()
    try:
        with pytest.raises(Nl2FixError) as err:
            make_sandbox(True)
        assert "bubblewrap" in str(err.value) and "--no-sandbox" in err.value.hint
    finally:
        monkeypatch.undo()
        bwrap.bwrap_problem.cache_clear()


@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="the image's jobs change uid only under the container's root")
def test_in_nl2fix_s_image_root_runs_each_job_as_a_uid_of_its_own_out_of_root_s_files(monkeypatch):
    # nl2fix's docker image (NL2FIX_CONTAINER=1) runs as the container's root: a job may not read what the
    # Dockerfile closes to others (the runs, Defects4J's copies of the fixes) nor nl2fix's environment
    monkeypatch.setenv("NL2FIX_CONTAINER", "1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    box = make_sandbox("bwrap")
    assert box.name == "container" and box.confined
    base = Path(tempfile.mkdtemp(prefix="nl2fix-image-"))  # where any uid may pass, as the image's /cache
    try:
        base.chmod(0o755)
        closed, work = base / "runs", base / "work"
        for folder in (closed, work):
            folder.mkdir(mode=0o755)
        (closed / "store").write_text("the fix")
        (work / "readme").write_text("the project's\n")
        closed.chmod(0o700)
        mounts = Mounts(writable=(work,), links_from=work, host_scratch=base / "scratch")
        script = f"id -u; cat {closed}/store; cat readme; echo ok > {work}/out; echo t > $HOME/t && cat $HOME/t; env"
        result = sh(box, script, mounts)
        uid = int(result.stdout.split()[0])
        assert sb.JOB_UID_BASE <= uid < sb.JOB_UID_BASE + sb.JOB_UID_SPAN, result
        assert "Permission denied" in result.stderr and "the fix" not in result.stdout, result
        assert "the project's" in result.stdout and (work / "out").read_text() == "ok\n", result
        assert "\nt\n" in result.stdout and "sk-secret" not in result.stdout, result
    finally:
        shutil.rmtree(base)
