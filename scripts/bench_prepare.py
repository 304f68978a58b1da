#!/usr/bin/env python3
"""CPU-seconds of preparing one Defects4J bug: checkout, exports, compile, and the fast engine's
two baselines (the fixed and the buggy version).

Each bug is prepared from nothing, in a fresh cache, so nothing is reused; the test runner is
compiled before anything is measured (it is built once per machine, not per bug). CPU is
what the child processes used (``getrusage(RUSAGE_CHILDREN)``: Defects4J, Ant, javac, the test
JVMs), split by command. Needs a Defects4J (see ../shared/tools/defects4j-offline/README.md);
without one it says so and exits 0.

    python3 scripts/bench_prepare.py                          # the first bug of Cli, Codec, JxPath
    python3 scripts/bench_prepare.py --bugs Cli-5,Math-2 --no-baselines
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import d4j_bugs

from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.jvm import runner
from defects4j_adapter.workspaces import defects4j as d4j_workspace


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CommandCpu:
    """Records the CPU-seconds of every command Defects4J's wrapper runs, by what it is."""

    def __init__(self):
        self.by_step: dict[str, float] = defaultdict(float)
        self._run = d4j_cli.run_command
        d4j_cli.run_command = self

    def __call__(self, args, **kwargs):
        result = self._run(args, **kwargs)
        self.by_step[self.step(list(map(str, args)))] += result.cpu_seconds
        return result

    @staticmethod
    def step(argv: list[str]) -> str:
        if Path(argv[0]).name != "defects4j":
            return "ant: exports + compile"
        return " ".join(argv[1:4:2] if argv[1] == "export" else argv[1:2])

    def take(self) -> dict[str, float]:
        taken, self.by_step = dict(self.by_step), defaultdict(float)
        return taken


def measure(bug, d4j, cache_dir: Path, commands: CommandCpu, baselines: bool) -> dict[str, float]:
    before = children_cpu()
    d4j_workspace.ensure_checkout(d4j, bug.id, cache_dir)
    row = {"prepare": children_cpu() - before, **commands.take()}
    if baselines:
        from defects4j_adapter.contract import EngineSettings
        from nl2fix.validation.options import ValidationOptions
        from nl2fix.validation.stage import check_baselines

        before = children_cpu()
        check = check_baselines(
            [bug],
            ValidationOptions(settings=EngineSettings(workers=1)),
            store_dir=cache_dir / "checks" / bug.id,
            progress=False,
        )[0]
        row["baselines"] = children_cpu() - before
        if check.problems:
            print(f"  {bug.id}: {'; '.join(check.problems)}")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, projects=("Cli", "Codec", "JxPath"), limit=1)
    parser.add_argument("--no-baselines", action="store_true", help="Measure the preparation only.")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0

    cache_dir = Path(tempfile.mkdtemp(prefix="nl2fix-bench-prepare-"))
    cache_dir.chmod(0o755)  # confined test JVMs run as other users
    os.environ["NL2FIX_CACHE_DIR"] = str(cache_dir)
    commands = CommandCpu()
    rows = {}
    try:
        runner.runner_classes(cache_dir)
        for bug in bugs:
            rows[bug.id] = measure(bug, d4j, cache_dir, commands, not args.no_baselines)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)

    steps = sorted({k for row in rows.values() for k in row} - {"prepare", "baselines"})
    columns = ["prepare", *steps] + ([] if args.no_baselines else ["baselines", "total"])
    for row in rows.values():
        row["total"] = row["prepare"] + row.get("baselines", 0.0)
    width = max(len(c) for c in columns)
    print("CPU-seconds per bug (child processes), by step:")
    print(f"{'':{width}} " + " ".join(f"{b:>9}" for b in rows) + f" {'median':>9}")
    for column in columns:
        values = [row.get(column, 0.0) for row in rows.values()]
        print(f"{column:{width}} " + " ".join(f"{v:9.2f}" for v in values) + f" {statistics.median(values):9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
