#!/usr/bin/env python3
"""Regenerate the example benchmark's data from the fixed trees and ``bugs.py``.

For every bug: copy ``projects/<P>/fixed``, make the buggy edits, write the patch with ``diff -u``,
re-apply that patch to a fresh copy (the buggy tree everything else is read from), compile it,
run all its tests and record the failures as the trigger tests (with JUnit's stack traces),
then write the dataset JSON and the Defects4J-style metadata. Relevant tests are the test classes
that load the modified class, found with ``java -verbose:class`` on the fixed tree, as Defects4J does.

    python3 examples/benchmark/build.py      # then: python3 examples/benchmark/verify.py
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bugs import BUGS, BugSpec
from tooling import (
    DATASET_JSON,
    METADATA,
    PROJECTS,
    SRC_DIR,
    TEST_DIR,
    Tree,
    apply_patch,
    compile_tree,
    copy_tree,
    failures,
    method_range,
    method_text,
    read_source,
    run_tests,
    tokens_wo_comments,
    unified_diff,
)

from nl2fix.dataset.build import source_of_test

_LOADED = re.compile(r"\[class,load\] (\S+) source: file:")


def make_buggy_copy(bug: BugSpec, work: Path) -> Path:
    """Apply the spec's edits to a copy of the fixed file; return the patch written with diff -u."""
    fixed_file = PROJECTS / bug.project / "fixed" / bug.path
    text, encoding = read_source(fixed_file)
    for fixed, buggy in bug.edits:
        if text.count(fixed) != 1:
            raise SystemExit(f"{bug.project}-{bug.number}: edit text found {text.count(fixed)} times: {fixed!r}")
        text = text.replace(fixed, buggy)
    edited = work / "edited.java"
    edited.write_bytes(text.encode(encoding))
    patch = PROJECTS / bug.project / "patches" / f"{bug.number}.src.patch"
    patch.parent.mkdir(parents=True, exist_ok=True)
    unified_diff(fixed_file, edited, bug.path, patch)
    return patch


def loaded_classes(tree: Tree, classes: Path) -> dict[str, set[str]]:
    """Test class -> project classes its run loads."""
    loaded = {}
    for test in tree.test_classes():
        res = run_tests(classes, [test], verbose_class=True)
        if not res.ok:
            raise SystemExit(f"{test} fails on the fixed tree:\n{res.stdout[-3000:]}")
        loaded[test] = set(_LOADED.findall(res.stdout))
    return loaded


def build_bug(bug: BugSpec, work: Path, relevant_by_class: dict[str, set[str]]) -> tuple[str, dict]:
    name = f"{bug.project}-{bug.number}"
    patch = make_buggy_copy(bug, work)
    tree = copy_tree(PROJECTS / bug.project / "fixed", work / "buggy")
    res = apply_patch(tree, patch)
    if not res.ok:
        raise SystemExit(f"{name}: generated patch does not apply: {res.stdout}{res.stderr}")
    buggy_text, _ = read_source(tree.root / bug.path)
    fixed_text, _ = read_source(PROJECTS / bug.project / "fixed" / bug.path)
    start, end = method_range(buggy_text, bug.marker)
    fstart, fend = method_range(fixed_text, bug.marker)
    src, fixed_src = method_text(buggy_text, start, end), method_text(fixed_text, fstart, fend)
    if not 8 <= end - start + 1 <= 40:
        raise SystemExit(f"{name}: buggy method has {end - start + 1} lines, want 8-40")

    compiled = compile_tree(tree, work / "classes")
    if not compiled.ok:
        raise SystemExit(f"{name}: buggy tree does not compile:\n{compiled.stderr}")
    run = run_tests(work / "classes", tree.test_classes())
    failed = failures(run.stdout)
    if sorted(failed) != sorted(bug.triggers):
        raise SystemExit(f"{name}: failing tests {sorted(failed)} != expected {sorted(bug.triggers)}")

    meta = METADATA / bug.project
    (meta / "trigger_tests").mkdir(parents=True, exist_ok=True)
    (meta / "relevant_tests").mkdir(parents=True, exist_ok=True)
    (meta / "modified_classes").mkdir(parents=True, exist_ok=True)
    (meta / "trigger_tests" / str(bug.number)).write_text(
        "".join(f"--- {t}\n{failed[t]}" for t in sorted(failed)), encoding="utf-8"
    )
    relevant = sorted(t for t, loaded in relevant_by_class.items() if bug.modified_class in loaded)
    (meta / "relevant_tests" / str(bug.number)).write_text("".join(f"{t}\n" for t in relevant), encoding="utf-8")
    (meta / "modified_classes" / f"{bug.number}.src").write_text(bug.modified_class + "\n", encoding="utf-8")

    key = f"{bug.project}_{bug.number}_{bug.path}_{start}_{end}"
    entry = {
        "src": src,
        "src_wo_comments": tokens_wo_comments(src),
        "fixed_src": fixed_src,
        "fixed_src_wo_comments": tokens_wo_comments(fixed_src),
        "summary": bug.summary,
        "Description": bug.description,
        "issue_url": bug.issue_url,
        "comments": list(bug.comments) if bug.comments is not None else None,
    }
    if bug.summarized_discussion is not None:
        entry["summarized_discussion"] = bug.summarized_discussion
    entry["trigger_tests_src"] = trigger_sources(tree, sorted(failed))
    print(f"{name:11} {key}  triggers={len(failed)} relevant={len(relevant)}")
    return key, entry


def trigger_sources(tree: Tree, tests: list[str]) -> dict[str, str]:
    """Each trigger test method as written in the buggy tree (what ``nl2fix dataset build`` records)."""
    out = {}
    for test in tests:
        class_name, _, method = test.partition("::")
        text, _ = read_source(tree.root / TEST_DIR / (class_name.replace(".", "/") + ".java"))
        source = source_of_test(text, class_name, method)
        if source is None:
            raise SystemExit(f"{test}: method not found in its class's file")
        out[test] = source
    return out


def write_project_tables(project: str, bugs: list[BugSpec]) -> None:
    meta = METADATA / project
    with open(meta / "active-bugs.csv", "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["bug.id", "revision.id.buggy", "revision.id.fixed", "report.id", "report.url"])
        for b in bugs:
            out.writerow([b.number, f"buggy-{b.number}", "fixed", b.report_id, b.issue_url or "UNKNOWN"])
    with open(meta / "dir-layout.csv", "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        for rev in [f"buggy-{b.number}" for b in bugs] + ["fixed"]:
            out.writerow([rev, SRC_DIR, TEST_DIR])


def main() -> int:
    projects = sorted({b.project for b in BUGS}, key=[b.project for b in BUGS].index)
    for project in projects:
        shutil.rmtree(METADATA / project, ignore_errors=True)
        shutil.rmtree(PROJECTS / project / "patches", ignore_errors=True)
    dataset = {}
    with tempfile.TemporaryDirectory(prefix="nl2fix-example-build-") as tmp:
        for project in projects:
            fixed = Tree(PROJECTS / project / "fixed")
            compiled = compile_tree(fixed, Path(tmp) / project / "classes")
            if not compiled.ok:
                raise SystemExit(f"{project}: fixed tree does not compile:\n{compiled.stderr}")
            relevant_by_class = loaded_classes(fixed, Path(tmp) / project / "classes")
            bugs = [b for b in BUGS if b.project == project]
            for bug in bugs:
                work = Path(tmp) / f"{project}-{bug.number}"
                work.mkdir()
                key, entry = build_bug(bug, work, relevant_by_class)
                dataset[key] = entry
            write_project_tables(project, bugs)
    DATASET_JSON.write_text(json.dumps(dataset, indent=4) + "\n", encoding="utf-8")
    print(f"wrote {len(dataset)} bugs to {DATASET_JSON}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
