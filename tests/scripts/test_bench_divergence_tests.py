"""scripts/bench_divergence_tests.py's check of a divergence's JUnit test, for real: the test written from a
receiver the tests built (Rangekit-2's set of ranges), compiled with the example project's classes and the
fix or the candidate spliced in, run with JUnit under bubblewrap."""

from __future__ import annotations

import sys

import pytest

from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.engines.fast import FastEngine
from nl2fix.dataset.load import EXAMPLE_BENCHMARK, open_dataset
from tests.helpers.minibench import engine_options
from tests.helpers.paths import FIXTURES, REPO

sys.path.insert(0, str(REPO / "scripts"))
import bench_divergence_tests as bench

INPUT = (
    "arg0=7, this=org.rangekit.RangeSet{ranges=java.util.ArrayList[2]{org.rangekit.IntRange{min=1,max=3},"
    "org.rangekit.IntRange{min=10,max=12}}}"
)


@pytest.mark.sandbox
def test_a_test_that_shows_the_divergence_passes_on_the_fix_and_fails_on_the_candidate(
    nl2fix_cache, confined, tmp_path
):
    bug = open_dataset("example").bugs["Rangekit-2"]
    options = engine_options(nl2fix_cache, projects_dir=EXAMPLE_BENCHMARK / "projects")
    engine = FastEngine(options)
    try:
        ws = engine.prepare(bug)
        source = ws.buggy_file().read_text(encoding=ws.encoding)
        test = divergence_test(
            source,
            bug.buggy_method,
            bug.start_line,
            bug.end_line,
            bug.fixed_method,
            INPUT,
            "return=false",
            "return=true",
        ).test
        candidate = (FIXTURES / "behaviour" / "Rangekit-2" / "hardcoded_range_ends.diverges.java").read_text()
        shown = bench.check(ws, options.sandbox, candidate, test, tmp_path)
        assert shown.shows, shown
        # a test that does not compile is neither outcome
        broken = test.replace("receiver.", "nothing.")
        broken = bench.run_on(ws, options.sandbox, source, bug.fixed_method, broken, tmp_path / "broken")
        assert broken.startswith("did not compile"), broken
    finally:
        engine.close()


def test_junit_s_summary_is_read_as_passes_fails_or_neither():
    assert bench.outcome("JUnit version 4.13.2\n.\nTime: 0.01\n\nOK (1 test)\n", 0) == "passes"
    assert bench.outcome("Tests run: 1,  Failures: 1\n", 1) == "fails"
    assert bench.outcome("OK (0 tests)\n", 0).startswith("ended 0")
