#!/usr/bin/env python3
"""The behaviour probe and the cluster ranker on the example benchmark: the bugs of the hold-out set
(``tests/fixtures/behaviour``), each with the mutation baseline's first N samples followed by the
hold-out candidates (variants of the developer's fix, candidates that overfit the tests) as samples of
their own; validated for real (fast engine, bubblewrap; every plausible candidate probed), ranked by
every method, and reported: pass@k beside likely-correct pass@k and AST match@k, the ranking table
(r.pass@k beside r.likely@k for the paper's embedding ranker and the cluster ranker) and the plausible
candidates that diverge, with the CPU-seconds of validation and of probing per plausible candidate.

    python3 scripts/behaviour_example.py [-n 20] [WORK_DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for tests.helpers

import bench_results
from cli_in_process import nl2fix

from nl2fix.core.domain import Verdict
from nl2fix.java_source.text import candidate_hash
from nl2fix.store.records import SampleRecord
from nl2fix.store.run_store import RunStore
from tests.helpers.paths import FIXTURES

HOLDOUT = FIXTURES / "behaviour"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20, help="mutation samples per bug (default 20)")
    parser.add_argument("work", nargs="?", type=Path, default=None)
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    run = (args.work or Path(tempfile.mkdtemp(prefix="nl2fix-behaviour-"))) / "run"
    bugs = sorted(p.name for p in HOLDOUT.iterdir() if p.is_dir())
    selection = [a for bug in bugs for a in ("--bug", bug)]
    nl2fix("sample", "--dataset", "example", *selection, "--backend", "mutation", "-n", args.n, "--run", run, "--quiet")
    with RunStore(run) as store:
        for bug in bugs:
            for i, path in enumerate(sorted((HOLDOUT / bug).glob("*.java")), start=args.n):
                code = path.read_text(encoding="utf-8")
                store.add_sample(
                    SampleRecord(bug_id=bug, index=i, response=code, candidate_hash=candidate_hash(code)), code
                )
    print(nl2fix("validate", "--run", run, "--quiet"))
    nl2fix("rank", "--run", run, "--method", "all")
    report = nl2fix("report", "--run", run, "--no-codebleu")
    for title in ("Beyond plausible", "Ranking (Table 6)", "Plausible but not the developer's behaviour"):
        start = report.find(title)
        if start >= 0:
            print(report[start : report.find("\n\n", start)] + "\n")
    with RunStore(run, read_only=True) as store:
        plausible = [
            r
            for r in store.validations(engine="fast")
            if r.verdict is Verdict.PLAUSIBLE and r.behaviour is not None and r.hash not in ("fixed", "buggy")
        ]
    if plausible:
        validation = statistics.median(r.cpu_seconds for r in plausible)
        probe = statistics.median(r.behaviour.cpu_seconds for r in plausible if r.behaviour)
        print(
            f"{len(plausible)} plausible candidates probed; CPU-s per candidate (median): "
            f"validation {validation:.2f}, probe {probe:.2f} ({probe / validation:.2f}x)"
        )
    print(f"run: {run}")


if __name__ == "__main__":
    main()
