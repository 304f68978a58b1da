"""Runs side by side on the bugs they share: per bug, which runs found a plausible fix (by one only, by
all, by none, by some), with each run's numbers for it; from the runs' gathered reports."""

from __future__ import annotations

from dataclasses import dataclass

from nl2fix.report.compare import RunRow, run_row
from nl2fix.report.data import BugRow, ReportData

ALL, NONE, SOME = "all", "none", "some"
ONLY = "only "
"""A bug's category is ``only <run id>`` when exactly that run fixed it."""


@dataclass(frozen=True)
class SharedBug:
    bug_id: str
    project: str
    rows: list[BugRow]
    """Its row in each run's report, in the runs' order."""
    category: str

    @property
    def fixed(self) -> list[bool]:
        return [r.plausible_samples > 0 for r in self.rows]


@dataclass(frozen=True)
class CompareView:
    runs: list[RunRow]
    bugs: list[SharedBug]
    """The bugs every run has, in the first run's order."""
    counts: dict[str, int]
    """Category -> bugs in it (every category, zero or not)."""
    not_shared: int
    """Bugs some run has and another has not (left out)."""


def _category(ids: list[str], fixed: list[bool]) -> str:
    if all(fixed):
        return ALL
    if not any(fixed):
        return NONE
    return ONLY + ids[fixed.index(True)] if sum(fixed) == 1 else SOME


def shared_bugs(runs: list[tuple[str, ReportData]]) -> CompareView:
    ids = [run_id for run_id, _ in runs]
    rows = [{b.bug_id: b for b in report.bugs} for _, report in runs]
    shared = [b for b in runs[0][1].bugs if all(b.bug_id in r for r in rows)]
    everything = set().union(*(set(r) for r in rows))
    bugs = []
    for first in shared:
        per_run = [r[first.bug_id] for r in rows]
        bugs.append(
            SharedBug(first.bug_id, first.project, per_run, _category(ids, [r.plausible_samples > 0 for r in per_run]))
        )
    categories = [ALL, *[ONLY + i for i in ids], *([SOME] if len(ids) > 2 else []), NONE]
    return CompareView(
        runs=[run_row(run_id, report) for run_id, report in runs],
        bugs=bugs,
        counts={c: sum(b.category == c for b in bugs) for c in categories},
        not_shared=len(everything) - len(shared),
    )
