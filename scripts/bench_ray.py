"""``bench_validate.py --executor ray``: candidates per second on local Ray clusters of 1 and 2 nodes.

Each cluster (nodes of one CPU, each with an empty nl2fix cache of its own) validates the same
candidates twice with ``nl2fix validate --executor ray --workers 1``: cold (every bug's workspace
prepared on the node its task lands on -- the per-bug fixed cost) and warm (the workspaces are
there; the fastest of three). The per-bug preparation's CPU is measured apart (the cold-minus-warm
difference drowns in a shared machine's load); with the 1-node run's seconds per candidate, wall-clock and the
validations' own CPU, it says what a cluster needs for 28,300 candidates of 283 bugs in 15 minutes.
"""

from __future__ import annotations

import math
import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.processes import run_command
from nl2fix.store.run_store import RunStore
from nl2fix.validation.executors.local_cluster import LocalRayCluster

STUDY_BUGS, STUDY_CANDIDATES, STUDY_SECONDS = 283, 28_300, 15 * 60
WARM_RUNS = 3
"""Warm runs per cluster, the fastest counted: on a shared machine the others measure its load."""


def validate_on(cluster: LocalRayCluster, run_dir: Path, no_sandbox: bool) -> tuple[float, float]:
    """Wall seconds of ``nl2fix validate --executor ray``, and the CPU seconds of its candidates'
    validations (their compilers and JVMs, as each node measured them)."""
    argv = [
        sys.executable,
        "-c",
        "from nl2fix.cli.main import main; main()",
        "validate",
        "--run",
        str(run_dir),
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        "--workers",
        "1",
        "--quiet",
    ]
    result = run_command(
        argv + (["--no-sandbox"] if no_sandbox else []), timeout=3600, env={**os.environ, **cluster.auth_env}
    )
    if not result.ok:
        raise SystemExit(f"validation on {cluster.address} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    with RunStore(run_dir, read_only=True) as store:
        own = sum(r.cpu_seconds for r in store.validations(engine="fast") if r.hash not in ("fixed", "buggy"))
    return result.wall_seconds, own


def prepare_cpu(bugs, cache_dir: Path, no_sandbox: bool) -> float:
    """CPU seconds (of javac and patch) to prepare each bug's workspace from nothing, on average:
    the per-bug fixed cost, measured apart from the load of the machine."""
    options = EngineOptions(sandbox=make_sandbox(not no_sandbox), cache_dir=cache_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for bug in bugs:
        prepare_workspace(bug, options)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / len(bugs)


def main(args, bugs, make_run) -> int:
    base = Path(tempfile.mkdtemp(prefix="nl2fix-bench-ray-"))
    walls: dict[tuple[int, str], float] = {}
    own: dict[tuple[int, str], float] = {}
    count = 0
    try:
        prepare = prepare_cpu(bugs, base / "prepare", args.no_sandbox)
        for nodes in (1, 2):
            with LocalRayCluster(
                nodes=nodes, cpus=1, env=lambda i, n=nodes: {"NL2FIX_CACHE_DIR": str(base / f"cache-{n}-{i}")}
            ) as cluster:
                for phase, runs in (("cold", 1), ("warm", WARM_RUNS)):
                    for i in range(runs):
                        count = make_run(base / f"run-{nodes}-{phase}-{i}", bugs, args.per_bug)
                        measured = validate_on(cluster, base / f"run-{nodes}-{phase}-{i}", args.no_sandbox)
                        if measured[0] < walls.get((nodes, phase), math.inf):
                            walls[nodes, phase], own[nodes, phase] = measured
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(
        f"bugs: {', '.join(b.id for b in bugs)}; {count} unique candidates; nodes of 1 CPU, --workers 1; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'nodes':>5} {'cold s':>8} {'cold cand/s':>11} {'warm s':>8} {'warm cand/s':>11} {'warm speed-up':>13}")
    for nodes in (1, 2):
        cold, warm = walls[nodes, "cold"], walls[nodes, "warm"]
        print(
            f"{nodes:5d} {cold:8.1f} {count / cold:11.3f} {warm:8.1f} {count / warm:11.3f}"
            f" {walls[1, 'warm'] / warm:12.2f}x"
        )
    per_candidate = walls[1, "warm"] / count
    cpu_per_candidate = own[1, "warm"] / count
    print(
        f"one CPU: {prepare:.2f} CPU-s to prepare a bug (measured apart), {per_candidate:.2f} s per candidate (warm, "
        f"baselines and driver included); the candidates' own validations: {cpu_per_candidate:.2f} CPU-s each"
    )
    for what, seconds in (("wall-clock here", per_candidate), ("own CPU-s", cpu_per_candidate)):
        total = STUDY_BUGS * prepare + STUDY_CANDIDATES * seconds
        print(
            f"{STUDY_CANDIDATES} candidates of {STUDY_BUGS} bugs at {seconds:.2f} s each ({what}) plus the bugs' "
            f"preparation: {total / 3600:.1f} CPU-hours; "
            f"in {STUDY_SECONDS // 60} min: {math.ceil(total / STUDY_SECONDS)} "
            f"CPUs (the longest bug, {STUDY_CANDIDATES // STUDY_BUGS} candidates, "
            f"{prepare + STUDY_CANDIDATES / STUDY_BUGS * seconds:.0f} s on one)"
        )
    return 0
