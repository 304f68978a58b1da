"""Structural checks of the bundled example benchmark (examples/benchmark): cheap, no javac.

The compile-and-run checks are in ``examples/benchmark/verify.py`` and the validation engine's tests.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.core.processes import run_command
from nl2fix.dataset.load import open_dataset

BENCH = EXAMPLE_BENCHMARK


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_benchmark_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tooling = _load("tooling")
BUGS = _load("bugs").BUGS


@pytest.fixture(scope="module")
def dataset():
    return open_dataset("example")


@pytest.fixture(scope="module")
def raw():
    return json.loads((BENCH / "nl2fix_dataset.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def buggy_files(tmp_path_factory, dataset) -> dict[str, Path]:
    """Bug id -> the buggy file, made by applying the bug's patch with ``patch -p1`` to a fixed copy."""
    out = {}
    for bug in dataset.bugs.values():
        root = tmp_path_factory.mktemp(bug.id)
        shutil.copytree(BENCH / "projects" / bug.project / "fixed", root, dirs_exist_ok=True)
        patch = BENCH / "projects" / bug.project / "patches" / f"{bug.number}.src.patch"
        res = run_command(["patch", "-p1", "--batch", "-i", patch], cwd=root, timeout=30)
        assert res.ok, f"{bug.id}: {res.stdout}{res.stderr}"
        out[bug.id] = root / bug.path
    return out


def test_loads_every_bug_without_problems(dataset):
    assert dataset.problems == []
    assert set(dataset.bugs) == {f"{b.project}-{b.number}" for b in BUGS}
    assert len(dataset.bugs) >= 8 and {b.project for b in dataset.bugs.values()} == {"Textkit", "Rangekit"}
    for bug in dataset.bugs.values():
        assert bug.benchmark == "example" and bug.title and bug.description
        assert bug.trigger_tests and bug.relevant_tests, bug.id
        assert {t.split("::")[0] for t in bug.trigger_tests} <= set(bug.relevant_tests), bug.id
        assert bug.modified_classes == (bug.path.removeprefix("src/main/java/")[:-5].replace("/", "."),)
        assert (bug.buggy_revision, bug.fixed_revision) == (f"buggy-{bug.number}", "fixed")
        assert (bug.source_dir, bug.test_dir) == ("src/main/java", "src/test/java")


def test_entries_have_the_real_datasets_fields(raw):
    fields = {
        "src",
        "src_wo_comments",
        "fixed_src",
        "fixed_src_wo_comments",
        "summary",
        "Description",
        "issue_url",
        "comments",
    }
    for key, entry in raw.items():
        assert fields <= set(entry) <= fields | {"summarized_discussion", "trigger_tests_src"}, key
        assert entry["src"] != entry["fixed_src"], key
        assert entry["src"] == entry["src"].lstrip() and entry["src"].endswith("}"), key
        assert entry["src_wo_comments"] == tooling.tokens_wo_comments(entry["src"]), key
        assert entry["fixed_src_wo_comments"] == tooling.tokens_wo_comments(entry["fixed_src"]), key
        assert entry["comments"] is None or isinstance(entry["comments"], list), key
    assert any(e["comments"] is None for e in raw.values())
    assert any(e["issue_url"] is None for e in raw.values())


def test_key_ranges_match_the_patched_buggy_files(dataset, buggy_files):
    for bug in dataset.bugs.values():
        text, _ = tooling.read_source(buggy_files[bug.id])
        assert tooling.method_text(text, bug.start_line, bug.end_line) == bug.buggy_method, bug.id
        assert 8 <= bug.end_line - bug.start_line + 1 <= 40, bug.id
        fixed, _ = tooling.read_source(BENCH / "projects" / bug.project / "fixed" / bug.path)
        assert bug.fixed_method in fixed, bug.id


def test_patches_change_only_main_sources_and_apply_with_git(dataset, tmp_path):
    for bug in dataset.bugs.values():
        patch = BENCH / "projects" / bug.project / "patches" / f"{bug.number}.src.patch"
        text = patch.read_text(encoding="iso-8859-1")
        assert re.findall(r"^\+\+\+ b/(\S+)", text, re.M) == [bug.path], bug.id
        assert re.findall(r"^--- a/(\S+)", text, re.M) == [bug.path], bug.id
        res = run_command(
            ["git", "apply", "--check", "-p1", patch], cwd=BENCH / "projects" / bug.project / "fixed", timeout=30
        )
        assert res.ok, f"{bug.id}: {res.stderr}"


def test_tests_named_in_metadata_exist(dataset):
    for bug in dataset.bugs.values():
        test_root = BENCH / "projects" / bug.project / "fixed" / "src" / "test" / "java"
        for cls in bug.relevant_tests:
            assert (test_root / (cls.replace(".", "/") + ".java")).is_file(), (bug.id, cls)
        for test in bug.trigger_tests:
            cls, method = test.split("::")
            source = (test_root / (cls.replace(".", "/") + ".java")).read_text(encoding="utf-8")
            assert f"public void {method}()" in source, (bug.id, test)


def test_trigger_files_hold_a_stack_trace_per_test():
    for path in (BENCH / "defects4j").glob("*/trigger_tests/*"):
        blocks = re.split(r"^--- \S+\n", path.read_text(encoding="utf-8"), flags=re.M)[1:]
        assert blocks, path
        for block in blocks:
            assert re.search(r"^\tat \S+\(\S+\.java:\d+\)$", block, re.M), path


def test_metadata_tables_cover_every_bug(dataset):
    for project in {b.project for b in dataset.bugs.values()}:
        meta = BENCH / "defects4j" / project
        with open(meta / "active-bugs.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        numbers = sorted(b.number for b in dataset.bugs.values() if b.project == project)
        assert sorted(int(r["bug.id"]) for r in rows) == numbers
        with open(meta / "dir-layout.csv", newline="", encoding="utf-8") as fh:
            layout = {r[0]: r[1:] for r in csv.reader(fh)}
        assert set(layout) == {f"buggy-{n}" for n in numbers} | {"fixed"}


def test_one_touched_source_is_latin1(dataset):
    latin1 = {p for p in (BENCH / "projects").rglob("*.java") if tooling.read_source(p)[1] == "iso-8859-1"}
    assert [p.name for p in latin1] == ["Accents.java"]
    touched = {b.id for b in dataset.bugs.values() if b.path.endswith("Accents.java")}
    assert touched and any(not b.buggy_method.isascii() for b in dataset.bugs.values() if b.id in touched)
    others = [p for p in (BENCH / "projects").rglob("*.java") if p not in latin1]
    assert all(p.read_bytes().isascii() for p in others)


def test_method_range_finds_declaration_to_closing_brace():
    text = (
        "class A {\n    /** doc */\n    @Override\n    public String toString() {\n"
        '        String s = "}"; // }\n        return s;\n    }\n}\n'
    )
    assert tooling.method_range(text, "public String toString()") == (3, 7)
    assert tooling.method_text(text, 3, 7).startswith("@Override\n    public String toString() {")


@pytest.mark.dataset
def test_token_form_matches_the_published_dataset(shared_data):
    real = json.loads((shared_data / "nl2fix_dataset.json").read_text(encoding="utf-8"))
    for key, entry in real.items():
        assert tooling.tokens_wo_comments(entry["src"]) == entry["src_wo_comments"], key
        assert tooling.tokens_wo_comments(entry["fixed_src"]) == entry["fixed_src_wo_comments"], key
