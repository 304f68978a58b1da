"""The Ray executor: one task per bug on a Ray cluster; the driver stays the run store's only writer.

Each bug's validation is a task (:func:`nl2fix.validation.executors.ray_task.validate_bug`) asking for
``workers`` CPUs and the memory of that many test JVMs, so all its candidates run on one node,
against one checkout and its warm JVMs. The task streams its results back as they are known; the
driver saves each one at once (a driver killed mid-run resumes from the store like a local run)
and keeps the (bug, hash, engine) keys it has saved, so a result delivered twice is stored once.
A task whose node is lost is run again elsewhere by Ray (``max_retries``); an exception in the
task itself is not retried (it would happen again) and reaches the user with the bug and node.

The nodes get nl2fix's own code with each job (``runtime_env`` ``py_modules``) and a bundled-style
project's tree in the task's arguments; they need Python, Ray and nl2fix's dependencies, a JDK,
bubblewrap (or ``--no-sandbox``), and Defects4J for Defects4J bugs (``deploy/ray/``).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from defects4j_adapter.contract import COMPILER_MEMORY_MB, DEFAULT_MEMORY_MB
from defects4j_adapter.workspaces import local as local_workspace
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.validation.bug_work import BUGGY, FIXED, BaselineCheck
from nl2fix.validation.executors import ray_task
from nl2fix.validation.executors.base import (
    Executor,
    ValidationDriver,
    register_executor,
)
from nl2fix.validation.options import ExecutorKind, ExecutorSpec, ValidationOptions

MAX_RETRIES = 3
"""Attempts after the first for a task whose worker or node died."""
JVM_OVERHEAD_MB = 256
"""Memory of a JVM beyond its heap (metaspace, code cache, threads) and of its share of the task."""
PACKAGES = ("nl2fix", "defects4j_adapter", "ranking", "prompts")
POLL_SECONDS = 1.0
CONNECT_TIMEOUT = 10.0


def placement(workers: int, memory_mb: int = DEFAULT_MEMORY_MB) -> dict[str, int]:
    """The resources one bug's task asks for: a CPU per worker, and the memory of its test JVM and of
    its JVM that compiles."""
    per_worker = memory_mb + COMPILER_MEMORY_MB + 2 * JVM_OVERHEAD_MB
    return {"num_cpus": workers, "memory": workers * per_worker * 2**20}


def infeasible(nodes: list[dict[str, Any]], request: dict[str, int]) -> str | None:
    """Why no live node of ``ray.nodes()`` can ever run a task asking for ``request``, or None."""
    alive: list[dict[str, Any]] = [n.get("Resources", {}) for n in nodes if n.get("Alive")]
    if any(r.get("CPU", 0) >= request["num_cpus"] and r.get("memory", 0) >= request["memory"] for r in alive):
        return None
    biggest = max(alive, key=lambda r: (r.get("CPU", 0), r.get("memory", 0)), default={})
    return (
        f"no node of the Ray cluster has {request['num_cpus']} CPU(s) and {request['memory'] / 2**30:.1f} GiB "
        f"for one bug's task (the largest of {len(alive)} node(s): {biggest.get('CPU', 0):g} CPU(s), "
        f"{biggest.get('memory', 0) / 2**30:.1f} GiB)"
    )


def runtime_env() -> dict[str, Any]:
    """nl2fix's own packages, shipped to every node with the job, so nodes run the driver's code."""
    modules = [importlib.import_module(name).__path__[0] for name in PACKAGES]
    return {"py_modules": modules, "excludes": ["__pycache__", "*.pyc"]}


def _unreachable(address: str) -> str | None:
    """Why nothing answers at a ``HOST:PORT`` address, or None (``ray.init`` would retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or "://" in address or not port.isdigit():
        return None
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


@contextmanager
def connected(address: str) -> Iterator[ModuleType]:
    """The ``ray`` module, connected to the cluster at ``address`` (left connected if it already was)."""
    import ray

    if ray.is_initialized():
        yield ray
        return
    hint = (
        "start one (`ray start --head` on this machine; docs/guides/ray.md), or name it with "
        "--ray-address HOST:PORT or RAY_ADDRESS"
    )
    problem = _unreachable(address)
    if problem:
        raise Nl2FixError(f"cannot connect to a Ray cluster at {address}: {problem}", hint)
    try:
        ray.init(address=address, runtime_env=runtime_env(), log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise Nl2FixError(f"cannot connect to a Ray cluster at {address}: {exc}", hint) from exc
    try:
        yield ray
    finally:
        ray.shutdown()


class _Projects:
    """Each bundled-style project tree put in the object store once, for every task that needs it."""

    def __init__(self, ray: ModuleType, projects_dir: Path | None):
        self.ray, self.projects_dir = ray, projects_dir
        self.refs: dict[Path, tuple[str, object]] = {}

    def of(self, bug: Bug) -> tuple[str | None, object]:
        project = local_workspace.benchmark_project(bug, self.projects_dir)
        if project is None:
            return None, None  # a Defects4J bug: the node checks it out itself
        if project not in self.refs:
            archive = ray_task.pack_project(project)
            self.refs[project] = (hashlib.sha256(archive).hexdigest()[:16], self.ray.put(archive))
        return self.refs[project]


class RayExecutor:
    def __init__(self, address: str):
        self.address = address

    def run(self, driver: ValidationDriver, options: ValidationOptions) -> None:
        if driver.workspaces is not None:
            raise Nl2FixError(
                "a project built on this machine (`nl2fix fix`) cannot be validated on a Ray cluster",
                "use --executor local",
            )
        with connected(self.address) as ray:
            request = placement(options.settings.workers)
            problem = infeasible(ray.nodes(), request)
            if problem:
                raise Nl2FixError(problem, "lower --workers (the CPUs each bug's task takes), or add bigger nodes")
            task = ray.remote(ray_task.validate_bug).options(**request, max_retries=MAX_RETRIES, retry_exceptions=False)
            projects = _Projects(ray, driver.projects_dir)
            streams: dict[object, Bug] = {}
            for bug in driver.bugs:
                baselines = {h: r for h in (FIXED, BUGGY) if (r := driver.done(bug.id, h)) is not None}
                todo = driver.todo(bug)
                if len(baselines) == 2 and not todo:
                    driver.checked(BaselineCheck(bug, baselines[FIXED], baselines[BUGGY]))
                    continue
                job = ray_task.BugJob(
                    bug=bug, options=options, baselines=baselines, candidates=tuple((c.hash, c.code) for c in todo)
                )
                streams[task.remote(job, *projects.of(bug))] = bug
            _Collector(ray, driver).collect(streams)


class _Collector:
    """The driver's loop: each result saved as it arrives, once."""

    def __init__(self, ray: ModuleType, driver: ValidationDriver):
        self.ray, self.driver = ray, driver
        self.saved: set[tuple[str, str, str]] = set()
        self.nodes: dict[str, str] = {}
        self.environment_recorded = False

    def collect(self, streams: dict[object, Bug]) -> None:
        ray = self.ray
        while streams:
            ready, _ = ray.wait(list(streams), num_returns=1, timeout=POLL_SECONDS)
            for stream in ready:
                bug = streams[stream]
                try:
                    message = ray.get(next(stream))
                except StopIteration:
                    del streams[stream]
                    continue
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, ray_task.BugTaskError) else exc
                    raise Nl2FixError(
                        f"validation failed: {cause}", "fix the cause and re-run: verdicts already stored are kept"
                    ) from None
                except ray.exceptions.RayError as exc:
                    raise Nl2FixError(
                        f"{bug.id}'s task failed on node {self.nodes.get(bug.id, '(not started)')} after "
                        f"{MAX_RETRIES} retries: {exc}",
                        "re-run to resume: verdicts already stored are kept",
                    ) from None
                self.handle(bug, message)

    def handle(self, bug: Bug, message: object) -> None:
        if isinstance(message, ray_task.Started):
            self.nodes[bug.id] = message.node
            if not self.environment_recorded:
                self.driver.record_environment(message.environment)
                self.environment_recorded = True
        elif isinstance(message, ray_task.Checked):
            self.driver.checked(message.check)
        elif isinstance(message, ray_task.Result):
            record = message.record
            key = (record.bug_id, record.hash, record.engine)
            if key in self.saved:
                return
            ray_task.write_logs(self.driver.log_root(bug) / record.hash, message.logs)
            self.driver.save(record, message.candidate)
            self.saved.add(key)


@register_executor(ExecutorKind.RAY)
def make_ray(spec: ExecutorSpec) -> Executor:
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise Nl2FixError("--executor ray needs the ray package", "pip install 'nl2fix[ray]'") from exc
    return RayExecutor(spec.address)
