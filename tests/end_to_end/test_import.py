"""`nl2fix import` end to end: three published sets into one run, validated by the fast engine, reported
per model with the publisher's verdicts beside nl2fix's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.core.domain import Verdict
from nl2fix.java_source.text import candidate_hash
from nl2fix.store.records import ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdict_source import verdict_engine

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parents[1] / "fixtures" / "published"


def _nl2fix(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    run = tmp_path_factory.mktemp("import") / "run"
    for path in ("repairbench", "methods.jsonl", "diffs"):
        _nl2fix("import", str(FIXTURES / path), "--run", str(run), "--dataset", "example")
    _nl2fix("validate", "--run", str(run), "--quiet")
    return run


def test_import_says_what_it_did(tmp_path):
    out = _nl2fix("import", str(FIXTURES / "diffs"), "--run", str(tmp_path / "r"), "--dataset", "example")
    assert "2 answer(s) in the diff format" in out
    assert "imported 2 answer(s) of 1 model(s) (model-d: 2)" in out
    assert "1 diff(s) also change lines outside the buggy method" in out


def test_report_counts_what_was_published_per_model(imported):
    data = json.loads(_nl2fix("report", "--run", str(imported), "--format", "json", "--no-codebleu"))
    rows = {b["bug_id"]: b for b in data["bugs"]}
    # n per bug is what the set holds (8 + 2 answers for Textkit-1, 3 for Rangekit-2), no missing samples
    assert (rows["Textkit-1"]["samples"], rows["Rangekit-2"]["samples"]) == (10, 3)
    assert not any("fewer than n" in w for w in data["warnings"])
    models = {m["model"]: m for m in data["models"]}
    assert set(models) == {"model-a", "model-b", "model-c", "model-d"}
    a = models["model-a"]
    # Textkit-1: the fix, the buggy method, a broken one; Rangekit-2: the fix
    assert (a["bugs"], a["samples"], a["fixed"]) == (2, 4, 2)
    assert a["plausible_at_1"] == pytest.approx((1 / 3 + 1) / 2)
    assert a["ast_match_at_1"] == pytest.approx((1 / 3 + 1) / 2)
    assert (a["agree"], a["disagree"], a["cost"]) == (4, 0, 0.3)
    assert models["model-d"]["published_plausible_at_1"] is None  # diffs carry no verdict
    assert data["plausible_at_1"] == pytest.approx(
        sum(r["plausible_samples"] / r["samples"] for r in rows.values()) / 2
    )


def test_published_verdicts_beside_nl2fixs_are_explained(imported):
    data = json.loads(_nl2fix("report", "--run", str(imported), "--format", "json", "--no-codebleu"))
    published = data["published"]
    assert (published["compared"], published["agree"], published["disagree"]) == (10, 7, 3)
    by = {(d["bug_id"], d["published"]): d for d in published["disagreements"]}
    # model-b called the buggy method plausible; a trigger test fails it here: nothing explains that
    wrong = by[("Textkit-1", "plausible")]
    assert (wrong["verdict"], wrong["explanation"], wrong["models"]) == ("wrong", "unexplained", ["model-b", "model-c"])
    # model-b's fix written otherwise did not compile there; it does here
    assert by[("Textkit-1", "non_compilable")]["explanation"] == "compiles-here"
    text = _nl2fix("report", "--run", str(imported), "--no-codebleu")
    assert "Published verdicts beside nl2fix's" in text and "Plausible@1 (RepairBench)" in text


def test_rejudging_needs_the_defects4j_engine(imported):
    result = CliRunner().invoke(cli, ["validate", "--run", str(imported), "--rejudge-unexplained"])
    assert result.exit_code == 2 and "--engine defects4j" in result.output


def test_a_partial_rejudgement_neither_takes_over_nor_hides(imported, tmp_path):
    """defects4j verdicts on a few candidates stay beside the fast engine's, which still counts."""
    import shutil

    run = tmp_path / "copy"
    shutil.copytree(imported, run)
    with RunStore(run) as store:
        bug = store.bug("Textkit-1")
        buggy = candidate_hash(bug.buggy_method)
        store.save_validation(ValidationRecord(bug_id=bug.id, hash=buggy, engine="defects4j", verdict=Verdict.WRONG))
        assert verdict_engine(store) == "fast"
    data = json.loads(_nl2fix("report", "--run", str(run), "--format", "json", "--no-codebleu"))
    row = next(d for d in data["published"]["disagreements"] if d["hash"] == buggy)
    assert row["rejudged"] == "wrong" and data["published"]["rejudged_agree_with_nl2fix"] == 1


def test_view_filters_a_run_by_model_and_by_published_verdicts(imported):
    from nl2fix.view import site
    from nl2fix.view.app import create_app
    from nl2fix.view.catalog import Catalog
    from tests.helpers.html_elements import Elements

    client = create_app(Catalog([imported])).test_client()
    page = Elements(client.get(f"/{site.run_page('run')}").get_data(as_text=True))
    rows = {r["data-bug"]: r for r in page.find("tr") if "data-bug" in r}
    assert {b: r["data-published"] for b, r in rows.items()} == {"Textkit-1": "differs", "Rangekit-2": "agrees"}
    assert rows["Rangekit-2"]["data-models"].split() == ["model-a", "model-b", "model-c"]
    assert [o["value"] for o in page.find("option") if o.get("value", "").startswith("model-")] == [
        "model-a",
        "model-b",
        "model-c",
        "model-d",
    ]
    bug = client.get(f"/{site.bug_page('run', 'Textkit-1')}").get_data(as_text=True)
    assert bug.count("differs from nl2fix's") == 3  # model-b's and model-c's buggy method, model-b's non-compilable


def test_compare_breaks_imported_runs_down_by_model(imported, tmp_path):
    from nl2fix.report.compare import compare_runs

    other = tmp_path / "methods-only"
    _nl2fix("import", str(FIXTURES / "methods.jsonl"), "--run", str(other), "--dataset", "example")
    data = compare_runs([imported, other])
    assert [(line.label, line.row.model) for line in data.models] == [
        ("run", "model-a"),
        ("run", "model-b"),
        ("run", "model-c"),
        ("run", "model-d"),
        ("methods-only", "model-c"),
    ]
    # the methods-only run is not validated: its model's Plausible@1 is 0; by the publisher, Textkit-1's two
    # answers are plausible (2/2) and Rangekit-2's one has no verdict (0/1)
    alone = data.models[-1].row
    assert (alone.plausible_at_1, alone.published_plausible_at_1) == (0.0, pytest.approx(0.5))
    # an imported set's budget is its most answers per bug: the larger run is cut to the smaller one's
    assert [b.budget for b in data.equal_budget] == [2, 2]
    assert "Models" in _nl2fix("compare", str(imported), str(other))


def test_export_names_each_samples_model_and_published_verdict(imported):
    rows = [json.loads(line) for line in _nl2fix("export", "--run", str(imported)).splitlines() if line.strip()]
    assert {r["model"] for r in rows} == {"model-a", "model-b", "model-c", "model-d"}
    exact = [r for r in rows if r["published"] and r["published"]["verdict"] == "exact_match"]
    assert [(r["bug"], r["model"], r["verdict"]) for r in exact] == [
        ("Textkit-1", "model-a", "plausible"),
        ("Rangekit-2", "model-a", "plausible"),
    ]


def test_only_the_unexplained_candidates_are_rejudged(imported, tmp_path):
    """What `validate --rejudge-unexplained` hands the validation stage, and that the stage keeps to it
    (the fast engine stands in for defects4j, which this test cannot assume)."""
    from nl2fix.core.domain import Engine
    from nl2fix.report.data import unexplained_candidates
    from nl2fix.validation.options import ValidationOptions
    from nl2fix.validation.stage import validate

    with RunStore(imported, read_only=True) as store:
        buggy = candidate_hash(store.bug("Textkit-1").buggy_method)
    assert unexplained_candidates(imported) == {"Textkit-1": {buggy}}
    run = tmp_path / "fresh"
    _nl2fix("import", str(FIXTURES / "methods.jsonl"), "--run", str(run), "--dataset", "example")
    summary = validate(
        run, ValidationOptions(engine=Engine.FAST), progress=False, bug_ids=["Textkit-1"], only={"Textkit-1": {buggy}}
    )
    assert summary.validated == 1
    with RunStore(run, read_only=True) as store:
        judged = {v.hash for v in store.validations("Textkit-1", "fast")} - {"buggy", "fixed"}
    assert judged == {buggy}
