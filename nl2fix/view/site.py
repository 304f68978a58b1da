"""The viewer's pages as paths of files, the same served and exported, so every link is relative and a
static export opens from the file system. A run, a bug, a candidate (an anchor of its bug's page) and a
comparison each have one path, stable while the run's directory keeps its name."""

from __future__ import annotations

import re
from collections.abc import Sequence

INDEX = "index.html"
LOG_SUFFIX = ".txt"
"""Added to a raw log's name in its address: an exported log opened from the file system is shown as text
(a name without an extension would leave its type to the browser's guess from the log's first bytes)."""
COMPARE_SEPARATOR = "~"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_id(name: str, taken: set[str]) -> str:
    """A URL-safe id from a run directory's name, made unique against ``taken``."""
    base = _UNSAFE.sub("_", name).strip("._") or "run"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def run_page(run: str) -> str:
    return f"runs/{run}/{INDEX}"


def report_page(run: str) -> str:
    return f"runs/{run}/report.html"


def bug_page(run: str, bug_id: str) -> str:
    return f"runs/{run}/bugs/{bug_id}.html"


def candidate_anchor(hash: str) -> str:
    return f"c-{hash}"


def candidate_link(run: str, bug_id: str, hash: str) -> str:
    return f"{bug_page(run, bug_id)}#{candidate_anchor(hash)}"


def logs_folder(run: str) -> str:
    """Where a run's raw validation logs are (a copy of ``RUN/artifacts``)."""
    return f"runs/{run}/logs"


def log_file(run: str, bug_id: str, hash: str, name: str) -> str:
    return f"{logs_folder(run)}/{bug_id}/{hash}/{name}{LOG_SUFFIX}"


def compare_key(runs: Sequence[str]) -> str:
    return COMPARE_SEPARATOR.join(runs)


def compare_page(runs: Sequence[str]) -> str:
    return f"compare/{compare_key(runs)}/{INDEX}"


def compare_report_page(runs: Sequence[str]) -> str:
    return f"compare/{compare_key(runs)}/report.html"


def root_of(path: str) -> str:
    """The relative prefix from the page at ``path`` back to the site's root (``../`` per folder)."""
    return "../" * path.count("/")
