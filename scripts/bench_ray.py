"""``bench_validate.py --executor ray``: candidates per second on local Ray clusters of 1 and 2 nodes.

Each cluster (nodes of one CPU, each with an empty nl2fix cache of its own) validates the same
candidates twice with ``nl2fix validate --executor ray --workers 1``: cold (every bug's workspace
prepared on the node its task lands on -- the per-bug fixed cost) and warm (the workspaces are
there). From the 1-node runs: the per-bug preparation and the per-candidate seconds of one CPU,
and what they say about a cluster validating 28,300 candidates of 283 bugs in 15 minutes.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

from nl2fix.execution import run_command
from nl2fix.executors.local_cluster import LocalRayCluster

STUDY_BUGS, STUDY_CANDIDATES, STUDY_SECONDS = 283, 28_300, 15 * 60


def validate_on(cluster: LocalRayCluster, run_dir: Path, no_sandbox: bool) -> float:
    argv = [sys.executable, "-c", "from nl2fix.cli import main; main()", "validate", "--run", str(run_dir),
            "--executor", "ray", "--ray-address", cluster.address, "--workers", "1", "--quiet"]
    result = run_command(argv + (["--no-sandbox"] if no_sandbox else []), timeout=3600,
                         env={**os.environ, **cluster.auth_env})
    if not result.ok:
        raise SystemExit(f"validation on {cluster.address} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    return result.wall_seconds


def main(args, bugs, make_run) -> int:
    base = Path(tempfile.mkdtemp(prefix="nl2fix-bench-ray-"))
    walls: dict[tuple[int, str], float] = {}
    count = 0
    try:
        for nodes in (1, 2):
            with LocalRayCluster(nodes=nodes, cpus=1,
                                 env=lambda i, n=nodes: {"NL2FIX_CACHE_DIR": str(base / f"cache-{n}-{i}")}) as cluster:
                for phase in ("cold", "warm"):
                    count = make_run(base / f"run-{nodes}-{phase}", bugs, args.per_bug)
                    walls[nodes, phase] = validate_on(cluster, base / f"run-{nodes}-{phase}", args.no_sandbox)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"bugs: {', '.join(b.id for b in bugs)}; {count} unique candidates; nodes of 1 CPU, --workers 1")
    print(f"{'nodes':>5} {'cold s':>8} {'cold cand/s':>11} {'warm s':>8} {'warm cand/s':>11} {'warm speed-up':>13}")
    for nodes in (1, 2):
        cold, warm = walls[nodes, "cold"], walls[nodes, "warm"]
        print(f"{nodes:5d} {cold:8.1f} {count / cold:11.3f} {warm:8.1f} {count / warm:11.3f}"
              f" {walls[1, 'warm'] / warm:12.2f}x")
    prepare = max(0.0, walls[1, "cold"] - walls[1, "warm"]) / len(bugs)
    per_candidate = walls[1, "warm"] / count
    cpu_seconds = STUDY_BUGS * prepare + STUDY_CANDIDATES * per_candidate
    print(f"one CPU: {prepare:.1f} s to prepare a bug (cold - warm), {per_candidate:.2f} s per candidate (warm, "
          f"baselines and driver included)")
    print(f"{STUDY_CANDIDATES} candidates of {STUDY_BUGS} bugs: {cpu_seconds / 3600:.1f} CPU-hours; in "
          f"{STUDY_SECONDS // 60} min: {math.ceil(cpu_seconds / STUDY_SECONDS)} CPUs busy throughout "
          f"(the longest bug, {STUDY_CANDIDATES // STUDY_BUGS} candidates, takes "
          f"{prepare + STUDY_CANDIDATES / STUDY_BUGS * per_candidate:.0f} s on one CPU)")
    return 0
