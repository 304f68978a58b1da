#!/usr/bin/env python3
"""The whole benchmark against Defects4J's contract: every runnable bug's baselines, and both
engines' verdicts on a sample of candidates of every project, kept as data in the repository.

1. The fast engine judges every selected bug's fixed and buggy version (a project at a time, so a
   long sweep leaves data behind as it goes). Where its baselines keep Defects4J's contract (the
   buggy version fails exactly its trigger tests, the ground truth passes them) nothing could
   differ and the bug is ``agree``. Everywhere else the ``defects4j`` engine judges the same two
   versions, and the bug is sorted as :func:`category` says: ``dataset`` (Defects4J rejects the
   ground truth too: the fix needs a change outside the method, or it fails its own triggers),
   ``environment`` (named: a fault of the Java, the class path or the machine, e.g. a test that
   resolves ``google.com`` in a sandbox without network), ``disagree`` or ``not run``.
2. Mutation-baseline candidates of ``--per-project`` bugs of every project (those whose ground
   truth validates), judged by both engines in one run store (``bench_real.py``'s part 2):
   verdicts compared candidate by candidate, CPU-s side by side.

Both parts write their rows to ``--data`` (default ``docs/sweep/``: ``baselines.csv``,
``candidates.csv``) after every project, and keep every verdict in ``--store`` (default
``$NL2FIX_CACHE_DIR/bench-real``, shared with ``bench_real.py``): a killed sweep resumes where it
stopped. Needs a Defects4J; without one it says so and exits 0.

    python3 scripts/sweep_benchmark.py                                  # every runnable bug: hours
    python3 scripts/sweep_benchmark.py --projects Cli,Csv --per-project 5
    python3 scripts/sweep_benchmark.py --no-candidates                  # baselines only
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import bench_real
import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineSettings
from defects4j_adapter.engines import linkage
from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.store.run_store import STORE_FILE, RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED, BaselineCheck
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.stage import check_baselines

DATA = Path(__file__).resolve().parent.parent / "docs" / "sweep"
BASELINE_COLUMNS = (
    "bug",
    "project",
    "buggy_fails_exactly_the_triggers",
    "buggy_failing",
    "fixed_verdict",
    "fixed_failing",
    "defects4j_judged",
    "category",
    "why",
)
SLOT = re.compile(r"/\S*/d4j/[^/\s]+\.slots/\d+/")
"""A Defects4J checkout's path on this machine, left out of the committed reasons."""
CANDIDATE_COLUMNS = ("bug", "candidate", "fast", "defects4j", "fast_cpu_s", "defects4j_cpu_s")


@dataclass(frozen=True)
class Row:
    """One bug's outcome: what the fast engine found, and how it stands against Defects4J."""

    check: BaselineCheck
    category: str
    why: str
    defects4j_judged: bool

    def cells(self) -> dict[str, str]:
        bug, fixed, buggy = self.check.bug, self.check.fixed, self.check.buggy
        exact = (
            buggy is not None and buggy.verdict is Verdict.WRONG and set(buggy.failing_tests) == set(bug.trigger_tests)
        )
        return {
            "bug": bug.id,
            "project": bug.project,
            "buggy_fails_exactly_the_triggers": "yes" if exact else "no",
            "buggy_failing": str(len(buggy.failing_tests)) if buggy else "",
            "fixed_verdict": fixed.verdict.value if fixed else "not prepared",
            "fixed_failing": str(len(fixed.failing_tests)) if fixed else "",
            "defects4j_judged": "yes" if self.defects4j_judged else "no (not needed)",
            "category": self.category,
            "why": " ".join(SLOT.sub("", self.why).split())[:400],
        }


def environment_named(fast: BaselineCheck, d4j: BaselineCheck) -> str:
    """The named environment faults that account for every test beyond the contract under both engines
    (a test each engine fails alike, for its machine's sake); empty when some test is not accounted for."""
    faults: list[str] = []
    for check in (fast, d4j):
        if check.fixed is None or check.buggy is None:
            return ""
        for record in (check.fixed, check.buggy):
            found = linkage.faults_in(record.detail)
            extra = set(record.failing_tests) - (set(check.bug.trigger_tests) if record is check.buggy else set())
            if extra and not found:
                return ""
            faults += [f for f in found if f not in faults]
    return "; ".join(faults)


def keeps_contract(check: BaselineCheck) -> bool:
    """Defects4J's promise, whole: the ground truth passes every relevant test and the buggy version
    fails exactly its trigger tests."""
    fixed, buggy = check.fixed, check.buggy
    return (
        fixed is not None
        and buggy is not None
        and fixed.verdict is Verdict.PLAUSIBLE
        and buggy.verdict is Verdict.WRONG
        and set(buggy.failing_tests) == set(check.bug.trigger_tests)
    )


def category(fast: BaselineCheck, d4j: BaselineCheck | None) -> tuple[str, str]:
    """``agree`` when the fast engine keeps the contract (nothing for Defects4J to differ on), else the
    ``defects4j`` engine's view of the same versions decides (:func:`bench_real.judge`): ``dataset``,
    ``environment`` (named), ``disagree`` or ``not run``."""
    if keeps_contract(fast):
        return "agree", ""
    if d4j is None:
        return "not run", "the defects4j engine has not judged it yet"
    found = bench_real.judge(fast, d4j)
    named = environment_named(fast, d4j)
    if found.kind in ("both", "agree") and named:
        return "environment", f"{named} (under both engines)"
    if found.kind in ("both", "agree"):  # the engines agree; what breaks the contract is Defects4J's own
        why = found.why or bench_real.describe(fast.fixed) if fast.fixed else found.why
        return "dataset", f"Defects4J's contract does not hold under Defects4J either: {why}"
    return {"DISAGREE": "disagree"}.get(found.kind, found.kind), found.why


def _options(engine: Engine, workers: int) -> ValidationOptions:
    """The fast engine's candidates run under bubblewrap; the defects4j engine runs none."""
    sandbox = SandboxSpec.of(engine is Engine.FAST)
    return ValidationOptions(engine=engine, sandbox=sandbox, settings=EngineSettings(workers=workers))


def baselines(bugs: list[Bug], store: Path, workers: int, *, run_defects4j: bool = True) -> list[Row]:
    """Fast baselines of ``bugs``; the defects4j engine's where the fast engine breaks the contract
    (without ``run_defects4j``, only those it has already judged in ``store``)."""
    fast = {c.bug.id: c for c in check_baselines(bugs, _options(Engine.FAST, workers), store_dir=store, progress=False)}
    doubtful = [b for b in bugs if category(fast[b.id], None)[0] != "agree"]
    if run_defects4j:
        judged = (
            check_baselines(doubtful, _options(Engine.DEFECTS4J, workers), store_dir=store, progress=False)
            if doubtful
            else []
        )
    else:
        judged = stored_baselines(doubtful, store, Engine.DEFECTS4J)
    d4j = {c.bug.id: c for c in judged}
    return [Row(fast[b.id], *category(fast[b.id], d4j.get(b.id)), defects4j_judged=b.id in d4j) for b in bugs]


def stored_baselines(bugs: list[Bug], store: Path, engine: Engine) -> list[BaselineCheck]:
    """The baselines ``engine`` has judged in ``store``, of those of ``bugs`` it has judged both of."""
    if not (store / STORE_FILE).is_file():
        return []
    with RunStore(store, read_only=True) as run:
        found = [(b, {r.hash: r for r in run.validations(b.id, engine.value)}) for b in bugs]
    return [BaselineCheck(b, got[FIXED], got[BUGGY]) for b, got in found if FIXED in got and BUGGY in got]


def write(path: Path, columns: tuple[str, ...], rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def merged(path: Path, rows: list[dict[str, str]], key: tuple[str, ...]) -> list[dict[str, str]]:
    """``rows`` over what ``path`` already holds (a sweep run in pieces keeps the others' rows), sorted."""
    old = list(csv.DictReader(path.open(encoding="utf-8"))) if path.is_file() else []
    by_key = {tuple(r[k] for k in key): r for r in old} | {tuple(r[k] for k in key): r for r in rows}
    return [by_key[k] for k in sorted(by_key, key=lambda k: (*bug_order(k[0]), *k[1:]))]


def bug_order(bug_id: str) -> tuple[str, int]:
    project, number = bug_id.rsplit("-", 1)
    return project, int(number)


def summary(rows: list[dict[str, str]]) -> None:
    counts = Counter(r["category"] for r in rows)
    print(f"\nbaselines of {len(rows)} bugs: " + ", ".join(f"{n} {c}" for c, n in counts.most_common()))
    for project, n in sorted(Counter(r["project"] for r in rows).items()):
        of = Counter(r["category"] for r in rows if r["project"] == project)
        print(f"  {project:16} {n:3} bugs: " + ", ".join(f"{k} {v}" for k, v in of.most_common()))
    for row in rows:
        if row["category"] != "agree":
            print(f"  {row['category']:11} {row['bug']}: {row['why'][:240]}")


def candidate_rows(bugs: list[Bug], run_dir: Path) -> list[dict[str, str]]:
    judges = bench_real.sides(run_dir, None)
    records = bench_real.read_verdicts(judges, bugs)
    fast, d4j = records["fast"], records["defects4j"]
    return [
        {
            "bug": k[0],
            "candidate": k[1],
            "fast": fast[k].verdict.value,
            "defects4j": d4j[k].verdict.value,
            "fast_cpu_s": f"{fast[k].cpu_seconds:.2f}",
            "defects4j_cpu_s": f"{d4j[k].cpu_seconds:.2f}",
        }
        for k in sorted(set(fast) & set(d4j))
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, projects=d4j_bugs.INSTALLED_PROJECTS)
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="Where verdicts are kept and resumed from (default $NL2FIX_CACHE_DIR/bench-real).",
    )
    parser.add_argument("--data", type=Path, default=DATA, help=f"Where the CSV rows go (default {DATA}).")
    parser.add_argument("--workers", type=int, default=2, help="Parallel validations (default 2).")
    parser.add_argument("--no-candidates", action="store_true", help="Skip part 2.")
    parser.add_argument(
        "--no-defects4j",
        action="store_true",
        help="Run no defects4j engine baselines: use those already kept (a bug it has not judged yet is `not run`).",
    )
    parser.add_argument("--per-project", type=int, default=5, help="Bugs of each project for part 2 (default 5).")
    parser.add_argument("--per-bug", type=int, default=6, help="Mutation-baseline samples per bug (default 6).")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    store = args.store or cache.cache_dir() / "bench-real"
    start = time.monotonic()
    projects = list(dict.fromkeys(b.project for b in bugs))
    rows: list[Row] = []
    for project in projects:
        of = [b for b in bugs if b.project == project]
        began = time.monotonic()
        found = baselines(of, store / "baselines", args.workers, run_defects4j=not args.no_defects4j)
        rows += found
        write(
            args.data / "baselines.csv",
            BASELINE_COLUMNS,
            merged(args.data / "baselines.csv", [r.cells() for r in found], ("bug",)),
        )
        print(
            f"{project}: baselines of {len(of)} bugs in {time.monotonic() - began:.0f} s: "
            + ", ".join(f"{n} {c}" for c, n in Counter(r.category for r in found).most_common()),
            flush=True,
        )
    summary([r.cells() for r in rows])
    status = 0
    if not args.no_candidates:
        for project in projects:
            chosen = [r.check.bug for r in rows if r.check.bug.project == project and r.check.ground_truth_ok]
            chosen = chosen[: args.per_project]
            if not chosen:
                continue
            run_dir = store / f"candidates-n{args.per_bug}"
            status |= bench_real.candidates(chosen, args.dataset, run_dir, args.per_bug, args.workers)
            write(
                args.data / "candidates.csv",
                CANDIDATE_COLUMNS,
                merged(args.data / "candidates.csv", candidate_rows(chosen, run_dir), ("bug", "candidate")),
            )
    print(f"\n{time.monotonic() - start:.0f} s in all; verdicts kept in {store}, rows in {args.data}")
    return status


if __name__ == "__main__":
    sys.exit(main())
