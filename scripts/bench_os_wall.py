#!/usr/bin/env python3
"""What the operating system's wall costs a JVM start: the runner's ``serve`` JVM, started as the
fast engine starts it (its command line, the sandbox), from launch to the end of its input, with
nl2fix's native agent (``defects4j_adapter/jvm/os_wall.py``) and without it, runs interleaved.
Prints the mean and median CPU-seconds and wall-clock seconds of each, and what the runner found
when it tried to open its own memory.

    python3 scripts/bench_os_wall.py                      # bubblewrap, 10 starts each
    python3 scripts/bench_os_wall.py --sandbox docker --runs 5
"""

from __future__ import annotations

import argparse
import statistics

import bench_results

from defects4j_adapter.jvm import os_wall, runner
from defects4j_adapter.sandbox.base import Limits, Mounts, SandboxKind
from defects4j_adapter.sandbox.providers import make_sandbox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sandbox", choices=[k.value for k in SandboxKind], default="bwrap")
    parser.add_argument("--runs", type=int, default=10, help="Starts of each kind (default 10).")
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    box = make_sandbox(args.sandbox)
    runner_dir = runner.runner_classes()
    with_agent = runner.jvm_command(
        runner_dir,
        memory_mb=256,
        tmp_dir="/tmp",
        mode=["serve"],
        java=box.test_java(),
        confined=False,
        argfile=False,  # options are taken out of it below
    )
    without = [a for a in with_agent if not a.startswith("-agentpath:")]
    mounts = Mounts(read_only=(runner_dir,))
    rows: dict[str, list[tuple[float, float]]] = {"with the agent": [], "without": []}
    found: dict[str, str] = {}
    for _ in range(args.runs):
        for name, argv in (("with the agent", with_agent), ("without", without)):
            result = box.run(argv, mounts, Limits(wall_seconds=120), input="")
            if not result.ok or "NL2FIX\tREADY" not in result.stdout:
                raise SystemExit(f"the JVM did not start ({name}): {result.stderr[-1000:]}")
            rows[name].append((result.cpu_seconds, result.wall_seconds))
            check = os_wall.memory_check(result.stdout)
            found[name] = f"{check.state.value} {check.detail}".strip()
    print(f"{args.sandbox}: a serve-mode runner JVM, start to exit, {args.runs} runs each (interleaved)")
    for name, values in rows.items():
        cpu, wall = [v[0] for v in values], [v[1] for v in values]
        print(
            f"  {name:15} CPU-s mean {statistics.mean(cpu):.3f} median {statistics.median(cpu):.3f}   "
            f"wall-s mean {statistics.mean(wall):.3f} median {statistics.median(wall):.3f}   memory {found[name]}"
        )


if __name__ == "__main__":
    main()
