"""Reports computed from a real run store whose numbers were worked out by hand (see tests/helpers/report_run.py)."""

import dataclasses
import json
import re
from xml.etree import ElementTree

import pytest

from defects4j_adapter.jvm import reference_java
from defects4j_adapter.jvm.reference_java import Jdk, Reference, environment_key
from nl2fix.core.domain import Strategy, Verdict
from nl2fix.report.codebleu import codebleu
from nl2fix.report.data import GroundTruth, ReportData, collect
from nl2fix.report.render import render, write_report
from nl2fix.store.records import RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from tests.helpers.report_run import CODE, FIXED, ParsedPage, build_run, make_bug


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return build_run(tmp_path_factory.mktemp("run"))


@pytest.fixture(scope="module")
def data(run) -> ReportData:
    return collect(run)


def test_json_report_numbers_are_the_hand_computed_ones(run):
    report = json.loads(write_report(run, "json"))
    assert set(report) >= {"pass_at_k", "ranked_pass_at_k", "per_project", "candidates", "bugs"}
    # scored bugs: Demo-1 (c=2), Demo-2 (c=0), Other-1 (c=5); Broken-1 is left out
    assert report["pass_at_k"] == pytest.approx({"1": (0.4 + 0 + 1) / 3, "5": (1 + 0 + 1) / 3})
    assert report["pass_at_k_all_bugs"] == pytest.approx({"1": (0.4 + 0 + 1 + 1) / 4, "5": 3 / 4})
    assert report["ranked_pass_at_k"]["paper:tfidf:median"] == pytest.approx({"1": 1 / 3, "5": 2 / 3, "10": 2 / 3})
    assert report["ranked_pass_at_k"]["paper:tfidf:median:pruned"] == pytest.approx(
        {"1": 2 / 3, "5": 2 / 3, "10": 2 / 3}
    )
    assert [{k: v for k, v in p.items() if not k.endswith("_at_k")} for p in report["per_project"]] == [
        {"project": "Broken", "bugs": 0, "fixed": 0, "fraction": 0.0, "ground_truth_fails": 1},
        {"project": "Demo", "bugs": 2, "fixed": 1, "fraction": 0.5, "ground_truth_fails": 0},
        {"project": "Other", "bugs": 1, "fixed": 1, "fraction": 1.0, "ground_truth_fails": 0},
    ]
    demo = report["per_project"][1]
    assert demo["pass_at_k"] == pytest.approx({"1": 0.4 / 2, "5": 1 / 2})
    # AST match: only Other-1's candidate has the fix's tree (its line breaks aside); Demo-1's `a` is
    # plausible but an if statement where the fix has a conditional expression
    assert demo["ast_match_at_k"] == {"1": 0.0, "5": 0.0}
    assert report["per_project"][2]["ast_match_at_k"] == {"1": 1.0, "5": 1.0}
    assert report["ast_match_at_k"] == pytest.approx({"1": 1 / 3, "5": 1 / 3})
    cand = report["candidates"]
    assert (cand["bugs"], cand["samples"], cand["unique_candidates"]) == (3, 15, 9)
    assert cand["duplicates"] == pytest.approx((1 / 5 + 0 + 4 / 5) / 3)
    assert cand["unextractable"] == pytest.approx((1 / 5) / 3)
    assert cand["compile"] == pytest.approx((3 / 5 + 2 / 5 + 1) / 3)
    assert cand["regression_pass"] == pytest.approx((2 / 5 + 0 + 1) / 3)
    assert cand["regression_not_reached"] == pytest.approx((1 / 5 + 1 / 5) / 3)
    assert cand["plausible"] == pytest.approx((2 / 5 + 0 + 1) / 3)
    assert cand["unvalidated"] == pytest.approx((2 / 5) / 3)
    assert cand["verdicts"] == {
        "error": 1,
        "plausible": 2,
        "timeout": 1,
        "uncompilable": 1,
        "unvalidated": 1,
        "wrong": 3,
    }
    exact = report["exact_match"]
    assert (exact["bugs_with_exact_match"], exact["bugs_with_plausible_exact_match"], exact["exact_match_samples"]) == (
        1,
        1,
        5,
    )
    assert exact["fraction_of_fixed_bugs"] == 0.5
    counts = report["bug_counts"]
    assert (
        counts["selected"],
        counts["scored"],
        counts["ground_truth_fails"],
        counts["ground_truth_unchecked"],
        counts["fixed"],
        counts["fixed_all"],
    ) == (4, 3, 1, 1, 2, 3)
    for fraction in [*report["pass_at_k"].values(), cand["plausible"], cand["compile"], *report["pass_at_k_curve"]]:
        assert 0.0 <= fraction <= 1.0


def test_bug_rows_and_ground_truth(data):
    rows = {b.bug_id: b for b in data.bugs}
    assert [b.bug_id for b in data.broken_bugs] == ["Broken-1"]
    assert rows["Broken-1"].ground_truth is GroundTruth.FAILS
    assert "the ground truth does not validate (wrong)" in rows["Broken-1"].ground_truth_detail
    assert rows["Demo-2"].ground_truth is GroundTruth.VALIDATES
    assert "demo.BTest::testEnvironment" in rows["Demo-2"].ground_truth_detail
    assert rows["Other-1"].ground_truth is GroundTruth.UNCHECKED
    assert rows["Demo-1"].first_plausible_rank == {"paper:tfidf:median": 3, "paper:tfidf:median:pruned": 1}
    assert rows["Demo-2"].first_plausible_rank == {"paper:tfidf:median": None, "paper:tfidf:median:pruned": None}
    assert (rows["Demo-2"].unvalidated_candidates, rows["Demo-2"].pass_at_1) == (2, 0.0)
    assert rows["Demo-1"].unextractable == 1


def test_warnings_say_what_is_incomplete(data):
    text = "\n".join(data.warnings)
    assert "1 candidate(s) have no fast verdict yet" in text
    assert "1 candidate(s) hit a harness error" in text
    assert "Broken-1" in text
    assert "Demo-2: the fixed version fails 1 regression test(s), not held against candidates" in text
    assert "paper:tfidf:median:pruned covers 3 of 4" in text


def test_codebleu_by_verdict_is_computed_and_cached(run, data):
    cb = data.codebleu
    assert cb.available, cb.reason
    # scored bugs' validated candidates: a b c (Demo-1), d g h (Demo-2; e has no verdict, f an error), i (Other-1)
    assert {v: d.count for v, d in cb.by_verdict["fixed"].items()} == {
        "plausible": 2,
        "wrong": 3,
        "uncompilable": 1,
        "timeout": 1,
    }
    plausible = [codebleu(CODE["a"], FIXED["Demo-1"]), codebleu(CODE["i"], FIXED["Other-1"])]
    assert plausible[1] == pytest.approx(1.0)
    assert cb.by_verdict["fixed"]["plausible"].median == pytest.approx(sum(plausible) / 2)
    assert cb.by_verdict["fixed"]["plausible"].high == pytest.approx(1.0)
    assert [t.reference for t in cb.tests] == ["buggy", "fixed"]
    assert all(0.0 <= t.p_value <= 1.0 for t in cb.tests)
    with RunStore(run) as store:
        cached = store.codebleu_scores()
    assert len(cached) == 2 * 7
    assert cached[("Other-1", "i", "fixed")] == pytest.approx(1.0)
    assert collect(run).codebleu == cb


def test_html_sets_code_as_code_and_says_the_codebleu_note_once(data):
    html = render(data, "html")
    assert "`" not in html
    assert "<code>:pruned</code> rankers" in html and "<code>nl2fix validate</code>" in html
    assert html.count("One-sided Wilcoxon rank-sum test") == 1


def test_the_per_project_legend_covers_no_bar():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from nl2fix.report.plots import project_bars_figure

    # as many bugs in every project: the bars fill the axes to the top, leaving no corner free
    figure = project_bars_figure([("Rangekit", 4, 2), ("Textkit", 4, 1), ("Zipkit", 4, 4)])
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    legend = figure.legends[0].get_window_extent(renderer)
    bars = [bar.get_window_extent(renderer) for ax in figure.axes for bar in ax.patches]
    assert len(bars) == 6
    assert not [bar for bar in bars if legend.overlaps(bar)]
    assert figure.bbox.contains(legend.x0, legend.y0) and figure.bbox.contains(legend.x1, legend.y1)


def test_temperature_is_shown_for_backends_that_sample_at_one(data, tmp_path):
    facts = render(data, "text").split("\n\n")[0]
    assert "model: mutation (mutation, chat), strategy: zero-shot, n: 5" in facts and "temperature" not in facts
    model_run = collect(build_run(tmp_path / "openai", backend="openai", temperature=0.2), codebleu=False)
    assert "model: openai (openai, chat), strategy: zero-shot, temperature: 0.2, n: 5" in render(model_run, "text")


def test_json_round_trips_and_documents_itself(data):
    again = ReportData.model_validate_json(render(data, "json"))
    assert again.pass_at_k == data.pass_at_k
    schema = ReportData.model_json_schema()
    assert "unbiased estimator" in schema["properties"]["pass_at_k"]["description"]


def test_text_and_markdown_show_every_table(data):
    text = render(data, "text")
    for title in (
        "pass@k",
        "Ranking (Table 6)",
        "Bugs fixed per project (Table 3)",
        "Candidates (Table 2)",
        "Exact matches",
        "CodeBLEU by verdict",
        "Ground truth does not validate",
        "WARNING:",
    ):
        assert title in text
    assert "46.7%" in text  # pass@1 over the scored bugs
    md = render(data, "md")
    assert "| pass@1 | 46.7% |" in md
    assert "> **Warning:**" in md
    assert md.count("\n## ") >= 8


def test_html_is_one_file_with_tables_and_figures(run, tmp_path):
    path = write_report(run, "html", tmp_path / "out" / "report.html")
    page = path.read_text(encoding="utf-8")
    parser = ParsedPage(page)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert parser.tags["table"] >= 7
    assert parser.tags["svg"] >= 3  # pass@k curve, projects, CodeBLEU
    for svg in re.findall(r"<svg.*?</svg>", page, re.DOTALL):
        root = ElementTree.fromstring(svg)  # each figure is well-formed SVG with something drawn
        assert root.tag.endswith("svg") and len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 3
    assert parser.tags["script"] == 0 and parser.tags["link"] == 0
    assert "src=" not in page.replace('src="data:', "")  # nothing fetched from elsewhere
    text = parser.text
    assert "Ground truth does not validate" in text and "Broken-1" in text


def test_html_defaults_into_the_run_directory(run):
    path = write_report(run, "html", codebleu=False)
    assert path == run / "report.html" and path.is_file()
    assert "CodeBLEU was not requested" in path.read_text(encoding="utf-8")


def test_unvalidated_run_scores_nothing_and_says_so(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="example", backend="mutation", model="m", strategy=Strategy.ZERO_SHOT, temperature=0.2, n=2
            )
        )
        store.add_bugs([make_bug("Demo-1")])
        store.add_sample(SampleRecord(bug_id="Demo-1", index=0, response="r", candidate_hash="a"), CODE["a"])
        store.add_sample(SampleRecord(bug_id="Demo-1", index=1, response="r", candidate_hash="a"), CODE["a"])
    data = collect(tmp_path, codebleu=False)
    assert data.run.engine is None
    assert data.pass_at_k == {1: 0.0}
    assert any("no candidate has been validated" in w for w in data.warnings)
    assert data.candidates.verdicts == {"unvalidated": 1}
    assert "WARNING: no candidate has been validated" in render(data, "text")


def test_the_environment_line_says_when_tests_ran_off_defects4j_s_java(tmp_path):
    build_run(tmp_path)
    java17 = reference_java.TestJava(Jdk(tmp_path / "jdk17", 17, "17.0.15"), Reference(11, "3.0.1"), "java on PATH")
    with RunStore(tmp_path) as store:
        store.set_meta_json(environment_key("fast"), {"engine": "fast", **java17.record()})
    line = next(
        x
        for x in render(collect(tmp_path, codebleu=False), "text").splitlines()
        if x.startswith("validation environment:")
    )
    assert "tests on Java 17.0.15" in line and "NOT Defects4J's Java 11" in line


def test_unknown_format_is_a_user_error(run):
    from nl2fix.core.errors import Nl2FixError

    with pytest.raises(Nl2FixError) as err:
        write_report(run, "pdf")
    assert "html" in err.value.hint


def _documented(schema: dict) -> list[str]:
    """Names of properties, in the schema and its definitions, that have no description."""
    missing = []
    for name, model in [("ReportData", schema), *schema.get("$defs", {}).items()]:
        for prop, spec in model.get("properties", {}).items():
            if not spec.get("description"):
                missing.append(f"{name}.{prop}")
    return missing


def test_cli_report_json_text_and_schema(run, tmp_path):
    from click.testing import CliRunner

    from nl2fix.cli.main import cli

    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        cli, ["report", "--run", str(run), "--format", "json", "--out", str(out), "--no-codebleu"]
    )
    assert result.exit_code == 0, result.output
    assert f"report: {out}" in result.output
    assert json.loads(out.read_text())["bug_counts"]["scored"] == 3
    result = CliRunner().invoke(cli, ["report", "--run", str(run), "--no-codebleu"])
    assert result.exit_code == 0 and "Candidates (Table 2)" in result.output
    result = CliRunner().invoke(cli, ["report", "--schema"])
    schema = json.loads(result.output)
    assert _documented(schema) == []
    assert {"pass_at_k", "ranked_pass_at_k", "per_project", "candidates", "bugs"} <= set(schema["properties"])
    result = CliRunner().invoke(cli, ["report", "--run", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "not a run directory" in result.output


def test_codebleu_unavailable_is_reported_not_fatal(run, tmp_path, monkeypatch):
    import codebleu.utils

    def broken_grammar(lang):
        raise OSError(f"cannot load the tree-sitter grammar for {lang}")

    monkeypatch.setattr(codebleu.utils, "get_tree_sitter_language", broken_grammar)
    data = collect(run)
    assert not data.codebleu.available
    assert "OSError: cannot load the tree-sitter grammar for java" in data.codebleu.reason
    assert data.pass_at_k[1] == pytest.approx((0.4 + 0 + 1) / 3)
    assert "CodeBLEU for Java is unavailable" in render(data, "text")


def test_missing_samples_count_as_not_plausible(tmp_path):
    """A bug with fewer than n samples (skipped, failed, interrupted) is scored over n, never over fewer."""
    run = build_run(tmp_path / "run")
    with RunStore(run, create=False) as store:
        store.add_bugs([dataclasses.replace(make_bug("Other-1"), number=2)])
        store.add_sample(SampleRecord(bug_id="Other-2", index=0, response="x", candidate_hash="i"), CODE["i"])
        store.save_validation(ValidationRecord(bug_id="Other-2", hash="i", engine="fast", verdict=Verdict.PLAUSIBLE))
        store.save_validation(
            ValidationRecord(bug_id="Other-2", hash="fixed", engine="fast", verdict=Verdict.PLAUSIBLE)
        )
    report = json.loads(write_report(run, "json"))
    # Other-2 has 1 plausible sample of n=5: pass@1 = 1/5 and pass@5 = 1 for it, as if 4 samples had failed
    assert report["pass_at_k"] == pytest.approx({"1": (0.4 + 0 + 1 + 0.2) / 4, "5": (1 + 0 + 1 + 1) / 4})
    assert any("Other-2" in w and "not plausible" in w for w in report["warnings"])
