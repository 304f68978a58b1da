#!/usr/bin/env python3
"""Behaviour probing against people's judgement: a public, human-labelled set of Defects4J patches of
program repair tools (each judged correct or overfitting by hand), validated and probed as
``nl2fix validate`` does, and the probe's ``diverges`` read as "overfitting".

Two sets are read (``--set``):

- ``patchsim`` (the default, the set the probe was tuned on): PATCH-SIM's (Xiong et al., "Identifying
  Patch Correctness in Test-Based Program Repair", ICSE 2018), ``https://github.com/Ultimanecat/DefectRepairing``:
  ``tool/patches/PatchN`` (a ``diff -u`` of the buggy file) and ``tool/patches/INFO/PatchN.json`` (tool,
  project, bug, ``Correct`` / ``Incorrect`` / ``Unknown``), patches of jGenProg, jKali, Nopol, ACS and
  HDRepair; ``Unknown`` ones are left out. ``--patches`` is that ``tool/patches`` folder.
- ``apr-efficiency`` (held out: not looked at while building the probe): the patches of 16 repair tools
  that Liu et al. ("On the Efficiency of Test Suite based Program Repair", ICSE 2020) generated and judged
  by hand, as Tian et al. ("Evaluating Representation Learning of Code Changes for Predicting Patch
  Correctness in Program Repair", ASE 2020) published them, ``https://github.com/TruX-DTF/DL4PatchCorrectness``
  ``data/experiment1/APR-Efficiency-PFL`` and ``data/experiment3/APR-Efficiency-NFL``:
  ``<tool>/<Project>-<bug>_<C|P>/Patch_*.txt`` (``C`` correct, ``P`` plausible but overfitting). ``--patches``
  names one or both folders. A patch whose change (its ``+``/``-`` lines, blanks ignored) is one of
  another patch of the same bug is counted once; with ``--seen`` (PATCH-SIM's folder) a patch that
  PATCH-SIM's set already holds is left out too, so the held-out figure holds no patch tuned on.
- ``repairbench`` (correct LLM patches, for the false-alarm rate): RepairBench's published answers
  (``results/<model>/defects4j/patches/<Bug>/<verdict>/<i>.diff``, ``--patches`` the ``results`` folder)
  that it judged the developer's fix by text or syntax tree (``exact_match``, ``ast_match``), labelled
  correct; one per distinct method text of a bug, and none that is the fix's text comments and blanks
  aside (the fix itself to the compiler; each bug's developer fix is probed anyway).

Only patches of bugs of the dataset (``--dataset``) in the projects chosen (``--projects``, default the ones
an offline Defects4J here builds) are taken, and of those, patches that touch one file and only the
dataset's method (the rest counted and listed). Each bug's developer fix is probed too (a correct patch by
definition).

Each patch's hunks are applied to the buggy file of the Defects4J checkout (exactly, at the stated
line or the nearest place its old lines match), the method taken out, then validated and, when
plausible, probed. Every result goes to ``--out`` (JSON lines) as it comes, so a stopped run resumes
where it was. Printed from that file: the confusion table (label x outcome), and of the plausible
labelled patches: precision and recall of ``diverges`` for overfitting, accuracy (diverges =
overfitting, same-behaviour = correct), the ``not-probed`` rate, and the false-alarm rate on correct
patches (tools' and developers' apart); and of the divergences, how many come with a JUnit test that shows
them (written by nl2fix, then compiled and run under bubblewrap on the fix and on the patch as
``bench_divergence_tests.py`` does: it passes on the fix and fails on the patch). ``--report`` only prints what
the file holds.

    python3 scripts/bench_overfitting.py --patches /tmp/DefectRepairing/tool/patches --out overfit.jsonl
    python3 scripts/bench_overfitting.py --set apr-efficiency --seen /tmp/DefectRepairing/tool/patches \
        --patches DL4PatchCorrectness/data/experiment1/APR-Efficiency-PFL \
        DL4PatchCorrectness/data/experiment3/APR-Efficiency-NFL --out held_out.jsonl
    python3 scripts/bench_overfitting.py --patches ... --out overfit.jsonl --report
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import d4j_bugs
from bench_real import p99

from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.java_source.text import normalise
from nl2fix.sampling import published_sets
from nl2fix.sampling.importing import extract_answer

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
OUTSIDE = "outside-method"
"""A patch that changes more than the dataset's method (or another file): not probed, counted."""
UNAPPLIED = "does-not-apply"
OUTCOMES = ["diverges", "same-behaviour", "not-probed", "not-plausible", OUTSIDE, UNAPPLIED]


@dataclass(frozen=True)
class Patch:
    id: str
    tool: str
    bug_id: str
    label: str
    """``correct`` or ``overfitting`` (the set's ``Correct`` / ``Incorrect``)."""
    diff: str
    method: str = ""
    """The patched method itself, for a set that gives it (RepairBench's answers) rather than a file diff."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    """1-based line of the buggy file where the hunk's old lines start."""
    lines: list[str]
    """The hunk's lines, each with its ``' '``, ``'-'`` or ``'+'``."""

    @property
    def old(self) -> list[str]:
        return [line[1:] for line in self.lines if line[:1] in (" ", "-")]

    @property
    def new(self) -> list[str]:
        return [line[1:] for line in self.lines if line[:1] in (" ", "+")]

    def inside(self, at: int, start: int, end: int) -> bool:
        """Whether the hunk, placed at old line ``at``, changes only lines ``start..end``: each line it removes
        is one of them, each line it inserts goes after ``start`` (the header) and before or at ``end``, or right
        after ``end`` when it is a closing brace (a patch wrapping the method's last statements in a block
        closes it there, and the method's own brace ends the inserted block)."""
        line = at
        for text in self.lines:
            closing = line == end + 1 and text[1:].strip() in ("}", "")
            if text[:1] == "-" and not start <= line <= end or text[:1] == "+" and not (start < line <= end or closing):
                return False
            if text[:1] in (" ", "-"):
                line += 1
        return True


def read_patchsim(folder: Path, of_bug: dict[str, Bug]) -> list[Patch]:
    """The labelled patches of PATCH-SIM's ``tool/patches`` folder of the bugs ``of_bug`` holds (``Unknown`` ones
    left out)."""
    labels = {"Correct": "correct", "Incorrect": "overfitting"}
    out = []
    for info in sorted((folder / "INFO").glob("*.json")):
        meta = json.loads(info.read_text(encoding="utf-8"))
        if meta["correctness"] in labels and f"{meta['project']}-{meta['bug_id']}" in of_bug:
            out.append(
                Patch(
                    id=meta["ID"],
                    tool=meta["tool"],
                    bug_id=f"{meta['project']}-{meta['bug_id']}",
                    label=labels[meta["correctness"]],
                    diff=(folder / meta["ID"]).read_text(encoding="utf-8", errors="replace"),
                )
            )
    return out


def read_apr_efficiency(folder: Path, of_bug: dict[str, Bug]) -> list[Patch]:
    """The labelled patches of one APR-Efficiency folder (``<tool>/<Project>-<bug>_<C|P>/Patch_*.txt``) of the bugs
    ``of_bug`` holds, their file headers made plain (see :func:`plain_headers`)."""
    labels = {"C": "correct", "P": "overfitting"}
    out = []
    for path in sorted(folder.glob("*/*_[CP]/*.txt")):
        bug_id, _, mark = path.parent.name.rpartition("_")
        if bug_id not in of_bug:
            continue
        out.append(
            Patch(
                id=f"{folder.name}/{path.parent.parent.name}/{path.parent.name}/{path.stem}",
                tool=path.parent.parent.name,
                bug_id=bug_id,
                label=labels[mark],
                diff=plain_headers(path.read_text(encoding="utf-8", errors="replace")),
            )
        )
    return out


def read_repairbench(folder: Path, of_bug: dict[str, Bug]) -> list[Patch]:
    """Correct LLM patches: the answers of RepairBench's ``results`` folder that it judged the developer's fix
    (its ``exact_match`` and ``ast_match`` folders: plausible, and the fix's text or syntax tree), one per distinct
    method text of a bug. An answer whose text is the fix's, comments and blanks aside, is the fix itself to the
    compiler: it is counted and left out (each bug's developer fix is probed anyway)."""
    out, same = [], 0
    texts: set[tuple[str, str]] = set()
    for answer in published_sets.read(folder, published_sets.Format.REPAIRBENCH):
        bug = of_bug.get(answer.bug)
        if bug is None or answer.verdict not in ("exact_match", "ast_match"):
            continue
        method = extract_answer(answer, bug, lambda b: "")[0].code
        key = (bug.id, normalise(method or ""))
        if method is None or key in texts:
            continue
        texts.add(key)
        if key[1] == normalise(bug.fixed_method):
            same += 1
            continue
        out.append(Patch(f"{answer.model}/{answer.source}", answer.model, bug.id, "correct", "", method))
    print(f"RepairBench: {same} distinct answer(s) that are the developer's fix, comments and blanks aside: left out")
    return out


def plain_headers(diff: str) -> str:
    """``diff`` with one ``--- path`` line before each ``+++`` line: some of the set's files lost the first
    line's ``--- `` (it reads ``a/src/...``), and some tools wrote ``Namejava`` for ``Name.java``. The path is
    the ``---`` line's where there is one (a tool's ``+++`` path may lack the source folder)."""
    out: list[str] = []
    old = None
    for line in diff.splitlines():
        if line.startswith("--- "):
            old = line[4:].split("\t")[0]
            continue
        if line.startswith("+++ "):
            path = old or line[4:].split("\t")[0]
            path = re.sub(r"(?<=[^./])java$", ".java", path)
            out += [f"--- {path}", f"+++ {path}"]
            old = None
            continue
        if not out and line.endswith(".java"):  # the truncated first header
            old = line
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def change(diff: str) -> tuple[str, ...]:
    """What a diff changes, layout aside: its ``+``/``-`` lines without blanks (two tools' identical patches, or
    PATCH-SIM's and this set's, differ only in the file names and line numbers of their headers)."""
    return tuple(
        line[0] + "".join(line[1:].split())
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("--- ", "+++ ")) and line[1:].strip()
    )


def distinct(patches: list[Patch], seen: list[Patch]) -> tuple[list[Patch], int, int]:
    """``patches`` less those whose change another patch of the same bug had before (counted) and those that
    ``seen`` holds (counted): the first of each kept."""
    held = {(p.bug_id, change(p.diff)) for p in seen}
    kept, again, known = [], 0, 0
    mine: set[tuple[str, tuple[str, ...]]] = set()
    for p in patches:
        key = (p.bug_id, change(p.diff))
        if key in held:
            known += 1
        elif key in mine:
            again += 1
        else:
            mine.add(key)
            kept.append(p)
    return kept, again, known


def files_and_hunks(diff: str) -> tuple[list[str], list[Hunk]]:
    """The files a unified diff changes (their old paths) and its hunks, each as long as its header says (the
    blank lines after a file's last hunk are not its context)."""
    files, hunks = [], []
    old = new = 0  # the lines the current hunk's header announces that are still to come
    for line in diff.splitlines():
        if line.startswith("--- "):
            files.append(line[4:].split("\t")[0])
        elif (m := HUNK.match(line)) is not None:
            hunks.append(Hunk(int(m.group(1)), []))
            old, new = int(m.group(2) or 1), int(m.group(4) or 1)
        elif (old or new) and line[:1] in (" ", "-", "+", ""):
            line = line or " "  # a context line that was empty, its leading space stripped
            hunks[-1].lines.append(line)
            old -= line[0] in " -"
            new -= line[0] in " +"
    return files, hunks


def place(hunk: Hunk, lines: list[str]) -> int | None:
    """Where (1-based) the hunk's old lines are in ``lines``: at its stated line, else the nearest match."""
    old = hunk.old
    for at in sorted(range(1, len(lines) - len(old) + 2), key=lambda a: abs(a - hunk.old_start)):
        if lines[at - 1 : at - 1 + len(old)] == old:
            return at
    return None


def outside_as_stated(bug: Bug, diff: str) -> bool:
    """Whether ``diff`` changes more than the dataset's method by its own line numbers (no checkout needed:
    such a patch is counted without preparing its bug)."""
    files, hunks = files_and_hunks(diff)
    if len(set(files)) != 1 or not files[0].endswith(bug.path):
        return True
    return not all(h.inside(h.old_start, bug.start_line, bug.end_line) for h in hunks)


def method_of_patch(bug: Bug, source: str, diff: str) -> str:
    """The dataset's method as ``diff`` leaves it, or :data:`OUTSIDE` / :data:`UNAPPLIED`."""
    files, hunks = files_and_hunks(diff)
    if len(set(files)) != 1 or not files[0].endswith(bug.path):
        return OUTSIDE
    lines = source.splitlines()
    placed = []
    for hunk in hunks:
        at = place(hunk, lines)
        if at is None:
            return UNAPPLIED
        if not hunk.inside(at, bug.start_line, bug.end_line):
            return OUTSIDE
        placed.append((at, hunk))
    if not placed:
        return UNAPPLIED
    for at, hunk in sorted(placed, key=lambda p: -p[0]):  # the last first: earlier line numbers hold
        lines[at - 1 : at - 1 + len(hunk.old)] = hunk.new
    delta = sum(len(h.new) - len(h.old) for _, h in placed)
    return "\n".join(lines[bug.start_line - 1 : bug.end_line + delta]) + "\n"


def outcome(record) -> tuple[str, str]:
    """The patch's outcome word and what explains it."""
    if record.verdict is not Verdict.PLAUSIBLE:
        return "not-plausible", (record.detail or ", ".join(record.failing_tests))[:300]
    b = record.behaviour
    if b is None:
        return "not-probed", "no behaviour record"
    if b.label is Behaviour.DIVERGES:
        return "diverges", f"on {b.shown_input[:200]}: fix {b.reference_result[:120]}; patch {b.candidate_result[:120]}"
    if b.label is Behaviour.SAME:
        return "same-behaviour", f"{b.inputs} inputs"
    return "not-probed", b.note[:300]


def measure(args: argparse.Namespace, bugs: list[Bug], patches: list[Patch], out: Path) -> None:
    from defects4j_adapter import cache
    from defects4j_adapter.contract import EngineOptions, EngineSettings
    from defects4j_adapter.engines.fast import FastEngine
    from defects4j_adapter.sandbox.providers import make_sandbox
    from nl2fix.validation.bug_work import BugRun

    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    of_bug = {b.id: b for b in bugs}
    by_bug: dict[str, list[Patch]] = defaultdict(list)
    with out.open("a", encoding="utf-8") as f:
        for p in patches:
            if p.id in done:
                continue
            if p.diff and outside_as_stated(of_bug[p.bug_id], p.diff):
                row = dict(id=p.id, bug=p.bug_id, tool=p.tool, label=p.label, outcome=OUTSIDE, note="", cpu=0.0)
                f.write(json.dumps(row) + "\n")
            else:
                by_bug[p.bug_id].append(p)
    # the bugs with the most patches to probe first: a run stopped early has measured the most patches
    bugs = sorted((b for b in bugs if by_bug.get(b.id)), key=lambda b: -len(by_bug[b.id]))
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox(True), cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1))
    )
    start = time.monotonic()
    try:
        for bug in bugs:
            todo = by_bug[bug.id]
            if f"fix:{bug.id}" not in done:
                todo.append(Patch(f"fix:{bug.id}", "developer", bug.id, "correct", ""))
            run = BugRun(engine, bug, log_root=Path(tempfile.mkdtemp(prefix="bench-overfitting-")))
            check = run.baselines(lambda h: None, lambda record, candidate: None)
            rows = []
            if not check.ground_truth_ok or run.ws is None:
                why = "; ".join(check.problems)[:300]
                rows = [
                    dict(id=p.id, bug=bug.id, tool=p.tool, label=p.label, outcome=UNAPPLIED, note=why) for p in todo
                ]
            else:
                source = run.ws.buggy_file().read_bytes().decode(run.ws.encoding)
                for p in todo:
                    code = p.method or (method_of_patch(bug, source, p.diff) if p.diff else bug.fixed_method)
                    row = dict(id=p.id, bug=bug.id, tool=p.tool, label=p.label, outcome=code, note="", cpu=0.0)
                    if code not in (OUTSIDE, UNAPPLIED):
                        record = run.candidate(p.id, code)
                        row["outcome"], row["note"] = outcome(record)
                        row["cpu"] = record.behaviour.cpu_seconds if record.behaviour else 0.0
                        if row["outcome"] == "diverges" and record.behaviour is not None:
                            row["test"] = test_shown(run.ws, engine, code, record.behaviour)
                    rows.append(row)
            with out.open("a", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
            print(f"{bug.id}: {len(rows)} patch(es) ({time.monotonic() - start:.0f} s)", file=sys.stderr)
    finally:
        engine.close()


def test_shown(ws, engine, code: str, behaviour) -> str:
    """``shows`` when the divergence's JUnit test passes on the fix and fails on the patch; else what it did, or
    why none was written."""
    import bench_divergence_tests as tests

    if not behaviour.junit_test:
        return f"none: {behaviour.junit_note[:100]}"
    folder = Path(tempfile.mkdtemp(prefix="divergence-test-", dir=engine.options.cache_dir))
    try:
        shown = tests.check(ws, engine.options.sandbox, code, behaviour.junit_test, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return (
        "shows" if shown.shows else f"does not show: on the fix {shown.fix[:80]}; on the patch {shown.candidate[:80]}"
    )


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.0f} %" if whole else f"{part}/0"


def report(rows: list[dict]) -> None:
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in rows:
        kind = "developer fix" if r["tool"] == "developer" else r["label"]
        table[kind][r["outcome"]] += 1
    print(f"{'':<16}" + "".join(f"{o:>16}" for o in OUTCOMES))
    for kind in ("overfitting", "correct", "developer fix"):
        print(f"{kind:<16}" + "".join(f"{table[kind][o]:>16}" for o in OUTCOMES))
    over, corr = table["overfitting"], table["correct"]
    probed = ("diverges", "same-behaviour", "not-probed")
    tp, fp = over["diverges"], corr["diverges"]
    plausible = sum(over[o] + corr[o] for o in probed)
    print(f"\nof the plausible labelled tools' patches ({plausible}), diverges read as overfitting:")
    print(f"  precision       {_rate(tp, tp + fp)}")
    print(f"  recall          {_rate(tp, sum(over[o] for o in probed))}")
    print(f"  accuracy        {_rate(tp + corr['same-behaviour'], plausible)}")
    print(f"  not-probed      {_rate(over['not-probed'] + corr['not-probed'], plausible)}")
    print(f"  false alarms on correct tools' patches {_rate(fp, sum(corr[o] for o in probed))}")
    dev = table["developer fix"]
    print(f"  false alarms on developers' fixes      {_rate(dev['diverges'], sum(dev[o] for o in probed))}")
    tests = Counter(
        r.get("test", "not checked (an earlier run)").split(":")[0] for r in rows if r["outcome"] == "diverges"
    )
    print(
        f"  divergences with a JUnit test that shows them {tests['shows']}/{sum(tests.values())}"
        + "".join(f"; {kind} {n}" for kind, n in sorted(tests.items()) if kind != "shows")
    )
    cpu = {o: [r["cpu"] for r in rows if r["tool"] != "developer" and r["outcome"] == o] for o in probed}
    print("\nprobe CPU-s per plausible tools' patch (its compiles included): mean, median, p90, p99, max")
    for what, values in [("all", [c for o in probed for c in cpu[o]]), *cpu.items()]:
        if values:
            print(
                f"  {what:<16}{statistics.mean(values):6.2f} {statistics.median(values):6.2f} "
                f"{statistics.quantiles(values, n=10, method='inclusive')[-1] if len(values) > 1 else values[0]:6.2f} "
                f"{p99(values):6.2f} {max(values):6.2f}  ({len(values)})"
            )
    print("\neach probed patch's outcome:")
    for r in sorted(rows, key=lambda r: (r["bug"], r["id"])):
        if r["outcome"] in probed or r["outcome"] == OUTSIDE:
            print(f"  {r['bug']:<10}{r['id']:<14}{r['tool']:<11}{r['label']:<12}{r['outcome']:<15}{r['note'][:160]}")
            if r.get("test", "shows") != "shows":
                print(f"      its JUnit test: {r['test'][:200]}")


SETS = {"patchsim": read_patchsim, "apr-efficiency": read_apr_efficiency, "repairbench": read_repairbench}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument("--set", choices=SETS, default="patchsim", help="Which labelled set --patches holds.")
    parser.add_argument("--patches", type=Path, nargs="+", required=True, help="The set's folder(s) (see above).")
    parser.add_argument("--seen", type=Path, help="PATCH-SIM's tool/patches folder: its patches are left out.")
    parser.add_argument("--out", type=Path, required=True, help="Results, one JSON line per patch (resumed).")
    parser.add_argument("--report", action="store_true", help="Only print what --out holds.")
    args, d4j, bugs = d4j_bugs.parse(parser)
    of_bug = {b.id: b for b in bugs}
    labelled = [p for folder in args.patches for p in SETS[args.set](folder, of_bug)]
    seen = read_patchsim(args.seen, of_bug) if args.seen else []
    # the two APR-Efficiency folders hold a patch once per fault localisation that found it; PATCH-SIM's ids are
    # its own list of distinct tool runs (and the figures published from it count them so)
    patches, again, known = distinct(labelled, seen) if args.set == "apr-efficiency" else (labelled, 0, 0)
    print(
        f"{args.set} set: {len(patches)} labelled patches of {len({p.bug_id for p in patches})} dataset bugs"
        f" ({again} the same change as another patch of the bug, {known} in PATCH-SIM's set: left out)"
    )
    if d4j is not None and not args.report:
        measure(args, [b for b in bugs if any(p.bug_id == b.id for p in patches)], patches, args.out)
    if args.out.exists():
        report([json.loads(line) for line in args.out.read_text().splitlines() if line.strip()])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Nl2FixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
