"""The public read API, used as a user's script would: only ``nl2fix.api`` is imported. The run read is
the version-1 store of tests/fixtures/store_v1 (one bug, three samples: h1 twice and plausible, h2 wrong,
ranked h1 then h2 by ``paper``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import nl2fix.api as api
from nl2fix.api import Nl2FixError, Verdict, open_run

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store_v1" / "run.sqlite"


@pytest.fixture
def run_dir(tmp_path) -> Path:
    shutil.copy(FIXTURE, tmp_path / "run.sqlite")
    return tmp_path


def test_a_runs_records_read_back(run_dir):
    with open_run(run_dir) as run:
        assert run.config is not None and (run.config.dataset, run.config.n) == ("example", 3)
        assert [b.id for b in run.bugs()] == ["Textkit-1"]
        assert [s.candidate_hash for s in run.samples("Textkit-1")] == ["h1", "h2", "h1"]
        assert [(c.hash, c.count) for c in run.candidates("Textkit-1")] == [("h1", 2), ("h2", 1)]
        assert run.engine == "fast"
        verdicts = {v.hash: v for v in run.verdicts("Textkit-1", engine="fast")}
        assert verdicts["h1"].verdict is Verdict.PLAUSIBLE and verdicts["h2"].verdict is Verdict.WRONG
        assert verdicts["h2"].failing_tests == list(run.bugs()[0].trigger_tests)
        assert run.verdicts(engine="defects4j") == []
        assert run.rankers() == ["paper"] and [e.hash for e in run.ranking("Textkit-1", "paper")] == ["h1", "h2"]


def test_a_runs_numbers_are_the_reports(run_dir):
    with open_run(run_dir) as run:
        numbers = run.numbers()
    assert numbers.pass_at_k == {1: pytest.approx(2 / 3)}  # two of three samples are plausible
    assert numbers.ranked_pass_at_k == {"paper": {1: 1.0, 5: 1.0, 10: 1.0}}
    assert numbers.bug_counts.fixed == 1 and numbers.run.engine == "fast"


def test_reading_writes_nothing(run_dir):
    before = (run_dir / "run.sqlite").read_bytes()
    with open_run(run_dir) as run:
        run.numbers()
    assert (run_dir / "run.sqlite").read_bytes() == before


def test_a_directory_that_is_not_a_run_is_one_error(tmp_path):
    with pytest.raises(Nl2FixError, match="is not a run directory"):
        open_run(tmp_path)


def test_everything_public_is_named_in_all_and_exists():
    assert sorted(api.__all__) == api.__all__
    assert all(hasattr(api, name) for name in api.__all__)
    public = {name for name in vars(api) if not name.startswith("_")}
    assert public - set(api.__all__) <= {
        "annotations",
        "Path",
        "TracebackType",
        "collect",
        "RunStore",
        "verdict_engine",
    }
