#!/usr/bin/env python3
"""Check the example benchmark for real: patches, line ranges, compile and test outcomes.

Per bug: copy ``projects/<P>/fixed``, apply ``patches/<N>.src.patch`` (``git apply --check``
and ``patch -p1``), check the key's lines equal ``src``, compile with javac --release 8, check every
trigger test fails; splice ``fixed_src`` over those lines and check the triggers and all relevant
test classes pass (or, for a bug whose fix needs a change outside the method, that the splice
does not compile). Per project: every test passes on the fixed tree. And the dataset loads with
``nl2fix.dataset.load.open_dataset("example")`` without problems. Exit status 1 on any failure.

    python3 examples/benchmark/verify.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bugs import BUGS, BugSpec
from tooling import (
    DATASET_JSON,
    PROJECTS,
    SRC_DIR,
    TIMEOUT,
    Tree,
    apply_patch,
    compile_tree,
    copy_tree,
    failures,
    method_text,
    read_source,
    run_tests,
    splice,
    tokens_wo_comments,
)

from nl2fix.core.domain import Bug
from nl2fix.core.processes import run_command
from nl2fix.dataset.load import open_dataset


def check_dataset() -> tuple[dict[str, Bug], list[str]]:
    ds = open_dataset("example")
    problems = [f"dataset: {p}" for p in ds.problems]
    expected = {f"{b.project}-{b.number}" for b in BUGS}
    if set(ds.bugs) != expected:
        problems.append(f"dataset bugs {sorted(ds.bugs)} != bugs.py {sorted(expected)}")
    for bug in ds.bugs.values():
        if not bug.trigger_tests or not bug.relevant_tests:
            problems.append(f"{bug.id}: no trigger or no relevant tests")
        if not {t.split("::")[0] for t in bug.trigger_tests} <= set(bug.relevant_tests):
            problems.append(f"{bug.id}: a trigger test class is not among the relevant tests")
        if (bug.source_dir, bug.test_dir, bug.fixed_revision) != ("src/main/java", "src/test/java", "fixed"):
            problems.append(f"{bug.id}: layout/revisions not read from the metadata")
    return ds.bugs, problems


def check_fixed_tree(project: str, work: Path) -> list[str]:
    tree = Tree(PROJECTS / project / "fixed")
    compiled = compile_tree(tree, work / "classes")
    if not compiled.ok:
        return [f"{project}: fixed tree does not compile:\n{compiled.stderr}"]
    res = run_tests(work / "classes", tree.test_classes())
    failed = failures(res.stdout)
    return [f"{project}: fixed tree test fails: {t}" for t in failed] or (
        [] if res.ok else [f"{project}: test run failed: {res.stdout[-2000:]}{res.stderr[-2000:]}"]
    )


def check_patch(spec: BugSpec, patch: Path, tree: Tree) -> list[str]:
    problems = []
    touched = [l[6:] for l in patch.read_text(encoding="iso-8859-1").splitlines() if l.startswith("+++ b/")]
    if not touched or any(not t.startswith(SRC_DIR + "/") for t in touched):
        problems.append(f"patch touches {touched}, want only files under {SRC_DIR}")
    check = run_command(["git", "apply", "--check", "-p1", patch], cwd=tree.root, timeout=TIMEOUT)
    if not check.ok:
        problems.append(f"git apply --check fails: {check.stderr.strip()}")
    applied = apply_patch(tree, patch)
    if not applied.ok:
        problems.append(f"patch -p1 fails: {applied.stdout}{applied.stderr}")
    return problems


def check_bug(spec: BugSpec, bug: Bug, tmp: Path) -> tuple[str, list[str]]:
    work = tmp / bug.id
    tree = copy_tree(PROJECTS / spec.project / "fixed", work / "tree")
    problems = check_patch(spec, PROJECTS / spec.project / "patches" / f"{spec.number}.src.patch", tree)
    if problems:
        return "patch", problems

    path = tree.root / bug.path
    text, encoding = read_source(path)
    if method_text(text, bug.start_line, bug.end_line) != bug.buggy_method:
        problems.append(f"lines {bug.start_line}-{bug.end_line} of the patched {bug.path} differ from src")
    fixed_text, _ = read_source(PROJECTS / spec.project / "fixed" / bug.path)
    if bug.fixed_method not in fixed_text:
        problems.append("fixed_src is not a method of the fixed tree")
    entry = json.loads(DATASET_JSON.read_text(encoding="utf-8"))[bug.key]
    if entry["src_wo_comments"] != tokens_wo_comments(entry["src"]):
        problems.append("src_wo_comments does not match src")
    if entry["fixed_src_wo_comments"] != tokens_wo_comments(entry["fixed_src"]):
        problems.append("fixed_src_wo_comments does not match fixed_src")

    compiled = compile_tree(tree, work / "buggy-classes")
    if not compiled.ok:
        return "buggy does not compile", problems + [compiled.stderr]
    for test in bug.trigger_tests:
        if run_tests(work / "buggy-classes", [test]).ok:
            problems.append(f"trigger test passes on the buggy version: {test}")

    path.write_bytes(splice(text, bug.start_line, bug.end_line, bug.fixed_method).encode(encoding))
    compiled = compile_tree(tree, work / "spliced-classes")
    if spec.needs_outside_change:
        if compiled.ok or "cannot find symbol" not in compiled.stderr:
            problems.append(f"fixed_src spliced alone should fail only for a missing symbol:\n{compiled.stderr}")
        outcome = "spliced fix does not compile (as intended)"
    elif not compiled.ok:
        problems.append(f"spliced fix does not compile:\n{compiled.stderr}")
        outcome = "spliced fix does not compile"
    else:
        res = run_tests(work / "spliced-classes", list(bug.trigger_tests) + list(bug.relevant_tests))
        problems += [f"fails with the spliced fix: {t}" for t in failures(res.stdout)]
        if not res.ok and not problems:
            problems.append(f"test run failed: {res.stdout[-2000:]}{res.stderr[-2000:]}")
        outcome = f"spliced fix passes {len(bug.trigger_tests)} trigger + {len(bug.relevant_tests)} relevant"
    return f"{len(bug.trigger_tests)} trigger tests fail on buggy; {outcome}", problems


def main() -> int:
    bugs, problems = check_dataset()
    for p in problems:
        print(f"FAIL {p}")
    specs = {f"{s.project}-{s.number}": s for s in BUGS}
    with tempfile.TemporaryDirectory(prefix="nl2fix-example-verify-") as tmp:
        with ThreadPoolExecutor(max_workers=2) as pool:
            fixed_jobs = {
                p: pool.submit(check_fixed_tree, p, Path(tmp) / f"fixed-{p}")
                for p in dict.fromkeys(s.project for s in BUGS)
            }
            bug_jobs = {i: pool.submit(check_bug, specs[i], bugs[i], Path(tmp)) for i in bugs if i in specs}
            for project, job in fixed_jobs.items():
                found = job.result()
                print(
                    f"ok   {project} fixed tree: all tests pass" if not found else "\n".join(f"FAIL {f}" for f in found)
                )
                problems += found
            for bug_id, job in bug_jobs.items():
                summary, found = job.result()
                print(f"{'FAIL' if found else 'ok  '} {bug_id:11} {specs[bug_id].kind}: {summary}")
                for f in found:
                    print(f"       {f}")
                problems += found
    print(f"{len(bugs)} bugs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
