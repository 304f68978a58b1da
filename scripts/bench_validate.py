#!/usr/bin/env python3
"""CPU-seconds per unique candidate, per validation engine, on the example benchmark.

For each chosen bug, makes mutation-like candidates from its buggy and fixed methods (one small
edit each: an operator, a literal, a dropped statement), puts them in a run store as samples, and
validates the same run with each engine available (``fast``, ``rebuild``, and ``defects4j`` when
it is installed and the bugs are Defects4J bugs), each as its own ``nl2fix validate`` process.
Prints, per engine, the CPU-seconds of the whole process (its JVMs and compilers included) per
unique candidate, and of the candidates' own validations; their ratio to the fast engine; and
every candidate on which the engines' verdicts disagree.

``--sandbox docker`` validates the same run under bubblewrap and in containers, side by side.
Processes in a container are not children of ``nl2fix validate``, so for those rows the process
CPU adds what the Docker daemon's cgroup counted over the run (every container of the machine:
run it when no other container is busy) and the CPU time of Docker's own processes.

    python3 scripts/bench_validate.py                      # Textkit-1 and Rangekit-1, 16 each
    python3 scripts/bench_validate.py --bug Textkit-2 --per-bug 30 --workers 2
    python3 scripts/bench_validate.py --sandbox docker --engine fast
    python3 scripts/bench_validate.py --executor ray --bug Textkit-1 --bug Textkit-2 --bug Rangekit-1 --bug Rangekit-2
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import bench_results

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.sandbox import images
from defects4j_adapter.sandbox.base import SandboxKind
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.domain import Strategy
from nl2fix.core.processes import run_command, which
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import candidate_hash
from nl2fix.store.records import RunConfig, SampleRecord
from nl2fix.store.run_store import RunStore

_EDITS = [
    (r"<=", "<"),
    (r"(?<![<=])<(?![<=])", "<="),
    (r">=", ">"),
    (r"(?<![>=-])>(?![>=])", ">="),
    (r"==", "!="),
    (r"!=", "=="),
    (r"&&", "||"),
    (r"\|\|", "&&"),
    (r"(?<![+])\+(?![+=])", "-"),
    (r"\b1\b", "0"),
    (r"\b0\b", "1"),
    (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"),
    (r"\breturn [^;]+;", "return null;"),
]


def mutants(method: str, limit: int) -> list[str]:
    """Candidates one edit away from ``method``, each edit at each place, in a fixed order."""
    out: list[str] = []
    lines = method.split("\n")
    for pattern, repl in _EDITS:
        for m in re.finditer(pattern, method):
            out.append(method[: m.start()] + re.sub(pattern, repl, m.group(0), count=1) + method[m.end() :])
    for i in range(1, len(lines) - 1):  # drop one statement line
        if lines[i].strip().endswith(";"):
            out.append("\n".join(lines[:i] + lines[i + 1 :]))
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


_DAEMONS = ("dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2", "docker-proxy")


def daemons_cpu_seconds() -> float:
    """CPU seconds so far of Docker's own processes (the daemon, containerd and the live shims):
    the containers' cost that their cgroups do not hold."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, fields = text[text.index("(") + 1 : text.rindex(")")], text.rsplit(")", 1)[1].split()
        if name in _DAEMONS or name.startswith("containerd-shim"):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def make_run(run_dir: Path, bugs, per_bug: int) -> int:
    with RunStore(run_dir, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="example",
                backend="mutation",
                model="bench",
                strategy=Strategy.ZERO_SHOT,
                temperature=0.0,
                n=per_bug,
            )
        )
        store.add_bugs(bugs)
        for bug in bugs:
            for i, code in enumerate(candidates_for(bug, per_bug)):
                store.add_sample(
                    SampleRecord(bug_id=bug.id, index=i, response=code, candidate_hash=candidate_hash(code)), code
                )
        return sum(len(store.candidates(b.id)) for b in bugs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", action="append", help="Example bug id (repeatable; default Textkit-1, Rangekit-1).")
    parser.add_argument("--per-bug", type=int, default=16, help="Unique candidates per bug (default 16).")
    parser.add_argument("--workers", type=int, default=1, help="Workers per validation (default 1).")
    parser.add_argument("--engine", action="append", help="Only these engines (fast, rebuild, defects4j).")
    parser.add_argument("--no-sandbox", action="store_true", help="Validate without bubblewrap.")
    parser.add_argument(
        "--sandbox",
        action="append",
        choices=[k.value for k in SandboxKind],
        help="Also validate under this sandbox, beside bubblewrap (repeatable; e.g. docker).",
    )
    parser.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="ray: candidates/s of the fast engine on local Ray clusters of 1 and 2 nodes (bench_ray.py).",
    )
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    sandboxes = list(dict.fromkeys(["none" if args.no_sandbox else "bwrap", *(args.sandbox or [])]))

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
    options = EngineOptions(sandbox=make_sandbox(sandboxes[0]), cache_dir=cache.cache_dir())
    for bug in bugs:
        prepare_workspace(bug, options)
    if "docker" in sandboxes:
        make_sandbox("docker")  # the JVM image is built (or found) before anything is measured

    base = Path(tempfile.mkdtemp(prefix="nl2fix-bench-"))
    rows, verdicts = [], {}
    try:
        for engine in engines:
            for box in sandboxes:
                name = engine if box == sandboxes[0] else f"{engine}/{box}"
                run_dir = base / name.replace("/", "-")
                count = make_run(run_dir, bugs, args.per_bug)
                argv = [
                    sys.executable,
                    "-c",
                    "from nl2fix.cli.main import main; main()",
                    "validate",
                    "--run",
                    str(run_dir),
                    "--engine",
                    engine,
                    "--workers",
                    str(args.workers),
                    "--quiet",
                    "--sandbox",
                    box,
                ]
                containers = images.containers_cpu_seconds() if box == "docker" else None
                daemons = daemons_cpu_seconds()
                result = run_command(argv, timeout=3600)
                if not result.ok:
                    print(f"{name}: validation failed\n{result.stderr[-3000:]}")
                    continue
                cpu = result.cpu_seconds
                if containers is not None:
                    overhead = daemons_cpu_seconds() - daemons
                    cpu += images.containers_cpu_seconds() - containers + overhead
                    print(
                        f"{name}: of its process CPU-s, {overhead:.2f} are Docker's own processes (daemon, "
                        "containerd, live shims; shims that ended during the run are not counted)"
                    )
                with RunStore(run_dir) as store:
                    records = [r for r in store.validations(engine=engine) if r.hash not in ("fixed", "buggy")]
                verdicts[name] = {(r.bug_id, r.hash): r.verdict.value for r in records}
                own = sum(r.cpu_seconds for r in records)
                rows.append((name, count, cpu, cpu / count, own / count, result.wall_seconds))
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"bugs: {', '.join(b.id for b in bugs)}; workers: {args.workers}")
    print(f"sandboxes: {', '.join(sandboxes)} (rows without a /sandbox: {sandboxes[0]})")
    print(
        f"{'engine':14} {'unique':>6} {'process CPU-s':>13} {'CPU-s/cand':>10} {'own CPU-s/cand':>14} {'wall s':>7}"
        f" {'wall/cand':>9} {'ratio':>6} {'own ratio':>9}"
    )
    fast = next((r for r in rows if r[0] == "fast"), None)
    for engine, count, total, per, own, wall in rows:
        ratio, own_ratio = (per / fast[3], own / fast[4]) if fast else (float("nan"), float("nan"))
        print(
            f"{engine:14} {count:6d} {total:13.2f} {per:10.3f} {own:14.3f} {wall:7.1f} {wall / count:9.3f}"
            f" {ratio:5.1f}x {own_ratio:8.1f}x"
        )
    print(
        "(process: the whole `nl2fix validate` run -- Python, baselines, JVM start-ups, and under docker the "
        "containers' cgroup -- per unique candidate; own: the candidates' validations alone; "
        "ratios: relative to fast)"
    )
    by_name = {r[0]: r for r in rows}
    for engine in engines:
        for box in sandboxes[1:]:
            ref, other = by_name.get(engine), by_name.get(f"{engine}/{box}")
            if ref and other:
                print(
                    f"{engine} engine, {box} vs {sandboxes[0]} per unique candidate: CPU {other[3] / ref[3]:.2f}x, "
                    f"own CPU {other[4] / ref[4]:.2f}x, wall {other[5] / ref[5]:.2f}x"
                )
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
