"""A divergence's JUnit test in `nl2fix view`, in a real headless browser: the static export of a run
whose plausible candidate diverges from the developer's fix opens from the file system, the candidate
expands, and the test that shows the divergence unfolds from its summary, as stored."""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.store.records import BehaviourRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.view import site
from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import export
from tests.helpers.report_run import build_run

pytestmark = [pytest.mark.browser]

JUNIT = """package demo;

public class DemoNl2fixDivergenceTest {
    @org.junit.Test
    public void fAsTheDevelopersFix() throws Throwable {
        int x = -1;
        int result = Demo.f(x);
        org.junit.Assert.assertEquals((long) 0, (long) result);
    }
}
"""


def _candidate(browser, tmp_path, behaviour: BehaviourRecord):
    """Demo-1's plausible candidate `a` with ``behaviour``, in the run's static export in the browser, unfolded."""
    run = build_run(tmp_path / "run")
    with RunStore(run) as store:
        store.save_validation(
            ValidationRecord(bug_id="Demo-1", hash="a", engine="fast", verdict=Verdict.PLAUSIBLE, behaviour=behaviour)
        )
    export(Catalog([run]), tmp_path / "site")
    browser.get((tmp_path / "site" / site.bug_page("run", "Demo-1")).as_uri())
    candidate = browser.find_element("css selector", f"details#{site.candidate_anchor('a')}")
    candidate.find_element("css selector", "summary").click()
    return candidate


def test_a_divergences_junit_test_unfolds_on_the_candidate(browser, tmp_path, screenshots):
    behaviour = BehaviourRecord(
        label=Behaviour.DIVERGES,
        inputs=7,
        first_input="arg0=-1",
        reference_result="return=0",
        candidate_result="return=-1",
        junit_test=JUNIT,
    )
    junit = _candidate(browser, tmp_path, behaviour).find_element("css selector", "details.junit-test")
    assert not junit.find_element("css selector", "pre").is_displayed()  # folded until asked for
    junit.find_element("css selector", "summary").click()
    shown = junit.find_element("css selector", "pre")
    assert shown.is_displayed() and shown.text == JUNIT.rstrip("\n")
    browser.save_screenshot(str(screenshots / "junit-test.png"))


def test_a_divergence_on_a_call_of_another_method_names_that_method(browser, tmp_path):
    # a caller input (BehaviourProbe.probeCaller): the first input is a call of solve, not of the changed method
    behaviour = BehaviourRecord(
        label=Behaviour.DIVERGES,
        inputs=12,
        first_input="arg0=0, arg1=11L, this=demo.Demo{lo=0,hi=0L}",
        first_call="solve(int,long)",
        reference_result="return=2",
        candidate_result="return=1",
    )
    shown = _candidate(browser, tmp_path, behaviour).find_element("css selector", "dd.behaviour")
    assert "first differs on a call of solve(int,long) on arg0=0, arg1=11L" in shown.text, shown.text
