#!/usr/bin/env python3
"""Behaviour probing on real Defects4J bugs: how many plausible candidates diverge from the
developer's fix, per project, and what probing a plausible candidate costs beside validating it.

For each bug (``--projects``/``--bugs``/``--limit``, as the other Defects4J scripts): the fast
engine prepares it and judges the fixed and buggy versions (the baselines validation needs), then
the first ``--per-bug`` mutants of the buggy method (the ``mutation`` baseline's candidates, in its
order), with ``--fix-mutants N`` the first N mutants of the developer's fix (the plausible ones are
what thin tests let through: equivalent mutants, or changes the tests do not see) and, with
``--with-fix``, the developer's fix itself (which must come out ``same-behaviour``).
Every plausible candidate is probed as ``nl2fix validate`` probes it. Printed: per project, the
plausible candidates and their labels; per plausible candidate, its validation's CPU-seconds and its
probe's, and their ratio (median and mean); and the per-bug reference probe (the fix against itself,
paid once per bug). Each diverging candidate is listed with its first differing input. Needs a
Defects4J; without one it says so and exits 0.

    python3 scripts/bench_behaviour.py --limit 1 --per-bug 20
    python3 scripts/bench_behaviour.py --bugs Cli-2,Csv-1 --per-bug 40 --with-fix --fix-mutants 30
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.java_source.text import candidate_hash
from nl2fix.prompting.prompt import target_method
from nl2fix.sampling.mutation import mutants
from nl2fix.validation.bug_work import BugRun


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, limit=1)
    parser.add_argument("--per-bug", type=int, default=20, help="Mutants per bug (default 20).")
    parser.add_argument("--with-fix", action="store_true", help="Probe the developer's fix as a candidate too.")
    parser.add_argument(
        "--fix-mutants",
        type=int,
        default=0,
        help="Also the first N mutants of the developer's fix (those the tests cannot tell from it "
        "are plausible: equivalent mutants, or ones the tests are too thin for).",
    )
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox(True), cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1))
    )
    labels: dict[str, Counter] = defaultdict(Counter)
    costs: list[tuple[str, float, float]] = []
    references: list[tuple[str, float, int]] = []
    divergences: list[str] = []
    start = time.monotonic()
    try:
        for bug in bugs:
            run = BugRun(engine, bug, log_root=Path(tempfile.mkdtemp(prefix="bench-behaviour-")))
            check = run.baselines(lambda h: None, lambda record, candidate: None)
            if not check.ground_truth_ok:
                print(f"{bug.id}: skipped, its ground truth does not validate here ({'; '.join(check.problems)[:200]})")
                continue
            kinds = {code: "mutant" for code in itertools.islice(mutants(target_method(bug), 0, bug.id), args.per_bug)}
            kinds.update(
                {code: "fix-mut" for code in itertools.islice(mutants(bug.fixed_method, 0, bug.id), args.fix_mutants)}
            )
            if args.with_fix:
                kinds[bug.fixed_method] = "fix"
            codes = list(kinds)
            seen = set()
            for code in codes:
                h = candidate_hash(code)
                if h in seen:
                    continue
                seen.add(h)
                record = run.candidate(h, code)
                if record.verdict is not Verdict.PLAUSIBLE or record.behaviour is None:
                    continue
                b = record.behaviour
                kind = kinds[code]
                labels[bug.project][(kind, b.label)] += 1
                costs.append((bug.id, record.cpu_seconds, b.cpu_seconds))
                if b.label is Behaviour.DIVERGES:
                    divergences.append(
                        f"  {bug.id} {kind} {h[:12]}: on {b.first_input[:150]}\n"
                        f"      fix: {b.reference_result[:150]}\n"
                        f"      candidate: {b.candidate_result[:150]}"
                    )
                elif b.label is Behaviour.NOT_PROBED:
                    divergences.append(f"  {bug.id} {kind} {h[:12]}: not probed: {b.note[:200]}")
            base = run.prober.reference_probe if run.prober is not None else None
            if base is not None:
                references.append((bug.id, base.cpu_seconds, len(base.observations)))
            print(f"{bug.id}: done ({time.monotonic() - start:.0f} s)", file=sys.stderr)
    finally:
        engine.close()
    print(f"\nplausible candidates by behaviour ({len(bugs)} bugs; mutants: first {args.per_bug} per bug)")
    print(f"{'project':<14}{'kind':<8}{'same':>6}{'diverges':>10}{'not probed':>12}")
    for project, counts in sorted(labels.items()):
        for kind in ("mutant", "fix-mut", "fix"):
            row = [counts[(kind, label)] for label in (Behaviour.SAME, Behaviour.DIVERGES, Behaviour.NOT_PROBED)]
            if any(row):
                print(f"{project:<14}{kind:<8}{row[0]:>6}{row[1]:>10}{row[2]:>12}")
    if divergences:
        print("\n".join(["diverging or unprobed plausible candidates:", *divergences]))
    if costs:
        validation = [c[1] for c in costs]
        probe = [c[2] for c in costs]
        own = [p / v for _, v, p in costs if v > 0]
        print(
            f"\nCPU-s per plausible candidate ({len(costs)}): validation median {statistics.median(validation):.2f} "
            f"mean {statistics.mean(validation):.2f}; probe median {statistics.median(probe):.2f} "
            f"mean {statistics.mean(probe):.2f}; probe / validation: medians "
            f"{statistics.median(probe) / statistics.median(validation):.2f}x, means "
            f"{statistics.mean(probe) / statistics.mean(validation):.2f}x, each candidate's own median "
            f"{statistics.median(own):.2f}x"
        )
    for bug_id, cpu, n in references:
        print(f"reference probe of {bug_id} (the fix against itself, once per bug): {cpu:.2f} CPU-s, {n} inputs")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Nl2FixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
