"""One bug's validation as a Ray task: the node's side.

The task gets everything in its arguments -- the bug record, the candidates' code, the baselines
already stored, the validation settings, and the bug's project tree packed when it is a
bundled-style one -- and nothing that names a path on the driver's machine: it prepares the
workspace in the node's own ``$NL2FIX_CACHE_DIR``, validates the candidates with ``workers``
threads sharing the bug's warm JVMs, and streams its results back as a generator: one
:class:`Started`, a :class:`Result` per baseline still to do, one :class:`Checked`, then a
:class:`Result` per candidate. They come in the job's order, whatever order the threads finish
in: a retried task is replayed by Ray, which skips the items the driver already received by
their position, so the positions must mean the same thing in every attempt.
"""

from __future__ import annotations

import functools
import gzip
import io
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from defects4j_adapter import cache
from defects4j_adapter.engines.providers import make_engine
from defects4j_adapter.jvm import reference_java
from nl2fix.core.domain import Bug, Verdict
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.bug_work import BaselineCheck, BugRun, Reference
from nl2fix.validation.executors.pool import WorkPool
from nl2fix.validation.options import ValidationOptions

SHIPPED = "shipped-projects"
"""Below the node's cache: bundled-style project trees unpacked from the driver, by content."""
LOGS = "ray-logs"
LOG_BYTES = 64 * 1024
"""Raw logs sent back per validation: Ray keeps results under 100 KiB with their owner (the driver),
so a node lost after sending one loses nothing the driver has not got."""


@dataclass(frozen=True)
class BugJob:
    """What a node needs to validate one bug."""

    bug: Bug
    options: ValidationOptions
    """The driver's, as the command made them; the node has its own projects folder and cache."""
    candidates: tuple[tuple[str, str], ...]
    """(hash, code) of each candidate to validate, in order."""
    baselines: dict[Reference, ValidationRecord] = field(default_factory=dict)
    """The ``fixed``/``buggy`` records already stored (not redone; ``fixed`` gives the tests required)."""


@dataclass(frozen=True)
class Started:
    node: str
    """``IP (node id prefix)``: named in errors."""
    environment: dict[str, Any]
    """Where the tests run on the node (:func:`reference_java.environment`)."""


@dataclass(frozen=True)
class Result:
    record: ValidationRecord
    candidate: bool
    """False for the baselines."""
    logs: dict[str, bytes]
    """The validation's raw logs by relative path, cut to :data:`LOG_BYTES` in all."""


@dataclass(frozen=True)
class Checked:
    check: BaselineCheck


def pack_project(project_dir: Path) -> bytes:
    """``project_dir`` (``<Project>/fixed`` and ``patches``) as a gzipped tar holding ``<Project>/``;
    the same tree always packs to the same bytes, so a node unpacks it once."""
    buf = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0) as gz,  # no time in the gzip header
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        for path in [project_dir, *sorted(project_dir.rglob("*"))]:
            info = tar.gettarinfo(str(path), arcname=str(Path(project_dir.name) / path.relative_to(project_dir)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isfile():
                with open(path, "rb") as fh:
                    tar.addfile(info, fh)
            else:
                tar.addfile(info)
    return buf.getvalue()


def unpack_project(archive: bytes, key: str, cache_base: Path) -> Path:
    """The folder holding the unpacked ``<Project>/``: a bundled-style ``projects_dir`` on this node."""

    def build(tmp: Path) -> None:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            tar.extractall(tmp, filter="data")  # no absolute paths, links out of tmp or devices

    return cache.build_once(cache_base / SHIPPED / key, build)


def pack_logs(folder: Path, limit: int = LOG_BYTES) -> dict[str, bytes]:
    """The files below ``folder``, smallest first, each cut so that all of them fit in ``limit``."""
    files = sorted((p for p in folder.rglob("*") if p.is_file()), key=lambda p: (p.stat().st_size, p))
    out: dict[str, bytes] = {}
    for i, path in enumerate(files):
        share = (limit - sum(map(len, out.values()))) // (len(files) - i)
        data = path.read_bytes()
        out[str(path.relative_to(folder))] = data if len(data) <= share else data[:share] + b"\n[cut by nl2fix]\n"
    return out


def write_logs(folder: Path, logs: dict[str, bytes]) -> None:
    for name, data in logs.items():
        target = (folder / name).resolve()
        if folder.resolve() not in target.parents:
            continue  # a node names files below the folder only
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


class InOrder:
    """Items put in any order under their positions, handed out in position order; a failure
    ends the iteration with its exception."""

    def __init__(self, count: int):
        self.count = count
        self.items: dict[int, object] = {}
        self.failure: BaseException | None = None
        self.cv = threading.Condition()

    def put(self, position: int, item: object) -> None:
        with self.cv:
            self.items[position] = item
            self.cv.notify_all()

    def fail(self, exc: BaseException) -> None:
        with self.cv:
            self.failure = exc
            self.cv.notify_all()

    def __iter__(self) -> Iterator[object]:
        for position in range(self.count):
            with self.cv:
                while position not in self.items and self.failure is None:
                    self.cv.wait(timeout=1.0)
                if position not in self.items:
                    assert self.failure is not None  # the wait above ends with the item or a failure
                    raise self.failure
                item = self.items.pop(position)
            yield item


class BugTaskError(Exception):
    """A bug's task failed on a node (not a verdict: the harness itself); names both."""


def node_name() -> str:
    import ray

    context = ray.get_runtime_context()
    return f"{ray.util.get_node_ip_address()} ({context.get_node_id()[:8]})"


def validate_bug(job: BugJob, project_key: str | None, project: bytes | None) -> Iterator[object]:
    """The Ray task (a generator): see the module's docstring."""
    node = node_name()
    try:
        yield from _validate(job, project_key, project, node)
    except Exception as exc:
        raise BugTaskError(f"{job.bug.id} on node {node}: {type(exc).__name__}: {exc}") from None


def _on(node: str, record: ValidationRecord) -> ValidationRecord:
    """A harness error says which node it happened on (its Java, its sandbox)."""
    if record.verdict is not Verdict.ERROR:
        return record
    return record.model_copy(update={"detail": f"{record.detail} [node {node}]".strip()})


def _validate(job: BugJob, project_key: str | None, project: bytes | None, node: str) -> Iterator[object]:
    base = cache.cache_dir()
    projects_dir = None
    if project is not None:
        assert project_key is not None  # the driver sends a project with its key (ray_executor._Projects.of)
        projects_dir = unpack_project(project, project_key, base)
    options = job.options.engine_options(projects_dir)
    engine = make_engine(job.options.engine, options)
    (base / LOGS).mkdir(parents=True, exist_ok=True)
    logs = Path(tempfile.mkdtemp(prefix=f"{job.bug.id}-", dir=base / LOGS))
    try:
        yield Started(node, reference_java.environment(job.options.engine, options.sandbox))
        run = BugRun(engine, job.bug, log_root=logs, all_tests=job.options.all_tests)

        def result(record: ValidationRecord, candidate: bool) -> Result:
            return Result(_on(node, record), candidate, pack_logs(logs / record.hash))

        baselines: list[Result] = []
        check = run.baselines(job.baselines.get, lambda record, candidate: baselines.append(result(record, candidate)))
        # (Ray resumes its generator with send(), which `yield from` would pass to a list's iterator)
        item: object
        for item in baselines:
            yield item
        yield Checked(check)

        ordered = InOrder(len(job.candidates))
        pool = WorkPool(job.options.settings.workers, engine.close)

        def candidate_task(position: int, hash: str, code: str) -> None:
            ordered.put(position, result(run.candidate(hash, code), True))

        for j, (hash, code) in enumerate(job.candidates):
            pool.submit(0, (0, 1, j), functools.partial(candidate_task, j, hash, code))

        def drive() -> None:
            try:
                pool.run()
            except BaseException as exc:
                ordered.fail(exc)

        driver = threading.Thread(target=drive, daemon=True)
        driver.start()
        try:
            for item in ordered:
                yield item
        finally:
            pool.stopping = True
            driver.join()
    finally:
        engine.close()
        shutil.rmtree(logs, ignore_errors=True)
