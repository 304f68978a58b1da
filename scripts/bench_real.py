#!/usr/bin/env python3
"""The fast engine against Defects4J itself, on the dataset's real bugs.

1. Baselines (every selected bug; ``--no-baselines`` skips them): the fixed and the buggy
   version of each bug, judged by the fast engine and by the ``defects4j`` engine, against
   Defects4J's contract -- the buggy version fails exactly its trigger tests, the ground truth
   passes them. Lists every bug where the engines disagree and why; apart from those, the bugs
   whose ground truth Defects4J itself rejects (the fix needs a change outside the method: the
   dataset's, not ours), the bugs where both engines agree that the contract does not hold, and
   the bugs an engine could not run.
2. Candidates (``--sample N`` bugs, spread over the projects): the mutation baseline's candidates
   (``nl2fix sample --backend mutation``) validated by both engines in one run store, each engine
   as its own ``nl2fix validate`` process: verdict agreement, and CPU-seconds per unique
   candidate side by side (median and mean of the candidates' own validations; the whole
   process's per candidate) with their ratio.

Everything is kept in ``--store`` (default ``$NL2FIX_CACHE_DIR/bench-real``), so the sweep can be
run in pieces (``--projects``, ``--bugs``, ``--limit``) and resumes where it stopped. The fast
engine runs in the bubblewrap sandbox; the ``defects4j`` engine cannot, so it runs Defects4J
unconfined (``--no-sandbox``) on the dataset's own methods and the mutation baseline's edits of
them. Needs a Defects4J; without one it says so and exits 0.

    python3 scripts/bench_real.py --limit 2 --sample 4               # 2 bugs a project, 4 sampled
    python3 scripts/bench_real.py --no-baselines --sample 10 --per-bug 8
    python3 scripts/bench_real.py                                     # everything: hours
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from itertools import chain, zip_longest
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.engines import linkage
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.core.processes import run_command
from nl2fix.store.records import ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED, BaselineCheck
from nl2fix.validation.stage import check_baselines

ENGINES = (Engine.FAST, Engine.DEFECTS4J)
VALIDATE_TIMEOUT = 24 * 3600.0


@dataclass(frozen=True)
class Finding:
    bug: Bug
    kind: str
    """``agree`` (the contract holds), ``DISAGREE``, ``environment`` (only Defects4J's
    environment made the difference), ``dataset``, ``both`` (both engines find the contract
    broken alike) or ``not run``."""
    why: str = ""


def broken_contract(check: BaselineCheck) -> str:
    """How one engine's baselines break Defects4J's contract; empty when they keep it."""
    triggers = set(check.bug.trigger_tests)
    fixed, buggy = check.fixed, check.buggy
    if fixed.verdict not in (Verdict.PLAUSIBLE, Verdict.WRONG) or triggers & set(fixed.failing_tests):
        return f"the ground truth is {fixed.verdict.value}: {describe(fixed)}"
    if buggy.verdict is not Verdict.WRONG or set(buggy.failing_tests) != triggers:
        return (f"the buggy version is {buggy.verdict.value}, failing {sorted(buggy.failing_tests)} "
                f"instead of exactly {sorted(triggers)}")
    return ""


def describe(record: ValidationRecord) -> str:
    what = record.compile_errors or record.detail or ", ".join(record.failing_tests)
    return " ".join(what.split())[:300]


def outcome(record: ValidationRecord) -> tuple[str, frozenset[str]]:
    return record.verdict.value, frozenset(record.failing_tests)


def difference(fast: BaselineCheck, d4j: BaselineCheck) -> str:
    """Where the fast engine's baselines differ from the defects4j engine's, and what each said."""
    parts = []
    for name, ours, theirs in (("fixed", fast.fixed, d4j.fixed), ("buggy", fast.buggy, d4j.buggy)):
        if outcome(ours) == outcome(theirs):
            continue
        only_fast = sorted(set(ours.failing_tests) - set(theirs.failing_tests))
        only_d4j = sorted(set(theirs.failing_tests) - set(ours.failing_tests))
        parts.append(f"{name}: fast {ours.verdict.value}, defects4j {theirs.verdict.value}"
                     + (f"; failing only under fast: {only_fast[:5]}" if only_fast else "")
                     + (f"; failing only under defects4j: {only_d4j[:5]}" if only_d4j else "")
                     + f" (fast: {describe(ours)[:200]}; defects4j: {describe(theirs)[:200]})")
    return " | ".join(parts)


def harness_failure(check: BaselineCheck) -> str:
    """Why an engine could not judge a baseline (it could not prepare the bug, or its harness
    failed); empty when both were judged."""
    failed = [r for r in (check.fixed, check.buggy) if r.verdict is Verdict.ERROR]
    return describe(failed[0]) if failed else ""


def defects4j_environment_only(fast: BaselineCheck, d4j: BaselineCheck) -> bool:
    """Whether the engines differ only in tests that failed under Defects4J for its environment's
    sake (its verdict reports a linkage error of a library class: two class loaders with their own
    copy of Hamcrest in the Ant that runs its tests here), failing nothing more under fast."""
    pairs = [(ours, theirs) for ours, theirs in ((fast.fixed, d4j.fixed), (fast.buggy, d4j.buggy))
             if outcome(ours) != outcome(theirs)]
    return all(set(ours.failing_tests) <= set(theirs.failing_tests) and linkage.faults_in(theirs.detail)
               for ours, theirs in pairs)


def judge(fast: BaselineCheck, d4j: BaselineCheck) -> Finding:
    bug = fast.bug
    unrun = [f"{e.value}: {harness_failure(c)}" for e, c in zip(ENGINES, (fast, d4j)) if harness_failure(c)]
    if unrun:
        return Finding(bug, "not run", "; ".join(unrun))
    if outcome(fast.fixed) != outcome(d4j.fixed) or outcome(fast.buggy) != outcome(d4j.buggy):
        return Finding(bug, "environment" if defects4j_environment_only(fast, d4j) else "DISAGREE",
                       difference(fast, d4j))
    theirs = broken_contract(d4j)
    if theirs.startswith("the ground truth"):
        return Finding(bug, "dataset", theirs)
    return Finding(bug, "both", theirs) if theirs else Finding(bug, "agree")


def baselines(bugs: list[Bug], store: Path, workers: int) -> list[Finding]:
    checks = {}
    for engine in ENGINES:
        start = time.monotonic()
        found = check_baselines(bugs, store_dir=store, engine=engine, workers=workers,
                                sandbox=engine is Engine.FAST, progress=True)
        checks[engine] = {c.bug.id: c for c in found}
        print(f"baselines with the {engine.value} engine: {time.monotonic() - start:.0f} s", flush=True)
    return [judge(checks[Engine.FAST][b.id], checks[Engine.DEFECTS4J][b.id]) for b in bugs]


def print_findings(findings: list[Finding]) -> None:
    titles = {
        "DISAGREE": "the fast engine disagrees with the defects4j engine",
        "environment": "the defects4j engine failed tests for its environment's sake (a linkage error it "
                       "reports as such), the fast engine no more than it: left out of the agreement",
        "dataset": "the ground truth does not validate under Defects4J either (it needs a change outside "
                   "the method: the dataset's, not ours)",
        "both": "both engines find Defects4J's contract broken, alike",
        "not run": "an engine could not run the baselines",
    }
    print(f"\n(1) baselines of {len(findings)} bugs: "
          + ", ".join(f"{sum(f.kind == k for f in findings)} {k}" for k in ("agree", *titles)))
    for kind, title in titles.items():
        chosen = [f for f in findings if f.kind == kind]
        if chosen:
            print(f"{title}:")
            for f in chosen:
                print(f"  {f.bug.id}: {f.why}")
    agreeing = sum(f.kind not in ("DISAGREE", "environment", "not run") for f in findings)
    ran = sum(f.kind not in ("environment", "not run") for f in findings)
    if ran:
        print(f"agreement on the baselines: {agreeing} of {ran} bugs ({100 * agreeing / ran:.1f} %)")


def spread(bugs: list[Bug], count: int) -> list[Bug]:
    """``count`` bugs taken round-robin over the projects (each project's in dataset order)."""
    by_project: dict[str, list[Bug]] = {}
    for bug in bugs:
        by_project.setdefault(bug.project, []).append(bug)
    mixed = [b for b in chain.from_iterable(zip_longest(*by_project.values())) if b is not None]
    return mixed[:count]


def nl2fix(*args: str) -> tuple[bool, float, str]:
    """Run ``nl2fix ARGS`` as its own process: (finished without a harness failure, its CPU-s, stderr's end)."""
    result = run_command([sys.executable, "-c", "from nl2fix.cli.main import main; main()", *args],
                         timeout=VALIDATE_TIMEOUT)
    return result.returncode in (0, 1), result.cpu_seconds, result.stderr[-2000:]


def candidates(bugs: list[Bug], dataset: str, run_dir: Path, per_bug: int, workers: int) -> int:
    selection = [a for b in bugs for a in ("--bug", b.id)]
    ok, _, err = nl2fix("sample", "--dataset", dataset, *selection, "--run", str(run_dir), "--backend", "mutation",
                        "-n", str(per_bug), "--quiet")
    if not ok:
        print(f"sampling failed:\n{err}")
        return 1
    process = {}
    for engine in ENGINES:
        start = time.monotonic()
        ok, cpu, err = nl2fix("validate", "--run", str(run_dir), "--engine", engine.value, "--workers", str(workers),
                              *selection, "--quiet", *([] if engine is Engine.FAST else ["--no-sandbox"]))
        print(f"candidates with the {engine.value} engine: {time.monotonic() - start:.0f} s", flush=True)
        if not ok:
            print(f"validation with the {engine.value} engine failed:\n{err}")
            return 1
        process[engine] = cpu
    with RunStore(run_dir) as store:
        records = {e: {(r.bug_id, r.hash): r for b in bugs for r in store.validations(b.id, e.value)
                       if r.hash not in (FIXED, BUGGY)} for e in ENGINES}
    keys = sorted(set(records[Engine.FAST]) & set(records[Engine.DEFECTS4J]))
    print(f"\n(2) mutation-baseline candidates of {len(bugs)} bugs ({', '.join(b.id for b in bugs)}): "
          f"{len(keys)} unique candidates judged by both engines")
    if not keys:
        return 0
    print(f"{'engine':10} {'median CPU-s/cand':>17} {'mean':>7} {'process CPU-s/cand':>18}")
    medians = {}
    for engine in ENGINES:
        cpu = [records[engine][k].cpu_seconds for k in keys]
        medians[engine] = statistics.median(cpu)
        print(f"{engine.value:10} {medians[engine]:17.2f} {statistics.mean(cpu):7.2f} "
              f"{process[engine] / len(keys):18.2f}")
    print("(process: this call's whole `nl2fix validate` -- baselines, JVM and Ant start-ups -- over the candidates "
          "judged; it is small when the candidates were judged by an earlier call)")
    if medians[Engine.FAST] > 0:
        print(f"defects4j / fast, medians: {medians[Engine.DEFECTS4J] / medians[Engine.FAST]:.1f}x")
    disagree = [k for k in keys if records[Engine.FAST][k].verdict is not records[Engine.DEFECTS4J][k].verdict]
    agree = len(keys) - len(disagree)
    print(f"agreement: {agree} of {len(keys)} ({100 * agree / len(keys):.1f} %)")
    for key in disagree:
        fast, d4j = records[Engine.FAST][key], records[Engine.DEFECTS4J][key]
        print(f"  DISAGREE {key[0]} {key[1]}: fast {fast.verdict.value} ({describe(fast)[:200]}); "
              f"defects4j {d4j.verdict.value} ({describe(d4j)[:200]})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument("--store", type=Path, default=None,
                        help="Where results are kept and resumed from (default $NL2FIX_CACHE_DIR/bench-real).")
    parser.add_argument("--workers", type=int, default=2, help="Parallel validations (default 2).")
    parser.add_argument("--no-baselines", action="store_true", help="Skip part 1.")
    parser.add_argument("--sample", type=int, default=0, help="Bugs for part 2 (default 0: skip it).")
    parser.add_argument("--per-bug", type=int, default=8, help="Mutation-baseline samples per bug (default 8).")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    store = args.store or cache.cache_dir() / "bench-real"
    start = time.monotonic()
    if not args.no_baselines:
        print_findings(baselines(bugs, store / "baselines", args.workers))
    status = 0
    if args.sample:
        status = candidates(spread(bugs, args.sample), args.dataset, store / f"candidates-n{args.per_bug}",
                            args.per_bug, args.workers)
    print(f"\n{time.monotonic() - start:.0f} s in all; results kept in {store}")
    return status


if __name__ == "__main__":
    sys.exit(main())
