#!/usr/bin/env python3
"""Behaviour probing's cost on the example benchmark, side by side for several versions of nl2fix.

Each version (``--tree``: a folder holding an nl2fix checkout; this checkout when none is given) validates
and probes, in a process of its own, the developer's fix and every candidate of the behaviour hold-out set
(``tests/fixtures/behaviour/BUG/NAME.EXPECTED.java`` of the checkout running this script, so that every
version meets the same candidates) with the fast engine. Printed: per plausible candidate its label and its
probe's CPU-seconds under each version, then the median, 99th percentile and greatest probe CPU-seconds of
each. The per-bug reference probe (the fix against itself) is paid once per bug and not counted.

    python3 scripts/bench_probe_holdout.py --tree /tmp/nl2fix-before --tree . --results docs/benchmarks/results
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_results

HERE = Path(__file__).resolve().parents[1]
HOLDOUT = HERE / "tests" / "fixtures" / "behaviour"


def measure(holdout: Path) -> dict[str, list]:
    """In the version on ``sys.path``: ``{candidate: [verdict, label, probe CPU-s]}``."""
    from defects4j_adapter import cache
    from defects4j_adapter.contract import EngineOptions, EngineSettings
    from defects4j_adapter.engines.fast import FastEngine
    from defects4j_adapter.sandbox.providers import make_sandbox
    from nl2fix.dataset.load import EXAMPLE_BENCHMARK, open_dataset
    from nl2fix.validation.bug_work import BugRun

    engine = FastEngine(
        EngineOptions(
            sandbox=make_sandbox(True),
            cache_dir=cache.cache_dir(),
            settings=EngineSettings(workers=1, test_timeout=5.0, candidate_timeout=60.0, memory_mb=512),
            projects_dir=EXAMPLE_BENCHMARK / "projects",
        )
    )
    dataset = open_dataset("example")
    out: dict[str, list] = {}
    try:
        with tempfile.TemporaryDirectory() as logs:
            for folder in sorted(p for p in holdout.iterdir() if p.is_dir()):
                bug = dataset.bugs[folder.name]
                run = BugRun(engine, bug, log_root=Path(logs))
                run.baselines(lambda h: None, lambda record, candidate: None)
                cases = {"fix": bug.fixed_method} | {
                    p.stem: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.java"))
                }
                for name, code in cases.items():
                    record = run.candidate(name, code)
                    b = record.behaviour
                    out[f"{bug.id}/{name}"] = [
                        record.verdict.value,
                        b.label.value if b else "-",
                        b.cpu_seconds if b else 0.0,
                    ]
    finally:
        engine.close()
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", type=Path, help="An nl2fix checkout (repeatable).")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child: the hold-out folder
    bench_results.add_option(parser)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    bench_results.start(args.results)
    trees = [t.resolve() for t in (args.tree or [HERE])]
    results = []
    for tree in trees:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--measure", str(HOLDOUT)],
            cwd=tree,
            env=env,
            stdout=subprocess.PIPE,  # the child's errors go to this process's stderr
            text=True,
            check=True,
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    names = sorted(set().union(*results))
    print("candidate".ljust(48) + "".join(f"{t.name[:28]:>30}" for t in trees))
    for name in names:
        cells = []
        for r in results:
            verdict, label, cpu = r.get(name, ["-", "-", 0.0])
            cells.append(f"{label if verdict == 'plausible' else verdict:>20} {cpu:6.2f}s")
        print(name.ljust(48) + "".join(f"{c:>30}" for c in cells))
    for tree, r in zip(trees, results):
        cpu = [c for verdict, _, c in r.values() if verdict == "plausible"]
        if cpu:
            print(
                f"{tree}: {len(cpu)} plausible, probe CPU-s median {statistics.median(cpu):.2f}, "
                f"p99 {_percentile(cpu, 0.99):.2f}, max {max(cpu):.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
