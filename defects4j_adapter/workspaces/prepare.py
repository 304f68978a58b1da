"""Preparing bugs ahead of validation, several at once, into the machine-wide cache.

A prepared bug is its checked-out, compiled buggy revision with its class paths and tests (see
:mod:`defects4j_adapter.workspaces.defects4j`, or :mod:`defects4j_adapter.workspaces.local` for a
bundled-style benchmark); every later run on the machine finds it there. Preparing also checks
that the buggy method is where splicing will look for it, so a bug that cannot be validated
says so now rather than as an ``error`` verdict for each of its candidates.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.d4j.cli import Defects4J
from defects4j_adapter.workspaces import local as local_workspace
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.progress import progress_bar
from nl2fix.java_source import splice


class PrepareStatus(str, enum.Enum):
    READY = "ok"
    CORRECTED = "note"
    """Ready; splicing corrects where the dataset says the buggy method is."""
    FAILED = "FAIL"


@dataclass(frozen=True)
class Preparation:
    bug: Bug
    status: PrepareStatus
    detail: str = ""
    """Why it failed, or the correction splicing makes."""


def prepare_one(bug: Bug, options: EngineOptions) -> Preparation:
    try:
        workspace = prepare_workspace(bug, options)
        source = workspace.buggy_file().read_bytes().decode(workspace.encoding)
    except (Nl2FixError, OSError, UnicodeDecodeError) as exc:
        return Preparation(bug, PrepareStatus.FAILED, str(exc))
    return check_location(bug, source)


def check_location(bug: Bug, source: str) -> Preparation:
    """Whether splicing finds ``bug``'s buggy method in ``source`` (its buggy file's text), and
    what it corrects to find it."""
    try:
        location = splice.locate(source, bug.buggy_method, bug.start_line, bug.end_line)
    except splice.SpliceError as exc:
        return Preparation(bug, PrepareStatus.FAILED, f"{bug.path}: {exc}")
    if location.corrected:
        return Preparation(bug, PrepareStatus.CORRECTED, location.note)
    return Preparation(bug, PrepareStatus.READY)


def prepare_bugs(
    bugs: list[Bug], options: EngineOptions, *, workers: int = 2, progress: bool = True
) -> Iterator[Preparation]:
    """Prepare each bug (``workers`` at a time), yielding each as it is done. Raises an
    :class:`Nl2FixError` at once when Defects4J bugs are asked for and it is not installed."""
    if any(local_workspace.benchmark_project(b, options.projects_dir) is None for b in bugs):
        Defects4J.find()
    bar = progress_bar(total=len(bugs), desc="prepare", unit="bug", enabled=progress)
    pool = ThreadPoolExecutor(max(1, workers))
    try:
        for future in as_completed([pool.submit(prepare_one, bug, options) for bug in bugs]):
            bar.update(1)
            yield future.result()
    finally:
        # interrupted: what is under way finishes (the cache stays whole), the rest is dropped
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
