"""Defects4J's builds and tests confined (:mod:`defects4j_adapter.workspaces.confined_defects4j`),
without Defects4J: a stand-in installation whose ``defects4j`` is a shell script that tries what a
candidate's build or tests could, run for real under bubblewrap."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j.cli import Defects4J
from defects4j_adapter.engines.defects4j import judge_test_run
from defects4j_adapter.sandbox.base import Limits, Mounts, SandboxKind, SandboxSpec
from defects4j_adapter.sandbox.bwrap import BwrapSandbox
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.workspaces import confined_defects4j
from defects4j_adapter.workspaces.confined_defects4j import LIMITS, SandboxRunner, build_sandbox, confined
from nl2fix.validation.stage import private_paths
from tests.helpers.minibench import make_run
from tests.helpers.redteam import EXAMPLES

PROBE = r"""#!/bin/sh
# defects4j CMD -w DIR: what a project's build files or tests could try
w="$3"
echo "cwd=$(pwd)"
touch "$w/built" && echo "work: written"
if touch "$D4J_HOME/framework/planted" 2>/dev/null
then echo "installation: WRITTEN"; else echo "installation: read-only"; fi
if [ -e "$D4J_TEST_PRISTINE" ]; then echo "pristine: VISIBLE"; else echo "pristine: hidden"; fi
if [ -e "$D4J_TEST_OTHER" ]; then echo "other copy: VISIBLE"; else echo "other copy: hidden"; fi
echo "patch=$(cat "$D4J_HOME/framework/projects/Csv/patches/4.src.patch" 2>/dev/null)"
echo "history=$(ls "$D4J_HOME/project_repos/commons-csv.git" 2>/dev/null)"
echo "repos=$(head -n 1 "$D4J_HOME/project_repos/README")"
echo "secret=${OPENAI_API_KEY:-none}"
echo "interfaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
echo "uid=$(id -u)"
if [ "$1" = test ]; then
  echo "a.ATest::t" > "$w/all_tests"
  ln -s /etc/hostname "$w/failing_tests"
  echo "Failing tests: 0"
fi
"""


def installation(root: Path) -> Path:
    """A Defects4J laid out as a real one (``framework/bin``, its build file, Major's Ant); its
    ``defects4j`` is :data:`PROBE`."""
    exe = root / "framework" / "bin" / "defects4j"
    exe.parent.mkdir(parents=True)
    exe.write_text(PROBE)
    exe.chmod(0o755)
    (root / "framework" / "projects").mkdir()
    (root / "framework" / "projects" / "defects4j.build.xml").write_text("<project/>\n")
    (root / "framework" / "projects" / "Csv" / "patches").mkdir(parents=True)
    (root / "framework" / "projects" / "Csv" / "patches" / "4.src.patch").write_text("- the fix\n")
    (root / "project_repos" / "commons-csv.git").mkdir(parents=True)
    (root / "project_repos" / "commons-csv.git" / "HEAD").write_text("ref: refs/heads/master\n")
    (root / "project_repos" / "README").write_text("Defects4J version 3\n")
    ant = root / "major" / "bin" / "ant"
    ant.parent.mkdir(parents=True)
    ant.write_text("#!/bin/sh\n")
    ant.chmod(0o755)
    return exe


@pytest.fixture
def layout(tmp_path):
    home = tmp_path / "defects4j"
    exe = installation(home)
    cache = tmp_path / "cache" / "d4j"
    pristine, work, other = cache / "Csv-4", cache / "Csv-4.slots" / "0", cache / "Csv-4.slots" / "1"
    for folder in (pristine, work, other):
        folder.mkdir(parents=True)
    for path in (home, *home.rglob("*")):
        path.chmod(0o777)  # so that only the mount, not the job's uid (as root), keeps it read-only
    env = {
        "PATH": f"{exe.parent}:/usr/bin:/bin",
        "D4J_HOME": str(home),
        "D4J_TEST_PRISTINE": str(pristine),
        "D4J_TEST_OTHER": str(other),
        "OPENAI_API_KEY": "sk-not-for-candidates",
        "TZ": "UTC",
    }
    return Defects4J(exe, base_env=env), home, work


def lines(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) if "=" in line else line.split(": ", 1) for line in text.splitlines() if line)


@pytest.mark.sandbox
def test_a_defects4j_build_sees_its_copy_alone_writable_and_no_network(layout, confined):
    d4j, home, work = layout
    built = confined_defects4j.confined(d4j, make_sandbox("bwrap")).compile(work)
    assert built.ok, built.describe()
    seen = lines(built.result.stdout)
    assert seen["cwd"] == str(work) and seen["work"] == "written" and (work / "built").is_file()
    assert seen["installation"] == "read-only" and not (home / "framework" / "planted").exists()
    assert seen["pristine"] == "hidden" and seen["other copy"] == "hidden"
    assert seen["secret"] == "none" and seen["interfaces"].split() == ["lo"]
    # the developers' fixes empty, what every defects4j call reads of project_repos there
    assert seen["patch"] == "" and seen["history"] == "" and seen["repos"] == "Defects4J version 3"
    if os.geteuid() == 0:
        # a uid of its own while it ran; what it wrote is the harness's again afterwards
        assert seen["uid"] != "0" and (work / "built").stat().st_uid == 0
    # unconfined, as a check that the probe can tell: everything is there
    loose = lines(d4j.compile(work).result.stdout)
    assert loose["installation"] == "WRITTEN" and loose["pristine"] == "VISIBLE" and loose["secret"] != "none"
    assert loose["patch"] == "- the fix" and loose["history"] == "HEAD"


def test_the_bubblewrap_command_line_of_a_defects4j_job(layout):
    d4j, home, work = layout
    runner = SandboxRunner(
        BwrapSandbox(Path(shutil.which("bwrap") or "/usr/bin/bwrap")),
        tuple(confined_defects4j.installation(d4j.executable, d4j.env)),
    )
    argv, _, _ = runner.sandbox.command(["defects4j", "compile"], runner.mounts(work, d4j.env), LIMITS)
    pairs = list(zip(argv, argv[1:], argv[2:]))
    assert ("--ro-bind", str(home), str(home)) in pairs and ("--bind", str(work), str(work)) in pairs
    assert "--unshare-net" in argv or "--unshare-all" in argv
    bound = {b for flag, b, _ in pairs if flag in ("--bind", "--ro-bind")}
    cache = work.parent.parent
    assert [b for b in bound if b.startswith(str(cache))] == [str(work)]  # nor the pristine, nor another copy
    assert [a for a in argv if a.startswith("OPENAI")] == [] and "D4J_HOME" in argv


def test_what_confines_defects4j_for_each_sandbox(layout, monkeypatch):
    d4j, _, _ = layout
    assert build_sandbox(None) is None and confined(d4j, None) is d4j  # nothing asked to confine
    assert confined(d4j, make_sandbox("none")) is d4j  # --no-sandbox, said loudly
    monkeypatch.setenv("NL2FIX_CONTAINER", "1")
    # inside nl2fix's docker image the container confines, each Defects4J job under a uid of its own as root
    runner = confined(d4j, make_sandbox("bwrap")).runner
    assert isinstance(runner, SandboxRunner) and runner.sandbox.name == "container"


@pytest.mark.sandbox
def test_docker_s_defects4j_builds_run_under_bubblewrap(layout, confined):
    d4j, _, _ = layout
    docker = type("Docker", (), {"spec": SandboxSpec(SandboxKind.DOCKER)})()  # the JVM image has no Defects4J
    assert isinstance(build_sandbox(docker), BwrapSandbox)
    assert isinstance(confined_defects4j.confined(d4j, make_sandbox("bwrap")).runner, SandboxRunner)


@pytest.mark.sandbox
def test_a_run_s_jobs_see_defects4j_s_fixes_empty_where_the_installation_lies_in_the_system(
    tmp_path, monkeypatch, confined
):
    # a fast or rebuild job sees /var and /usr as the machine has them: an installation there is the
    # job's to read, but for what the validation driver names private
    if not os.access("/var/lib", os.W_OK):
        pytest.skip("/var/lib is not writable here")
    folder = Path(tempfile.mkdtemp(prefix="nl2fix-d4j-", dir="/var/lib"))
    try:
        folder.chmod(0o755)
        home = folder / "defects4j"
        monkeypatch.setenv("PATH", f"{installation(home).parent}:{os.environ['PATH']}")
        with make_run(tmp_path / "run", EXAMPLES / "nl2fix_dataset.json", {"Textkit-1": ["x"]}) as run:
            private = private_paths(run, None)
        read = f"cat {home}/framework/projects/Csv/patches/4.src.patch; ls {home}/project_repos/commons-csv.git"
        script = ["sh", "-c", f"{read}; cat {home}/project_repos/README"]
        shown = make_sandbox("bwrap").run(script, Mounts(), Limits(wall_seconds=60))
        masked = make_sandbox(SandboxSpec(private=private)).run(script, Mounts(), Limits(wall_seconds=60))
        assert "- the fix" in shown.stdout and "HEAD" in shown.stdout, shown
        assert "- the fix" not in masked.stdout and "HEAD" not in masked.stdout, masked
        assert "Defects4J version 3" in masked.stdout, masked
    finally:
        shutil.rmtree(folder)


def test_only_defects4j_s_own_variables_reach_a_job():
    env = {
        "PATH": "/usr/bin",
        "JAVA_HOME": "/jdk",
        "D4J_HOME": "/d4j",
        "GIT_REPLACE_REF_BASE": "r/",
        "OPENAI_API_KEY": "sk",
        "AWS_SECRET_ACCESS_KEY": "x",
        "HOME": "/root",
        "TZ": "UTC",
    }
    assert confined_defects4j.job_environment(env) == {
        "PATH": "/usr/bin",
        "JAVA_HOME": "/jdk",
        "D4J_HOME": "/d4j",
        "GIT_REPLACE_REF_BASE": "r/",
        "TZ": "UTC",
    }


def test_a_result_file_that_is_a_link_is_never_a_pass(layout):
    d4j, _, work = layout
    run = d4j.test(work, timeout=60, test="a.ATest::t")
    assert (work / "failing_tests").is_symlink()
    assert run.failing_text == d4j_cli.NOT_A_FILE  # not /etc/hostname, read on the host through the link
    assert judge_test_run(run).harness_error  # Defects4J said 0 failures, the file says otherwise
