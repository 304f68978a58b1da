#!/usr/bin/env python3
"""CPU-seconds per unique candidate, per validation engine, on the example benchmark.

For each chosen bug, makes mutation-like candidates from its buggy and fixed methods (one small
edit each: an operator, a literal, a dropped statement), puts them in a run store as samples, and
validates the same run with each engine available (``fast``, ``rebuild``, and ``defects4j`` when
it is installed and the bugs are Defects4J bugs), each as its own ``nl2fix validate`` process.
Prints, per engine, the CPU-seconds of the whole process (its JVMs and compilers included) per
unique candidate, and of the candidates' own validations; their ratio to the fast engine; and
every candidate on which the engines' verdicts disagree.

    python3 scripts/bench_validate.py                      # Textkit-1 and Rangekit-1, 16 each
    python3 scripts/bench_validate.py --bug Textkit-2 --per-bug 30 --workers 2
    python3 scripts/bench_validate.py --executor ray --bug Textkit-1 --bug Textkit-2 --bug Rangekit-1 --bug Rangekit-2
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from defects4j_adapter.engine import EngineOptions
from defects4j_adapter.sandbox import make_sandbox
from defects4j_adapter.workspaces import prepare_workspace
from defects4j_adapter import cache
from nl2fix.dataset import open_dataset
from nl2fix.execution import run_command, which
from nl2fix.java_text import candidate_hash
from nl2fix.models import Strategy
from nl2fix.records import RunConfig, SampleRecord
from nl2fix.store import RunStore

_EDITS = [
    (r"<=", "<"), (r"(?<![<=])<(?![<=])", "<="), (r">=", ">"), (r"(?<![>=-])>(?![>=])", ">="),
    (r"==", "!="), (r"!=", "=="), (r"&&", "||"), (r"\|\|", "&&"), (r"(?<![+])\+(?![+=])", "-"),
    (r"\b1\b", "0"), (r"\b0\b", "1"), (r"\btrue\b", "false"), (r"\bfalse\b", "true"),
    (r"\breturn [^;]+;", "return null;"),
]


def mutants(method: str, limit: int) -> list[str]:
    """Candidates one edit away from ``method``, each edit at each place, in a fixed order."""
    out: list[str] = []
    lines = method.split("\n")
    for pattern, repl in _EDITS:
        for m in re.finditer(pattern, method):
            out.append(method[: m.start()] + re.sub(pattern, repl, m.group(0), count=1) + method[m.end():])
    for i in range(1, len(lines) - 1):  # drop one statement line
        if lines[i].strip().endswith(";"):
            out.append("\n".join(lines[:i] + lines[i + 1:]))
    out.append(method.replace(";", "", 1))  # broken Java
    seen, unique = set(), []
    for code in out:
        h = candidate_hash(code)
        if h not in seen and h != candidate_hash(method):
            seen.add(h)
            unique.append(code)
    return unique[:limit]


def candidates_for(bug, per_bug: int) -> list[str]:
    half = per_bug // 2
    codes = [bug.fixed_method, bug.buggy_method, *mutants(bug.fixed_method, half), *mutants(bug.buggy_method, half)]
    seen, unique = set(), []
    for code in codes:
        if candidate_hash(code) not in seen:
            seen.add(candidate_hash(code))
            unique.append(code)
    return unique[:per_bug]


def make_run(run_dir: Path, bugs, per_bug: int) -> int:
    with RunStore(run_dir, create=True) as store:
        store.set_config(RunConfig(dataset="example", backend="mutation", model="bench", strategy=Strategy.ZERO_SHOT,
                                   temperature=0.0, n=per_bug))
        store.add_bugs(bugs)
        for bug in bugs:
            for i, code in enumerate(candidates_for(bug, per_bug)):
                store.add_sample(SampleRecord(bug_id=bug.id, index=i, response=code, candidate_hash=candidate_hash(code)), code)
        return sum(len(store.candidates(b.id)) for b in bugs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", action="append", help="Example bug id (repeatable; default Textkit-1, Rangekit-1).")
    parser.add_argument("--per-bug", type=int, default=16, help="Unique candidates per bug (default 16).")
    parser.add_argument("--workers", type=int, default=1, help="Workers per validation (default 1).")
    parser.add_argument("--engine", action="append", help="Only these engines (fast, rebuild, defects4j).")
    parser.add_argument("--no-sandbox", action="store_true", help="Validate without bubblewrap.")
    parser.add_argument("--executor", choices=["local", "ray"], default="local",
                        help="ray: candidates/s of the fast engine on local Ray clusters of 1 and 2 nodes (bench_ray.py).")
    args = parser.parse_args()

    dataset = open_dataset("example")
    bugs = [dataset.resolve(b) for b in (args.bug or ["Textkit-1", "Rangekit-1"])]
    if args.executor == "ray":
        import bench_ray

        return bench_ray.main(args, bugs, make_run)
    engines = args.engine or ["fast", "rebuild"] + (["defects4j"] if which("defects4j") else [])
    if "defects4j" in engines and all(b.benchmark == "example" for b in bugs):
        print("defects4j: skipped (the example benchmark's bugs are not Defects4J bugs)")
        engines.remove("defects4j")
    # the workspaces are built once per machine, before anything is measured
    options = EngineOptions(sandbox=make_sandbox(not args.no_sandbox), cache_dir=cache.cache_dir())
    for bug in bugs:
        prepare_workspace(bug, options)

    base = Path(tempfile.mkdtemp(prefix="nl2fix-bench-"))
    rows, verdicts = [], {}
    try:
        for engine in engines:
            run_dir = base / engine
            count = make_run(run_dir, bugs, args.per_bug)
            argv = [sys.executable, "-c", "from nl2fix.cli import main; main()", "validate", "--run", str(run_dir),
                    "--engine", engine, "--workers", str(args.workers), "--quiet"]
            result = run_command(argv + (["--no-sandbox"] if args.no_sandbox else []), timeout=3600)
            if not result.ok:
                print(f"{engine}: validation failed\n{result.stderr[-3000:]}")
                continue
            with RunStore(run_dir) as store:
                records = [r for r in store.validations(engine=engine) if r.hash not in ("fixed", "buggy")]
            verdicts[engine] = {(r.bug_id, r.hash): r.verdict.value for r in records}
            own = sum(r.cpu_seconds for r in records)
            rows.append((engine, count, result.cpu_seconds, result.cpu_seconds / count, own / count, result.wall_seconds))
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"bugs: {', '.join(b.id for b in bugs)}; workers: {args.workers}")
    print(f"{'engine':10} {'unique':>6} {'process CPU-s':>13} {'CPU-s/cand':>10} {'own CPU-s/cand':>14} {'wall s':>7}"
          f" {'ratio':>6} {'own ratio':>9}")
    fast = next((r for r in rows if r[0] == "fast"), None)
    for engine, count, total, per, own, wall in rows:
        ratio, own_ratio = (per / fast[3], own / fast[4]) if fast else (float("nan"), float("nan"))
        print(f"{engine:10} {count:6d} {total:13.2f} {per:10.3f} {own:14.3f} {wall:7.1f} {ratio:5.1f}x {own_ratio:8.1f}x")
    print("(process: the whole `nl2fix validate` run -- Python, baselines, JVM start-ups -- per unique candidate; "
          "own: the candidates' validations alone; ratios: relative to fast)")
    names = list(verdicts)
    disagreements = 0
    for key in sorted(set().union(*(v.keys() for v in verdicts.values()))) if verdicts else []:
        seen = {e: verdicts[e].get(key) for e in names}
        if len(set(seen.values())) > 1:
            disagreements += 1
            print(f"DISAGREE {key[0]} {key[1]}: " + ", ".join(f"{e}={v}" for e, v in seen.items()))
    counts = {}
    for v in (verdicts.get("fast") or {}).values():
        counts[v] = counts.get(v, 0) + 1
    print(f"verdicts (fast): {counts}; disagreements between engines: {disagreements}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
