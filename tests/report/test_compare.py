"""`nl2fix compare` over two real run stores built from tests/helpers/report_run.py.

Run A is the fixture as it is: it fixes Demo-1 (c=2) and Other-1 (c=5) of its three scored bugs.
Run B judges a wrong and d plausible instead: it fixes Demo-2 (c=1) and Other-1.
"""

import json

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.core.domain import Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.report.compare import compare_runs, overlap, write_compare
from nl2fix.report.data import collect
from tests.helpers.report_run import VERDICTS, ParsedPage, build_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("compare")
    flipped = dict(VERDICTS, a=(Verdict.WRONG, ["demo.ATest::testBug"]), d=(Verdict.PLAUSIBLE, []))
    return [build_run(base / "hot"), build_run(base / "cold", verdicts=flipped, temperature=0.2)]


def test_table5_rows_and_overlap_are_the_hand_computed_ones(runs):
    data = compare_runs(runs)
    hot, cold = data.runs
    assert (hot.label, hot.temperature, hot.fixed, hot.bugs) == ("hot", 0.8, 2, 3)
    assert hot.pass_at_k == pytest.approx({1: (0.4 + 0 + 1) / 3, 5: 2 / 3})
    assert cold.pass_at_k == pytest.approx({1: (0 + 0.2 + 1) / 3, 5: 2 / 3})
    assert hot.ast_match_at_k == pytest.approx({1: 1 / 3, 5: 1 / 3})
    assert cold.ranked_pass_at_1 == pytest.approx({"paper:tfidf:median": 2 / 3, "paper:tfidf:median:pruned": 1 / 3})
    o = data.overlap
    assert o.fixed == {"hot": ["Demo-1", "Other-1"], "cold": ["Demo-2", "Other-1"]}
    assert o.pairwise == [[2, 1], [1, 2]]
    assert (o.union, o.by_all, o.only) == (3, 1, {"hot": 1, "cold": 1})
    assert len(data.curves["hot"]) == 5


def test_equal_budget_rows_and_fixed_within_k_are_the_hand_computed_ones(runs):
    data = compare_runs(runs)
    hot, cold = data.equal_budget
    # hot: Demo-1's first sample is plausible, Other-1's too, Demo-2 has none; cold: Demo-2 and Other-1 at once
    assert (hot.budget, hot.bugs, hot.fixed, hot.samples, hot.samples_per_fix) == (5, 3, 2, 15, 7.5)
    assert hot.expected_fixed == pytest.approx(2.0) and cold.fixed == 2
    assert hot.tokens == 0 and hot.cost_per_fix is None
    fixed = collect(runs[0], codebleu=False).fixed_within
    assert (fixed.adaptive, fixed.budget, fixed.fixed, fixed.mean_first_position) == (False, 5, 2, 1.0)
    assert fixed.ks == pytest.approx({1: 2 / 3, 5: 2 / 3})


def test_overlap_of_three_sets():
    o = overlap({"x": {"1", "2", "3"}, "y": {"2", "4"}, "z": {"3", "2", "5"}})
    assert o.pairwise == [[3, 1, 2], [1, 2, 1], [2, 1, 3]]
    assert (o.union, o.by_all, o.only) == (5, 1, {"x": 1, "y": 1, "z": 1})


def test_text_json_and_html(runs, tmp_path):
    text = write_compare(runs, "text")
    assert "Strategies and models (Table 5)" in text and "Bugs fixed by both (Figure 3)" in text
    assert "hot" in text and "cold" in text and "46.7%" in text and "40.0%" in text
    payload = json.loads(write_compare(runs, "json"))
    assert payload["overlap"]["union"] == 3
    path = write_compare(runs, "html", tmp_path / "compare.html")
    tags = ParsedPage(path.read_text(encoding="utf-8")).tags
    assert tags["table"] == 3 and tags["svg"] == 2


def test_needs_two_runs_and_a_file_for_html(runs):
    with pytest.raises(Nl2FixError):
        compare_runs(runs[:1])
    with pytest.raises(Nl2FixError) as err:
        write_compare(runs, "html")
    assert "--out" in err.value.hint


def test_cli(runs, tmp_path):
    result = CliRunner().invoke(cli, ["compare", *map(str, runs), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "| hot |" in result.output
    out = tmp_path / "c.json"
    result = CliRunner().invoke(cli, ["compare", *map(str, runs), "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and json.loads(out.read_text())["runs"][0]["label"] == "hot"
    result = CliRunner().invoke(cli, ["compare", str(runs[0]), str(tmp_path / "missing")])
    assert result.exit_code != 0 and "not a run directory" in result.output
