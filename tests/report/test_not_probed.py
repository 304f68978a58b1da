"""A run judged by an engine that never probes behaviour (``defects4j``): every report, the comparison and
the viewer say "not probed" where they would otherwise print a likely-correct 0.0%, which would claim that
no plausible candidate is correct. Over the hand-countable run of tests/helpers/report_run.py, whose
plausible candidates carry no behaviour record, as the defects4j engine stores them."""

import json

import pytest

from nl2fix.report.compare import compare_runs, write_compare
from nl2fix.report.data import collect
from nl2fix.report.render import write_report
from nl2fix.view import site
from nl2fix.view.app import create_app
from nl2fix.view.catalog import Catalog
from tests.helpers.report_run import ParsedPage, build_run
from tests.report.test_behaviour_report import _with_behaviour


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("probed")
    return build_run(base / "d4j", engine="defects4j"), _with_behaviour(build_run(base / "fast"))


def test_the_data_says_behaviour_was_not_probed_and_holds_no_likely_correct_figure(runs):
    d4j, fast = runs
    data = collect(d4j, codebleu=False)
    assert data.bug_counts.fixed == 2  # plausible candidates exist: likely correctness was simply not measured
    assert not data.behaviour_probed
    assert data.likely_correct_pass_at_k == {} and data.ranked_likely_correct_pass_at_k == {}
    assert all(p.likely_correct_pass_at_k == {} for p in data.per_project)
    payload = json.loads(write_report(d4j, "json", codebleu=False))
    assert payload["behaviour_probed"] is False and payload["likely_correct_pass_at_k"] == {}
    probed = collect(fast, codebleu=False)
    assert probed.behaviour_probed and probed.likely_correct_pass_at_k[1] == pytest.approx(1 / 3)


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_text_and_markdown_reports_say_not_probed(runs, fmt):
    d4j, fast = runs
    lines = write_report(d4j, fmt, codebleu=False).splitlines()
    beyond = [line for line in lines if "k = 1" in line or "k = 5" in line]
    rankers = [line for line in lines if "paper:tfidf:median" in line and "%" in line]
    projects = [line for line in lines if line.lstrip("| ").startswith(("Demo ", "Other "))]
    assert len(beyond) == 2 and len(rankers) == 2 and len(projects) == 2
    assert all(line.count("not probed") == 1 for line in beyond + projects)
    assert all(line.count("not probed") == 3 for line in rankers)  # r.likely@1, @5 and @10
    assert "the defects4j engine does not probe behaviour" in " ".join(lines)
    assert "not probed" not in write_report(fast, fmt, codebleu=False)


def test_the_html_report_and_the_viewers_report_page_say_not_probed(runs, tmp_path):
    d4j, _ = runs
    page = ParsedPage((write_report(d4j, "html", out=tmp_path / "r.html", codebleu=False)).read_text())
    assert "not probed" in page.text and "likely correct" in page.text
    client = create_app(Catalog([d4j])).test_client()
    served = client.get(f"/{site.report_page('d4j')}")
    assert served.status_code == 200
    assert ParsedPage(served.get_data(as_text=True)).text.count("not probed") >= 3  # k = 1, 5 and Table 3's row


def test_compare_says_not_probed_for_the_run_that_was_not(runs):
    d4j, fast = runs
    data = compare_runs([d4j, fast])
    assert [r.behaviour_probed for r in data.runs] == [False, True]
    text = write_compare([d4j, fast], "text")
    d4j_row = next(line for line in text.splitlines() if line.startswith("d4j "))
    fast_row = next(line for line in text.splitlines() if line.startswith("fast "))
    assert "not probed" in d4j_row and "not probed" not in fast_row
