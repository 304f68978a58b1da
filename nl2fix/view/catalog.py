"""The runs a viewer shows, and each run's report numbers gathered once and kept while its store is
unchanged: gathering a 283-bug x 100-sample run takes seconds, serving a page from what was gathered
takes milliseconds. A run still being written is gathered again on the next page after each write."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from nl2fix.core.errors import Nl2FixError
from nl2fix.report import html
from nl2fix.report.compare import compare_document, compare_reports
from nl2fix.report.data import ReportData, collect
from nl2fix.report.layout import report_document
from nl2fix.store.run_dirs import existing_runs
from nl2fix.store.run_store import STORE_FILE
from nl2fix.view import site

T = TypeVar("T")


@dataclass(frozen=True)
class Run:
    """One run the viewer serves."""

    id: str
    """Its id in URLs: the directory's name, made URL-safe and unique among the runs shown."""
    run_dir: Path


def store_state(run_dir: Path) -> tuple:
    """What changes when a store is written: the size and time of its file and of its write-ahead log when that
    holds anything (the first reader creates an empty one, which changes nothing)."""
    files = [run_dir / STORE_FILE, run_dir / f"{STORE_FILE}-wal"]
    return tuple((s.st_size, s.st_mtime_ns) for s in (f.stat() for f in files if f.exists()) if s.st_size)


class Catalog:
    """The runs, in the order given, with their gathered reports and rendered report pages."""

    def __init__(self, run_dirs: Sequence[Path]):
        if not run_dirs:
            raise Nl2FixError("no run to view", "pass --run DIR (repeatable), or start one with `nl2fix run`")
        taken: set[str] = set()
        self.runs: list[Run] = []
        for run_dir in run_dirs:
            if not (Path(run_dir) / STORE_FILE).is_file():
                raise Nl2FixError(
                    f"{run_dir} is not a run directory (no {STORE_FILE})",
                    "pass the directory given to `nl2fix run --run DIR`",
                )
            self.runs.append(Run(site.run_id(Path(run_dir).resolve().name, taken), Path(run_dir)))
            taken.add(self.runs[-1].id)
        self._by_id = {r.id: r for r in self.runs}
        self._cache: dict[tuple, tuple[tuple, object]] = {}
        self._lock = threading.Lock()
        self._building: dict[tuple, threading.Lock] = {}

    @classmethod
    def from_runs_dir(cls, base: Path) -> Catalog:
        """Every run under ``base`` (``runs/``), the most recently written first."""
        runs = existing_runs(base)
        if not runs:
            raise Nl2FixError(f"no run under {base}/", "pass --run DIR, or start one with `nl2fix run`")
        return cls(runs)

    def run(self, run_id: str) -> Run | None:
        return self._by_id.get(run_id)

    def _cached(self, key: tuple, runs: Sequence[Run], make: Callable[[], T]) -> T:
        """``make()``, kept until a store of ``runs`` changes; one thread makes it, others wait for it."""
        state = tuple(store_state(r.run_dir) for r in runs)
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:
            hit = self._cache.get(key)
            if hit is None or hit[0] != state:
                hit = self._cache[key] = (state, make())
            return cast(T, hit[1])

    def report(self, run: Run) -> ReportData:
        """The run's report numbers (no CodeBLEU: it would score every new candidate first)."""
        return self._cached(("report", run.id), [run], lambda: collect(run.run_dir, codebleu=False))

    def report_html(self, run: Run) -> str:
        """The report's facts, tables and figures as an HTML fragment (its figures take a second or two)."""
        return self._cached(("report-html", run.id), [run], lambda: html.body(report_document(self.report(run))))

    def compare_html(self, runs: Sequence[Run]) -> str:
        """``nl2fix compare``'s tables and figures as an HTML fragment (its equal-budget table reads the stores
        again)."""

        def make() -> str:
            return html.body(compare_document(compare_reports([r.id for r in runs], [self.report(r) for r in runs])))

        return self._cached(("compare-html", *[r.id for r in runs]), runs, make)

    def problem(self, run: Run) -> Nl2FixError | None:
        """Why ``run`` cannot be shown (its store gone, damaged or another tool's), None when it can."""
        try:
            self.report(run)
        except Nl2FixError as exc:
            return exc
        return None

    def gather(self) -> list[tuple[Run, Nl2FixError]]:
        """Gather every run's numbers now (before the first page asks); returns the runs that cannot be
        read (the others are shown, these as such), and raises when no run can."""
        broken = [(run, problem) for run in self.runs if (problem := self.problem(run)) is not None]
        if len(broken) == len(self.runs):
            raise broken[0][1]
        return broken

    def warm(self) -> None:
        """Render what is slow to render (the reports' figures), for a background thread."""
        readable = [run for run in self.runs if self.problem(run) is None]
        try:
            for run in readable:
                self.report_html(run)
            if len(readable) > 1:
                self.compare_html(readable)
        except Nl2FixError:
            pass  # a run that went away meanwhile: its pages say so when asked
