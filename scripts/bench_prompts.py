#!/usr/bin/env python3
"""Speed of the sampling stage's pure parts on the real dataset: one-shot example choice for every
bug (283 x 283 edit distances, pruned), every prompt of every strategy, and 100 mutants per bug.

    python3 scripts/bench_prompts.py [path/to/nl2fix_dataset.json] [--results DIR]
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import bench_results

from nl2fix.core.domain import Strategy
from nl2fix.dataset.load import load_dataset
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.prompting.prompt import build_prompt, target_method
from nl2fix.sampling.mutation import mutants


def timed(label: str, fn) -> object:
    start = time.perf_counter()
    result = fn()
    print(f"{label}: {time.perf_counter() - start:.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "dataset",
        nargs="?",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared" / "data" / "nl2fix_dataset.json",
    )
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    ds = load_dataset(args.dataset)
    bugs = list(ds.bugs.values())
    print(f"{len(bugs)} bugs from {ds.source}")
    index = timed("one-shot index (tokenise every method)", lambda: ExampleIndex(bugs))
    found = timed(f"nearest example for all {len(bugs)} bugs", lambda: [index.nearest(b) for b in bugs])
    print(f"  median distance to the nearest example: {sorted(d for _, d in found)[len(found) // 2]} tokens")
    for strategy in Strategy:
        prompts = timed(
            f"{strategy.value} prompts (4096-token window)",
            lambda strategy=strategy: [build_prompt(b, strategy, context_window=4096, examples=index) for b in bugs],
        )
        print(
            f"  cut to fit: {sum(p.truncated for p in prompts)}; "
            f"largest: {max(p.prompt_tokens for p in prompts)} tokens"
        )
    made = timed(
        "100 mutants per bug",
        lambda: [len(list(itertools.islice(mutants(target_method(b), 0, b.id), 100))) for b in bugs],
    )
    print(f"  bugs with 100 mutants: {sum(m == 100 for m in made)}; with none: {sum(m == 0 for m in made)}")


if __name__ == "__main__":
    main()
