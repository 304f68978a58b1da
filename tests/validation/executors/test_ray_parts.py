"""The Ray executor's pure parts: what a task carries and how its results come back (no cluster)."""

from __future__ import annotations

import pickle
import threading
import time

import pytest

from defects4j_adapter.contract import EngineSettings
from defects4j_adapter.sandbox.base import SandboxKind, SandboxSpec
from nl2fix.core.domain import Engine
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.dataset.load import open_dataset
from nl2fix.validation.executors.ray_executor import infeasible, placement
from nl2fix.validation.executors.ray_task import BugJob, InOrder, pack_logs, pack_project, unpack_project, write_logs
from nl2fix.validation.options import ExecutorKind, ExecutorSpec, ValidationOptions


def test_a_project_ships_as_the_same_bytes_and_unpacks_once_per_node(tmp_path):
    project = EXAMPLE_BENCHMARK / "projects" / "Textkit"
    archive = pack_project(project)
    assert archive == pack_project(project)  # content-keyed: the same tree is the same archive
    where = unpack_project(archive, "k1", tmp_path)
    unpacked = sorted(p.relative_to(where / "Textkit") for p in (where / "Textkit").rglob("*"))
    assert unpacked == sorted(p.relative_to(project) for p in project.rglob("*"))
    assert (where / "Textkit" / "patches" / "1.src.patch").read_bytes() == (
        project / "patches" / "1.src.patch"
    ).read_bytes()
    assert unpack_project(b"not even gzip", "k1", tmp_path) == where  # built once: not unpacked again


def test_logs_sent_back_fit_the_limit_and_stay_below_their_folder(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "small.txt").write_bytes(b"s" * 100)
    (folder / "sub").mkdir()
    (folder / "sub" / "big.txt").write_bytes(b"b" * 10_000)
    logs = pack_logs(folder, limit=2_000)
    assert logs["small.txt"] == b"s" * 100  # small files whole, the big one cut
    assert logs["sub/big.txt"].startswith(b"b" * 1_000) and logs["sub/big.txt"].endswith(b"[cut by nl2fix]\n")
    assert sum(len(v) for v in logs.values()) <= 2_000 + len(b"\n[cut by nl2fix]\n")
    out = tmp_path / "out"
    write_logs(out, {**logs, "../escape.txt": b"x"})
    assert (out / "sub" / "big.txt").read_bytes() == logs["sub/big.txt"]
    assert not (tmp_path / "escape.txt").exists()


def test_results_finished_out_of_order_come_out_in_order():
    ordered = InOrder(3)

    def finish():
        for position in (2, 0, 1):
            time.sleep(0.05)
            ordered.put(position, f"r{position}")

    threading.Thread(target=finish).start()
    assert list(ordered) == ["r0", "r1", "r2"]


def test_a_failure_ends_the_results_with_its_exception():
    ordered = InOrder(3)
    ordered.put(0, "r0")
    ordered.fail(RuntimeError("jvm"))
    items = iter(ordered)
    assert next(items) == "r0"
    with pytest.raises(RuntimeError, match="jvm"):
        next(items)


def test_a_job_pickles_with_its_validation_options():
    bug = open_dataset("example").resolve("Textkit-1")
    options = ValidationOptions(
        engine=Engine.REBUILD,
        sandbox=SandboxSpec(SandboxKind.DOCKER, image="nl2fix-jvm:x", cpus=2.0),
        settings=EngineSettings(workers=3, test_timeout=10.0, candidate_timeout=120.0),
        all_tests=True,
    )
    job = pickle.loads(pickle.dumps(BugJob(bug=bug, options=options, candidates=(("h", "code"),))))
    assert job.options == options and job.bug == bug and job.options.settings.workers == 3


def test_placement_and_infeasible_requests():
    request = placement(2, memory_mb=1024)
    # a test JVM (1 GiB heap) and a compiling one (512 MiB) a worker, 256 MiB each beyond the heap
    assert request == {"num_cpus": 2, "memory": 2 * (1024 + 512 + 2 * 256) * 2**20}
    small = {"Alive": True, "Resources": {"CPU": 1.0, "memory": 8 * 2**30}}
    big = {"Alive": True, "Resources": {"CPU": 4.0, "memory": 8 * 2**30}}
    dead_big = {"Alive": False, "Resources": {"CPU": 64.0, "memory": 64 * 2**30}}
    assert infeasible([small, big], request) is None
    problem = infeasible([small, dead_big], request)
    assert problem is not None and "2 CPU(s)" in problem and "1 CPU(s)" in problem


def test_ray_address_without_ray_is_refused(monkeypatch):
    with pytest.raises(Nl2FixError, match="--executor ray"):
        ExecutorSpec(ExecutorKind.LOCAL, "10.0.0.1:6379")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.2:6379")
    assert ExecutorSpec(ExecutorKind.RAY).address == "10.0.0.2:6379"
    assert ExecutorSpec(ExecutorKind.RAY, "10.0.0.3:6379").address == "10.0.0.3:6379"
    monkeypatch.delenv("RAY_ADDRESS")
    assert ExecutorSpec(ExecutorKind.RAY).address == "auto"
