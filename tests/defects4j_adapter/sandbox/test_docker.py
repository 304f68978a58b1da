"""``--sandbox docker`` for real: a Docker daemon, the JVM image built from Debian packages, real
javac and JUnit in containers. The confinement tests themselves (network, fork bomb, memory, disk,
time, the red-team corpus) are the bubblewrap ones, parametrized over the sandbox kind
(``test_sandbox.py`` here, ``engines/test_redteam.py``, ``engines/test_fast.py``); here is what only the
container has: its image, its CPU account, its life cycle, and the same verdicts as bubblewrap.
"""

from __future__ import annotations

import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.jvm.reference_java import environment_key
from defects4j_adapter.sandbox import images
from defects4j_adapter.sandbox.base import Limits, Mounts, SandboxKind, SandboxSpec
from defects4j_adapter.sandbox.docker import PID_LABEL
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command
from nl2fix.dataset.load import EXAMPLE_BENCHMARK, open_dataset
from nl2fix.store.run_store import RunStore
from nl2fix.validation.stage import validate
from tests.helpers.minibench import MINIBENCH_JSON, engine_options, make_run, validation_options
from tests.helpers.paths import REPO

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def docker_box():
    return make_sandbox(SandboxKind.DOCKER)


def _ours():
    return images.client().containers.list(all=True, filters={"label": f"{PID_LABEL}={os.getpid()}"})


def test_the_image_is_tagged_by_content_and_kept_when_present(docker_box, invoke_cli):
    result = invoke_cli("image", "build", "--base", images.LOCAL_BASE)
    assert result.exit_code == 0, result.output
    # setup.sh built it: never again for the same inputs
    tag, kept = result.output.split()[0], "is present" in result.output
    assert kept and tag.startswith(f"{images.REPOSITORY}:") and "java: tests on Java" in result.output
    image = images.client().images.get(tag)
    assert image.labels[images.RECIPE_LABEL] == images.recipe_hash(images.default_jdk_major())
    base = images.client().images.get(images.LOCAL_BASE).id
    assert tag == images.image_tag(base, images.default_jdk_major())
    assert images.image_tag(base, 17) != tag and images.image_tag(base + "0", images.default_jdk_major()) != tag
    java = docker_box.test_java()
    assert java.jdk.home == images.JDK_HOME and java.jdk.major >= 11


def test_the_container_runs_without_root_network_or_capabilities(docker_box):
    result = docker_box.run(
        ["sh", "-c", "id -u; grep CapEff /proc/self/status; ls /sys/class/net; touch /x"],
        Mounts(),
        Limits(wall_seconds=60),
    )
    uid, caps, *rest = result.stdout.split("\n")
    assert int(uid) != 0 and caps.split()[1] == "0000000000000000"
    assert rest[0] == "lo"  # --network none: loopback only
    assert "Read-only file system" in result.stderr


def test_cpu_seconds_come_from_the_container_s_cgroup(docker_box):
    result = docker_box.run(
        ["sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"], Mounts(), Limits(wall_seconds=60)
    )
    assert result.ok
    # the shell is no child of nl2fix: only the cgroup can have counted its seconds
    assert 0.2 < result.cpu_seconds <= result.wall_seconds * 1.5


def test_a_sandbox_pickles_as_its_spec_and_is_remade_in_another_process(docker_box, tmp_path):
    blob = pickle.dumps(engine_options(tmp_path, sandbox=docker_box))
    script = (
        "import pickle, sys\nfrom defects4j_adapter.sandbox.base import Limits, Mounts\n"
        "options = pickle.load(sys.stdin.buffer)\n"
        "r = options.sandbox.run(['sh', '-c', 'echo remote'], Mounts(), Limits(wall_seconds=60))\n"
        "print(type(options.sandbox).__name__, options.sandbox.image, r.stdout.strip())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=blob,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().split() == ["DockerSandbox", docker_box.image, "remote"]


def test_a_warm_jvm_lives_in_one_container_which_a_timeout_replaces(docker_box, nl2fix_cache, minibench):
    engine = FastEngine(engine_options(nl2fix_cache, sandbox=docker_box))
    ws = engine.prepare(minibench.bugs["Mini-1"])
    before = {c.id for c in _ours()}
    # (a pass after the first job would be confirmed in a fresh JVM, in a container of its own)
    for code in (ws.bug.fixed_method, ws.bug.buggy_method, ws.bug.buggy_method):
        engine.run(ws, code)
    running = {c.id for c in _ours()} - before
    assert len(running) == 2  # two containers served the three candidates: the JVM that compiles, the test JVM
    # a loop that swallows the runner's attempts to stop it leaves the JVM in doubt: it must go
    loop = ws.bug.fixed_method.replace(
        "{", "{ if (System.nanoTime() != 0) { while (true) { try { while (true) { } } catch (Throwable t) { } } }", 1
    )
    outcome = engine.run(ws, loop)
    assert outcome.timed_out
    # the test JVM's container killed and removed, not left spinning; the compiling one, which ran none of it, stays
    assert len(running & {c.id for c in _ours()}) == 1
    assert engine.run(ws, ws.bug.fixed_method).phase.value == "done"
    engine.close()
    assert {c.id for c in _ours()} <= before


@pytest.mark.slow
def test_the_example_benchmark_gets_the_same_verdicts_under_bwrap_and_docker(confined, nl2fix_cache, tmp_path):
    dataset_json = EXAMPLE_BENCHMARK / "nl2fix_dataset.json"
    bugs = open_dataset("example").bugs.values()
    candidates = {
        b.id: [
            b.fixed_method,
            b.buggy_method,
            b.fixed_method.rstrip()[:-1],
            b.fixed_method.replace("{", '{ if (true) throw new IllegalStateException("x");', 1),
        ]
        for b in bugs
    }
    verdicts = {}
    for kind in ("bwrap", "docker"):
        make_run(tmp_path / kind, dataset_json, candidates).close()
        summary = validate(
            tmp_path / kind,
            validation_options(sandbox=SandboxSpec.of(kind), test_timeout=10, candidate_timeout=60),
            progress=False,
        )
        assert summary.by_verdict, summary
        with RunStore(tmp_path / kind) as store:
            verdicts[kind] = {
                (b.id, r.hash): (r.verdict, sorted(r.failing_tests))
                for b in bugs
                for r in store.validations(b.id, "fast")
            }
    assert verdicts["bwrap"] == verdicts["docker"]
    assert len(verdicts["docker"]) == 6 * len(candidates)  # four candidates and two baselines per bug
    seen = Counter(v.value for (_, h), (v, _) in verdicts["docker"].items() if h not in ("fixed", "buggy"))
    # Textkit-4's ground truth calls a helper its fix adds outside the method: uncompilable alone
    assert seen["plausible"] == len(candidates) - 1 and seen["wrong"] == 2 * len(candidates) - 1
    assert seen["uncompilable"] >= len(candidates)
    with RunStore(tmp_path / "docker") as store:
        assert "sandbox: docker" in store.get_meta_json(environment_key("fast"))["summary"]


def test_a_cache_behind_a_private_folder_gets_the_same_verdicts_as_bubblewrap(confined, minibench, monkeypatch):
    # As a user runs it: the cache in the home folder (root's is mode 700, and so is the base image's),
    # not in /tmp (the container's own tmpfs, which would hide the problem); the folder stays private.
    private = Path(tempfile.mkdtemp(prefix="nl2fix-docker-test-", dir=Path.home()))
    try:
        private.chmod(0o700)
        monkeypatch.setenv("NL2FIX_CACHE_DIR", str(private / "cache"))
        candidates = {b.id: [b.fixed_method, b.buggy_method] for b in minibench.bugs.values()}
        verdicts = {}
        for kind in ("bwrap", "docker"):
            make_run(private / kind, MINIBENCH_JSON, candidates).close()
            validate(
                private / kind,
                validation_options(sandbox=SandboxSpec.of(kind), test_timeout=10, candidate_timeout=60),
                progress=False,
            )
            with RunStore(private / kind) as store:
                verdicts[kind] = {
                    (b, r.hash): r.verdict.value for b in candidates for r in store.validations(b, "fast")
                }
        assert verdicts["docker"] == verdicts["bwrap"]
        assert Counter(verdicts["docker"].values()) == {"plausible": 3, "wrong": 5}  # none is `error`
        assert stat.S_IMODE(private.stat().st_mode) == 0o700
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_the_command_line_refuses_contradicting_sandbox_options(invoke_cli, tmp_path):
    result = invoke_cli("validate", "--run", tmp_path, "--sandbox", "docker", "--no-sandbox")
    assert result.exit_code == 2 and "--no-sandbox contradicts --sandbox docker" in result.output


def test_setup_s_base_image_script_keeps_a_present_base():
    result = run_command(["bash", str(REPO / "scripts" / "make_base_image.sh"), images.LOCAL_BASE], timeout=60)
    assert result.ok and "present; kept" in result.stdout


def test_without_a_daemon_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    images.client.cache_clear()
    try:
        with pytest.raises(Nl2FixError) as err:
            make_sandbox(SandboxKind.DOCKER)
        assert "no Docker daemon answers" in str(err.value) and "--sandbox bwrap" in err.value.hint
    finally:
        monkeypatch.undo()
        images.client.cache_clear()
