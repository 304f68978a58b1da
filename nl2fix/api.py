"""nl2fix's public read API: open a run directory, read its records and its numbers.

Everything here is stable across releases (within a major version); the modules it draws on are
not, so scripts and notebooks should import from ``nl2fix.api`` only::

    from nl2fix.api import Verdict, open_run

    with open_run("runs/example") as run:
        for bug in run.bugs():
            plausible = [v.hash for v in run.verdicts(bug.id) if v.verdict is Verdict.PLAUSIBLE]
        numbers = run.numbers()
        print(numbers.pass_at_k[1], numbers.ranked_pass_at_k)

A run is opened read-only: nothing is written, so a run another command is still writing, an
archived copy or a read-only mount can be read (a store of an older schema is read through a
migrated copy in memory). The records are the run store's pydantic models; their field
docstrings say what each value means.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from nl2fix.core.domain import Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.report.data import ReportData, collect
from nl2fix.store.records import CandidateRecord, RankingEntry, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdict_source import verdict_engine

__all__ = [
    "Bug",
    "CandidateRecord",
    "Nl2FixError",
    "RankingEntry",
    "ReportData",
    "Run",
    "RunConfig",
    "SampleRecord",
    "ValidationRecord",
    "Verdict",
    "open_run",
]


class Run:
    """One run directory, open for reading; use it as a context manager (or call :meth:`close`)."""

    def __init__(self, run_dir: Path | str):
        self.run_dir = Path(run_dir)
        """The run directory (it holds ``run.sqlite`` and the candidates' artifacts)."""
        self._store = RunStore(self.run_dir, read_only=True)

    def close(self) -> None:
        """Close the run's store."""
        self._store.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    @property
    def config(self) -> RunConfig | None:
        """How the run was started (dataset, backend, model, strategy, n ...); None before sampling began."""
        return self._store.config if self._store.has_config() else None

    @property
    def engine(self) -> str | None:
        """The validation engine whose verdicts the numbers use (``defects4j``, else ``fast``, else
        ``rebuild``); None when no candidate was validated."""
        return verdict_engine(self._store)

    def bugs(self) -> list[Bug]:
        """The run's bugs, in run order."""
        return self._store.bugs()

    def samples(self, bug_id: str | None = None) -> list[SampleRecord]:
        """Every answer of the model (one per sample index, duplicates included), of one bug or all."""
        return self._store.samples(bug_id)

    def candidates(self, bug_id: str) -> list[CandidateRecord]:
        """A bug's unique candidates (the code of equal samples, once), in the order they first came."""
        return self._store.candidates(bug_id)

    def verdicts(self, bug_id: str | None = None, engine: str | None = None) -> list[ValidationRecord]:
        """Validation records (verdict, failing tests, behaviour, CPU seconds ...), of one bug or all, of one
        engine or every engine. The baselines are among them, under the hashes ``buggy`` and ``fixed``."""
        return self._store.validations(bug_id, engine)

    def ranking(self, bug_id: str, ranker: str) -> list[RankingEntry]:
        """A bug's candidates as ``ranker`` ordered them, best first (empty before ``nl2fix rank``)."""
        return self._store.ranking(bug_id, ranker)

    def rankers(self) -> list[str]:
        """The rankers that ranked this run's candidates."""
        return self._store.rankers()

    def numbers(self, *, codebleu: bool = False) -> ReportData:
        """Every number of the run's report, as ``nl2fix report --format json`` gives them: pass@k and its
        interval, ranked pass@k, likely-correct pass@k, per-project counts, candidate statistics, exact
        matches, cost ... ``codebleu`` scores candidates by CodeBLEU too (slow the first time)."""
        return collect(self.run_dir, codebleu=codebleu)


def open_run(run_dir: Path | str) -> Run:
    """Open a run directory for reading; :class:`Nl2FixError` says why one cannot be read."""
    return Run(run_dir)
