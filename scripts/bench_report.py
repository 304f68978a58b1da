"""How long a report takes at the paper's scale: 283 bugs x 100 samples in a real run store.

Prints the seconds to gather the numbers (without CodeBLEU), to render each format, and CodeBLEU's
cost per candidate/reference pair (the first report of a run pays it once; scores are cached).

    python3 scripts/bench_report.py [--bugs 283] [--samples 100] [--unique 40]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import bench_results

from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.report import codebleu as codebleu_scores
from nl2fix.report.data import collect
from nl2fix.report.render import render
from nl2fix.store.records import RankingEntry, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore

BUGGY = (
    "public int clamp(int v, int lo, int hi) {\n    if (v < lo) return lo;\n    if (v > hi) return lo;\n"
    "    return v;\n}"
)
VERDICTS = [Verdict.PLAUSIBLE] + [Verdict.WRONG] * 6 + [Verdict.UNCOMPILABLE] * 3


def build(run_dir: Path, bugs: int, samples: int, unique: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with RunStore(run_dir, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="bench",
                backend="mutation",
                model="bench",
                strategy=Strategy.ZERO_SHOT,
                temperature=0.8,
                n=samples,
            )
        )
        store.add_bugs(
            [
                Bug(
                    project=f"P{i % 12}",
                    number=i,
                    path="A.java",
                    start_line=1,
                    end_line=5,
                    buggy_method=BUGGY,
                    fixed_method=BUGGY.replace("return lo;\n    return", "return hi;\n    return"),
                    title="clamp",
                    trigger_tests=("a.ATest::t",),
                )
                for i in range(bugs)
            ]
        )
        for bug in store.bugs():
            codes = [BUGGY.replace("return v;", f"return v + {j};") for j in range(unique)]
            for i in range(samples):
                j = min(int(rng.expovariate(0.15)), unique - 1)
                store.add_sample(SampleRecord(bug_id=bug.id, index=i, response="r", candidate_hash=f"h{j}"), codes[j])
            store.save_validation(
                ValidationRecord(bug_id=bug.id, hash="fixed", engine="fast", verdict=Verdict.PLAUSIBLE)
            )
            hashes = sorted({c.hash for c in store.candidates(bug.id)})
            for h in hashes:
                store.save_validation(
                    ValidationRecord(
                        bug_id=bug.id, hash=h, engine="fast", verdict=rng.choice(VERDICTS), failing_tests=["a.ATest::t"]
                    )
                )
            store.save_ranking(
                bug.id,
                "paper:tfidf:median",
                [
                    RankingEntry(bug_id=bug.id, ranker="paper:tfidf:median", rank=r, hash=h, score=0.9)
                    for r, h in enumerate(hashes, start=1)
                ],
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", type=int, default=283)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--unique", type=int, default=40)
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        build(Path(tmp), args.bugs, args.samples, args.unique)
        print(f"store: {args.bugs} bugs x {args.samples} samples built in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        data = collect(tmp, codebleu=False)
        print(f"gather (no CodeBLEU): {time.perf_counter() - start:.2f} s; pass@1 = {data.pass_at_k[1]:.3f}")
        for fmt in ("text", "md", "html", "json"):
            start = time.perf_counter()
            size = len(render(data, fmt))
            print(f"render {fmt}: {time.perf_counter() - start:.2f} s ({size / 1024:.0f} KiB)")
    pairs = 50
    start = time.perf_counter()
    for j in range(pairs):
        codebleu_scores.codebleu(BUGGY.replace("return v;", f"return v + {j};"), BUGGY)
    per_pair = (time.perf_counter() - start) / pairs
    total = per_pair * 2 * args.bugs * args.unique
    print(f"CodeBLEU: {1000 * per_pair:.1f} ms per pair; a first report of this run would spend ~{total:.0f} s on it")


if __name__ == "__main__":
    main()
