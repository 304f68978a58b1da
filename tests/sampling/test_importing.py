"""Published patch sets read and imported into a run (no validation: tests/end_to_end/test_import.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling import published_sets
from nl2fix.sampling.importing import changed_lines, import_answers, import_config
from nl2fix.sampling.published_sets import Format, Kind
from nl2fix.store.records import SampleRecord
from nl2fix.store.run_store import RunStore

FIXTURES = Path(__file__).parents[1] / "fixtures" / "published"


@pytest.fixture(scope="module")
def bugs():
    return {b.id: b for b in open_dataset("example").bugs.values()}


def test_formats_are_found_from_the_path():
    assert published_sets.detect(FIXTURES / "repairbench") is Format.REPAIRBENCH
    assert published_sets.detect(FIXTURES / "repairbench" / "model-a") is Format.REPAIRBENCH
    assert published_sets.detect(FIXTURES / "diffs") is Format.DIFF
    assert published_sets.detect(FIXTURES / "methods.jsonl") is Format.METHODS
    with pytest.raises(Nl2FixError, match="does not exist"):
        published_sets.detect(FIXTURES / "nothing-here")


def test_repairbench_answers_keep_model_folder_verdict_and_the_publishers_buggy_function():
    answers = published_sets.read(FIXTURES / "repairbench")
    assert len(answers) == 8
    by_source = {a.source: a for a in answers}
    a = by_source["model-b/defects4j/patches/Textkit-1/non_compilable/2.diff"]
    assert (a.model, a.bug, a.kind, a.verdict, a.plausible, a.compiled) == (
        "model-b",
        "Textkit-1",
        Kind.FUNCTION_DIFF,
        "non_compilable",
        False,
        False,
    )
    assert a.base is not None and a.base.startswith("    /** Published with its Javadoc. */")
    exact = by_source["model-a/defects4j/patches/Textkit-1/exact_match/0.diff"]
    assert (exact.plausible, exact.compiled) == (True, True)  # RepairBench files it under its best category
    # one model's folder: the model is that folder's name
    one = published_sets.read(FIXTURES / "repairbench" / "model-a" / "defects4j" / "patches")
    assert {x.model for x in one} == {"model-a"} and len(one) == 4
    assert published_sets.costs(FIXTURES / "repairbench", Format.REPAIRBENCH) == {"model-a": 0.3}


def test_methods_file_needs_bug_text_and_a_model(tmp_path):
    answers = published_sets.read(FIXTURES / "methods.jsonl")
    assert [(a.bug, a.model, a.verdict, a.plausible) for a in answers] == [
        ("Textkit-1", "model-c", "plausible", True),
        ("Textkit-1", "model-c", "plausible", True),
        ("Rangekit-2", "model-c", None, None),
        ("Nosuch-9", "model-c", None, None),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"bug": "Textkit-1", "text": "x"}) + "\n")
    with pytest.raises(Nl2FixError, match="names no model"):
        published_sets.read(bad)
    assert published_sets.read(bad, model="given")[0].model == "given"
    bad.write_text("{not json\n")
    with pytest.raises(Nl2FixError, match="bad.jsonl:1 is not JSON"):
        published_sets.read(bad)


def test_changed_lines_are_the_old_sides_line_numbers():
    diff = "--- a/F\n+++ b/F\n@@ -11,3 +11,3 @@\n x\n-old\n+new\n y\n@@ -40,2 +40,3 @@\n a\n+added\n b\n"
    assert changed_lines(diff) == [12, 12, 41]


def test_import_stores_samples_with_model_and_verdict_and_is_idempotent(tmp_path, bugs):
    run = tmp_path / "run"
    config = import_config("example", None)
    no_files = lambda bug: pytest.fail("a function diff needs no source file")  # noqa: E731
    answers = published_sets.read(FIXTURES / "repairbench") + published_sets.read(FIXTURES / "methods.jsonl")
    summary = import_answers(run, config, list(bugs.values()), answers, buggy_file=no_files, costs={"model-a": 0.3})
    assert summary.imported == 11 and summary.unknown_bugs == {"Nosuch-9": 1}
    assert summary.by_model == {"model-a": 4, "model-b": 4, "model-c": 3}
    with RunStore(run, read_only=True) as store:
        assert store.config.backend == "import" and store.config.n == 0
        assert [b.id for b in store.bugs()] == ["Textkit-1", "Rangekit-2"]
        samples: list[SampleRecord] = store.samples("Textkit-1")
        assert [s.index for s in samples] == list(range(8))
        fixed = candidate_hash(bugs["Textkit-1"].fixed_method)
        exact = next(s for s in samples if s.published and s.published.verdict == "exact_match")
        assert exact.model == "model-a" and exact.candidate_hash == fixed
        assert not exact.published.base_differs  # the publisher's buggy function is the dataset's, Javadoc aside
        broken = next(s for s in samples if s.model == "model-a" and s.published.verdict == "non_compilable")
        assert broken.candidate_hash not in (None, fixed)
        assert store.get_meta_json("published_costs") == {"model-a": 0.3}
    again = import_answers(run, config, list(bugs.values()), answers, buggy_file=no_files)
    assert (again.imported, again.already) == (0, 11)


def test_a_revision_other_than_the_datasets_is_marked(tmp_path, bugs):
    bug = bugs["Rangekit-2"]
    answer = published_sets.Answer(
        bug="Rangekit-2",
        model="m",
        text="",
        kind=Kind.FUNCTION_DIFF,
        source="x",
        base=bug.buggy_method.replace("return", "return -1 +", 1),
        verdict="compilable",
        plausible=False,
        compiled=True,
    )
    summary = import_answers(tmp_path / "run", import_config("example", None), [bug], [answer], buggy_file=lambda b: "")
    assert summary.base_differs == 1
    with RunStore(tmp_path / "run", read_only=True) as store:
        (sample,) = store.samples()
        assert sample.published.base_differs and sample.candidate_hash is not None


def test_file_diffs_take_the_method_out_and_count_changes_outside_it(tmp_path, bugs):
    bug = bugs["Textkit-1"]
    source = FIXTURES.parents[2] / "examples" / "benchmark" / "projects" / "Textkit" / "fixed" / bug.path
    # the buggy file is the fixed file with the bug's method put back
    buggy_file = source.read_text().replace(bug.fixed_method, bug.buggy_method)
    summary = import_answers(
        tmp_path / "run",
        import_config("example", None),
        [bug],
        published_sets.read(FIXTURES / "diffs"),
        buggy_file=lambda b: buggy_file,
    )
    assert (summary.imported, summary.outside_method, summary.unextractable) == (2, 1, 0)
    with RunStore(tmp_path / "run", read_only=True) as store:
        samples = store.samples()
        assert {s.candidate_hash for s in samples} == {candidate_hash(bug.fixed_method)}
        assert [s.published.outside_method for s in samples] == [False, True]
        assert "outside the method" in samples[1].published.note


def test_import_refuses_a_run_of_sampled_answers(tmp_path, bugs):
    run = tmp_path / "run"
    with RunStore(run, create=True) as store:
        store.set_config(import_config("example", None).model_copy(update={"backend": "mutation", "n": 2}))
    with pytest.raises(Nl2FixError, match="not of imported ones"):
        import_answers(
            run,
            import_config("example", None),
            list(bugs.values()),
            published_sets.read(FIXTURES / "methods.jsonl"),
            buggy_file=lambda b: "",
        )


def test_a_whole_function_diff_is_read_even_where_its_context_is_the_answers_own(tmp_path, bugs):
    """RepairBench shows lines whose whitespace alone changed as context, in the answer's spelling: such a
    diff does not apply to the buggy function, but its new side is the answer."""
    bug = bugs["Textkit-1"]
    answer_text = bug.fixed_method.replace("a == b", "a==b")
    lines = [
        "diff --git a/x b/y",
        "index 1..2 100644",
        "--- a/x",
        "+++ b/y",
        f"@@ -1,{len(bug.buggy_method.splitlines())} +1,{len(answer_text.splitlines())} @@",
    ]
    for old, new in zip(bug.buggy_method.splitlines(), answer_text.splitlines(), strict=True):
        lines += (
            [" " + new]
            if old.split() == new.split() or old.replace(" ", "") == new.replace(" ", "")
            else ["-" + old, "+" + new]
        )
    answer = published_sets.Answer(
        bug=bug.id, model="m", text="\n".join(lines) + "\n", kind=Kind.FUNCTION_DIFF, source="x", base=bug.buggy_method
    )
    summary = import_answers(tmp_path / "run", import_config("example", None), [bug], [answer], buggy_file=lambda b: "")
    assert summary.unextractable == 0
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.samples()[0].candidate_hash == candidate_hash(bug.fixed_method)
