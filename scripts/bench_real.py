#!/usr/bin/env python3
"""The fast engine against Defects4J itself, on the dataset's real bugs.

1. Baselines (every selected bug; ``--no-baselines`` skips them): the fixed and the buggy
   version of each bug, judged by the fast engine and by the ``defects4j`` engine, against
   Defects4J's contract -- the buggy version fails exactly its trigger tests, the ground truth
   passes them. Lists every bug where the engines disagree and why; apart from those, the bugs
   whose ground truth Defects4J itself rejects (the fix needs a change outside the method: the
   dataset's, not ours), the bugs where both engines agree that the contract does not hold, and
   the bugs an engine could not run.
2. Candidates (``--sample N`` bugs, spread over the projects): the mutation baseline's candidates
   (``nl2fix sample --backend mutation``) validated by both engines in one run store, each engine
   as its own ``nl2fix validate`` process: verdict agreement, and CPU-seconds per unique
   candidate side by side (median and mean of the candidates' own validations; the whole
   process's per candidate) with their ratio.
   With ``--baseline-tree DIR`` the fast engine of the code in DIR (say a git worktree of an earlier
   commit; its own ``nl2fix validate``, so its own Java runner) judges the same candidates too, in its
   own copy of the run store, at the same time as this tree's, the workers shared between them, so
   the machine's load weighs on both alike and each bug has one worker, as in a run of many bugs
   (see :func:`schedule`): both sides' CPU-s per candidate, their ratio (of the medians, of the means, and the
   median of each candidate's own), and every
   candidate's three verdicts. The two copies are named after both trees' code (a hash of
   ``nl2fix/`` and ``defects4j_adapter/``): changed code is judged afresh, while the samples and the
   ``defects4j`` engine's verdicts are kept. Both share the machine's cache of prepared workspaces.
   The code under test is the tree this process imports ``nl2fix`` from (run with PYTHONPATH=it).
   With ``--narrowing`` the fast engine judges the candidates twice the same way, with the tests
   narrowed to those that can notice the change (the default) and without (``NL2FIX_NARROW_TESTS=0``),
   each in its own copy of the run store: CPU-s per candidate side by side, every candidate's
   verdicts, and the projected cost of the paper's full configuration (283 bugs, 28,300 samples
   about half of them unique; preparation and baselines included) on 2 cores.
   ``--fix-variants K`` adds to each bug's mutants K variants of the developer's fix (the fix, its
   single-edit mutants, and edits of it that change nothing: a model's plausible answers run every
   test they are given, so a mix without them understates the cost).

3. Real models' answers (``--replay FILE``, NL2Fix's replay format; ``scripts/repairbench_replay.py``
   makes one from RepairBench's published answers) instead of mutants: the fast engine judges every
   unique candidate with each step's CPU-s counted (:mod:`phase_profile`: compiling, the warm JVM's
   tests, the fresh JVM that confirms a pass and its start-up, the recording, the behaviour probe; mean,
   median, p90 per unique candidate, all and plausible), the full configuration projected, then
   ``--defects4j-sample K`` of each bug's candidates of each verdict judged by the ``defects4j`` engine in a
   copy of the run store: every one's verdicts and CPU-s side by side, and Defects4J's CPU-s per candidate over
   all candidates estimated from them (each standing for its bug's candidates of its verdict), with and without
   the loops (``timeout``, which cost Defects4J its test limit). With
   ``--baseline-tree DIR`` the fast engine of the code in DIR judges the same answers at the same time
   (a worker each, as in part 2): both sides' steps, their CPU-s per candidate with the ratios, and
   every candidate whose verdict or behaviour label differs between them.

Everything is kept in ``--store`` (default ``$NL2FIX_CACHE_DIR/bench-real``), so the sweep can be
run in pieces (``--projects``, ``--bugs``, ``--limit``) and resumes where it stopped. The fast
engine runs in the bubblewrap sandbox; the ``defects4j`` engine cannot, so it runs Defects4J
unconfined (``--no-sandbox``) on the dataset's own methods and the mutation baseline's edits of
them. Needs a Defects4J; without one it says so and exits 0.

    python3 scripts/bench_real.py --limit 2 --sample 4               # 2 bugs a project, 4 sampled
    python3 scripts/bench_real.py --no-baselines --sample 10 --per-bug 8
    python3 scripts/bench_real.py                                     # everything: hours
    python3 scripts/bench_real.py --no-baselines --limit 3 --sample 12 --baseline-tree ../baseline  # old vs new fast
    python3 scripts/bench_real.py --no-baselines --bugs Math-2,JacksonCore-3 --sample 2 --fix-variants 8 --narrowing
    python3 scripts/repairbench_replay.py --bugs Cli-23,Math-2 --per-model 2 --out answers.json
    python3 scripts/bench_real.py --no-baselines --bugs Cli-23,Math-2 --replay answers.json --defects4j-sample 2
    python3 scripts/bench_real.py --no-baselines --bugs Cli-23,Math-2 --replay answers.json --baseline-tree ../old
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from itertools import chain, zip_longest
from pathlib import Path

import bench_validate
import d4j_bugs

import nl2fix as nl2fix_package
from defects4j_adapter import cache
from defects4j_adapter.contract import EngineSettings
from defects4j_adapter.engines import linkage, narrowing
from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.core.processes import run_command
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling import replay_format
from nl2fix.store import migrations
from nl2fix.store.records import SampleRecord, ValidationRecord
from nl2fix.store.run_store import STORE_FILE, RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED, BaselineCheck
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.stage import check_baselines

ENGINES = (Engine.FAST, Engine.DEFECTS4J)
VALIDATE_TIMEOUT = 24 * 3600.0
THIS_TREE = Path(nl2fix_package.__file__).resolve().parent.parent
"""The code under test: the tree this process imports nl2fix from (PYTHONPATH)."""
CODE_DIRS = ("nl2fix", "defects4j_adapter")
"""What a tree's fast engine is made of (its Python, and its Java runner's sources)."""
NL2FIX_MAIN = "import sys; sys.path.insert(0, sys.argv.pop(1)); from nl2fix.cli.main import main; main()"
PROFILED_MAIN = (
    "import sys; sys.path[:0] = [sys.argv.pop(1), sys.argv.pop(1)]; import phase_profile; "
    "phase_profile.install(sys.argv.pop(1)); from nl2fix.cli.main import main; main()"
)
"""The command above with :mod:`phase_profile` counting each step's CPU-s (the tree, this scripts folder, the file)."""
SCRIPTS = Path(__file__).resolve().parent
FULL_BUGS, FULL_SAMPLES, UNIQUE_SHARE, CORES = 283, 28_300, 0.5, 2
"""The paper's full configuration (283 bugs x 100 samples, about half unique) on this machine's cores."""
PREPARE_CPU = 3.4
"""Median CPU-s of preparing a bug without its baselines (``scripts/bench_prepare.py --no-baselines``: 3.36 on the
12 bugs of the replayed set, ``bench_prepare-20261129T211033``; 7.7 was an earlier measurement on nine bugs, before
the buggy baseline's narrowing and the tests' JDK 11)."""


@dataclass(frozen=True)
class Finding:
    bug: Bug
    kind: str
    """``agree`` (the contract holds), ``DISAGREE``, ``environment`` (only Defects4J's
    environment made the difference), ``dataset``, ``both`` (both engines find the contract
    broken alike) or ``not run``."""
    why: str = ""


def broken_contract(check: BaselineCheck) -> str:
    """How one engine's baselines break Defects4J's contract; empty when they keep it."""
    triggers = set(check.bug.trigger_tests)
    fixed, buggy = check.fixed, check.buggy
    if fixed.verdict not in (Verdict.PLAUSIBLE, Verdict.WRONG) or triggers & set(fixed.failing_tests):
        return f"the ground truth is {fixed.verdict.value}: {describe(fixed)}"
    if buggy.verdict is not Verdict.WRONG or set(buggy.failing_tests) != triggers:
        return (
            f"the buggy version is {buggy.verdict.value}, failing {sorted(buggy.failing_tests)} "
            f"instead of exactly {sorted(triggers)}"
        )
    return ""


def describe(record: ValidationRecord) -> str:
    what = record.compile_errors or record.detail or ", ".join(record.failing_tests)
    return " ".join(what.split())[:300]


def outcome(record: ValidationRecord) -> tuple[str, frozenset[str]]:
    return record.verdict.value, frozenset(record.failing_tests)


def difference(fast: BaselineCheck, d4j: BaselineCheck) -> str:
    """Where the fast engine's baselines differ from the defects4j engine's, and what each said."""
    parts = []
    for name, ours, theirs in (("fixed", fast.fixed, d4j.fixed), ("buggy", fast.buggy, d4j.buggy)):
        if outcome(ours) == outcome(theirs):
            continue
        only_fast = sorted(set(ours.failing_tests) - set(theirs.failing_tests))
        only_d4j = sorted(set(theirs.failing_tests) - set(ours.failing_tests))
        parts.append(
            f"{name}: fast {ours.verdict.value}, defects4j {theirs.verdict.value}"
            + (f"; failing only under fast: {only_fast[:5]}" if only_fast else "")
            + (f"; failing only under defects4j: {only_d4j[:5]}" if only_d4j else "")
            + f" (fast: {describe(ours)[:200]}; defects4j: {describe(theirs)[:200]})"
        )
    return " | ".join(parts)


def harness_failure(check: BaselineCheck) -> str:
    """Why an engine could not judge a baseline (it could not prepare the bug, or its harness
    failed); empty when both were judged."""
    failed = [r for r in (check.fixed, check.buggy) if r.verdict is Verdict.ERROR]
    return describe(failed[0]) if failed else ""


def defects4j_environment_only(fast: BaselineCheck, d4j: BaselineCheck) -> bool:
    """Whether the engines differ only in tests that failed under Defects4J for its environment's
    sake (its verdict reports a linkage error of a library class: two class loaders with their own
    copy of Hamcrest in the Ant that runs its tests here), failing nothing more under fast."""
    pairs = [
        (ours, theirs)
        for ours, theirs in ((fast.fixed, d4j.fixed), (fast.buggy, d4j.buggy))
        if outcome(ours) != outcome(theirs)
    ]
    return all(
        set(ours.failing_tests) <= set(theirs.failing_tests) and linkage.faults_in(theirs.detail)
        for ours, theirs in pairs
    )


def judge(fast: BaselineCheck, d4j: BaselineCheck) -> Finding:
    bug = fast.bug
    unrun = [f"{e.value}: {harness_failure(c)}" for e, c in zip(ENGINES, (fast, d4j)) if harness_failure(c)]
    if unrun:
        return Finding(bug, "not run", "; ".join(unrun))
    if outcome(fast.fixed) != outcome(d4j.fixed) or outcome(fast.buggy) != outcome(d4j.buggy):
        return Finding(
            bug, "environment" if defects4j_environment_only(fast, d4j) else "DISAGREE", difference(fast, d4j)
        )
    theirs = broken_contract(d4j)
    if theirs.startswith("the ground truth"):
        return Finding(bug, "dataset", theirs)
    return Finding(bug, "both", theirs) if theirs else Finding(bug, "agree")


def baselines(bugs: list[Bug], store: Path, workers: int) -> list[Finding]:
    checks = {}
    for engine in ENGINES:
        start = time.monotonic()
        options = ValidationOptions(
            engine=engine, sandbox=SandboxSpec.of(engine is Engine.FAST), settings=EngineSettings(workers=workers)
        )
        found = check_baselines(bugs, options, store_dir=store, progress=True)
        checks[engine] = {c.bug.id: c for c in found}
        print(f"baselines with the {engine.value} engine: {time.monotonic() - start:.0f} s", flush=True)
    return [judge(checks[Engine.FAST][b.id], checks[Engine.DEFECTS4J][b.id]) for b in bugs]


def print_findings(findings: list[Finding]) -> None:
    titles = {
        "DISAGREE": "the fast engine disagrees with the defects4j engine",
        "environment": "the defects4j engine failed tests for its environment's sake (a linkage error it "
        "reports as such), the fast engine no more than it: left out of the agreement",
        "dataset": "the ground truth does not validate under Defects4J either (it needs a change outside "
        "the method: the dataset's, not ours)",
        "both": "both engines find Defects4J's contract broken, alike",
        "not run": "an engine could not run the baselines",
    }
    print(
        f"\n(1) baselines of {len(findings)} bugs: "
        + ", ".join(f"{sum(f.kind == k for f in findings)} {k}" for k in ("agree", *titles))
    )
    for kind, title in titles.items():
        chosen = [f for f in findings if f.kind == kind]
        if chosen:
            print(f"{title}:")
            for f in chosen:
                print(f"  {f.bug.id}: {f.why}")
    agreeing = sum(f.kind not in ("DISAGREE", "environment", "not run") for f in findings)
    ran = sum(f.kind not in ("environment", "not run") for f in findings)
    if ran:
        print(f"agreement on the baselines: {agreeing} of {ran} bugs ({100 * agreeing / ran:.1f} %)")


def spread(bugs: list[Bug], count: int) -> list[Bug]:
    """``count`` bugs taken round-robin over the projects (each project's in dataset order)."""
    by_project: dict[str, list[Bug]] = {}
    for bug in bugs:
        by_project.setdefault(bug.project, []).append(bug)
    mixed = [b for b in chain.from_iterable(zip_longest(*by_project.values())) if b is not None]
    return mixed[:count]


def nl2fix(
    *args: str, tree: Path = THIS_TREE, env: tuple[tuple[str, str], ...] = (), profile: Path | None = None
) -> tuple[bool, float, str]:
    """Run ``nl2fix ARGS`` of the code in ``tree`` as its own process: (finished without a harness failure, its
    CPU-s, stderr's end). ``tree`` goes first on the process's path, ahead of the working directory that
    ``-c`` puts there, and on its PYTHONPATH for whatever it starts; ``env`` is added to its environment.
    With ``profile``, its fast engine's steps' CPU-s are added to that file (:mod:`phase_profile`)."""
    env = {
        **os.environ,
        **dict(env),
        "PYTHONPATH": os.pathsep.join(filter(None, (str(tree), os.environ.get("PYTHONPATH")))),
    }
    main = [NL2FIX_MAIN, str(tree)] if profile is None else [PROFILED_MAIN, str(tree), str(SCRIPTS), str(profile)]
    result = run_command([sys.executable, "-c", *main, *args], env=env, timeout=VALIDATE_TIMEOUT)
    # 1 is `nl2fix validate`'s "some verdicts are errors", and Python's own exit on an uncaught exception
    crashed = "Traceback (most recent call last)" in result.stderr
    return result.returncode in (0, 1) and not crashed, result.cpu_seconds, result.stderr[-2000:]


def selection(bugs: list[Bug]) -> list[str]:
    return [a for b in bugs for a in ("--bug", b.id)]


@dataclass(frozen=True)
class Side:
    """Who judges the candidates: one engine of one code tree, and the run store its verdicts go to."""

    label: str
    engine: Engine
    run_dir: Path
    tree: Path = THIS_TREE
    env: tuple[tuple[str, str], ...] = ()
    """Added to its ``nl2fix validate``'s environment (``NL2FIX_NARROW_TESTS=0``: the fast engine unnarrowed)."""
    profile: Path | None = None
    """Where its steps' CPU-s go (:mod:`phase_profile`), if anywhere."""


def code_fingerprint(tree: Path) -> str:
    """A short hash of a tree's code (:data:`CODE_DIRS`, caches left out): whose fast verdicts a store holds."""
    digest = hashlib.sha256()
    files = sorted(p for d in CODE_DIRS for p in (tree / d).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(f"{path.relative_to(tree)}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def sides(run_dir: Path, baseline: Path | None, narrowing_pair: bool = False, defects4j: bool = True) -> list[Side]:
    """:func:`all_sides`, less the defects4j engine unless ``defects4j``."""
    return [s for s in all_sides(run_dir, baseline, narrowing_pair) if defects4j or s.engine is Engine.FAST]


def all_sides(run_dir: Path, baseline: Path | None, narrowing_pair: bool = False) -> list[Side]:
    """The fast engine (of this tree, then of ``baseline`` when given, or this tree's unnarrowed with
    ``narrowing_pair``), then the defects4j engine. With a second fast engine each has its own copy of the
    run store, named after the trees' code: a run against other code starts afresh, an interrupted one resumes."""
    defects4j = Side("defects4j", Engine.DEFECTS4J, run_dir)
    if narrowing_pair:
        pair = run_dir.with_name(f"{run_dir.name}-narrowing-{code_fingerprint(THIS_TREE)}")
        return [
            Side("fast", Engine.FAST, pair / "narrowed"),
            Side("fast-unnarrowed", Engine.FAST, pair / "unnarrowed", env=((narrowing.SWITCH, "0"),)),
            defects4j,
        ]
    if baseline is None:
        return [Side("fast", Engine.FAST, run_dir), defects4j]
    pair = run_dir.with_name(f"{run_dir.name}-fast-{code_fingerprint(THIS_TREE)}-vs-{code_fingerprint(baseline)}")
    return [
        Side("fast", Engine.FAST, pair / "this"),
        Side(f"fast@{baseline.name}", Engine.FAST, pair / "baseline", baseline),
        defects4j,
    ]


FOR_TREE = """
import dataclasses, json, sqlite3, sys
sys.path.insert(0, sys.argv[1])
from nl2fix.core.domain import Bug
from nl2fix.store import records, run_store
try:
    from nl2fix.store.migrations import latest
except ImportError:
    def latest(): return run_store.SCHEMA_VERSION
known = {"bugs": {f.name for f in dataclasses.fields(Bug)}, "samples": set(records.SampleRecord.model_fields)}
with sqlite3.connect(sys.argv[2]) as db:
    for table, keys in known.items():
        for rowid, record in db.execute(f"SELECT rowid, record FROM {table}").fetchall():
            kept = {k: v for k, v in json.loads(record).items() if k in keys}
            db.execute(f"UPDATE {table} SET record = ? WHERE rowid = ?", (json.dumps(kept), rowid))
print(latest())
"""
"""Run with a tree and a copy of a run store: the copy's bugs and samples without the fields the tree's nl2fix
does not know (added since, for other stages: trigger tests' texts for prompts); prints the store schema it
reads."""
INDEX_ONLY_SCHEMAS = {2: 1}
"""Store schemas that differ from the one before only by an index, which that version's code never reads: a
copy for a tree that reads the older one is marked with it (schema 2 indexed samples by candidate)."""


def for_tree(store: Path, tree: Path) -> None:
    """The run store ``store`` made readable by ``tree``'s nl2fix, an earlier commit's (:data:`FOR_TREE`)."""
    wanted = int(run_command([sys.executable, "-c", FOR_TREE, str(tree), str(store)], timeout=300).stdout.strip())
    with closing(sqlite3.connect(store)) as db:
        (have,) = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = int(have)
        while version > wanted and version in INDEX_ONLY_SCHEMAS:
            version = INDEX_ONLY_SCHEMAS[version]
        if version != wanted:
            raise SystemExit(f"{tree} reads run-store schema {wanted}, and no copy of schema {have} is one")
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
        db.commit()


def as_this_tree_reads(store: Path) -> None:
    """A copy :func:`for_tree` marked with an older schema marked with this tree's again, once the earlier tree
    has judged it: the marks differ by an index only, which the copy has (this tree would make it again)."""
    latest = migrations.latest()
    with closing(sqlite3.connect(store)) as db:
        (have,) = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = latest
        while version > int(have) and version in INDEX_ONLY_SCHEMAS:
            version = INDEX_ONLY_SCHEMAS[version]
        if version == int(have):
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(latest),))
            db.commit()


def verdictless_copy(source: Path, copy: Path, tree: Path = THIS_TREE) -> None:
    """Make ``copy`` the run store of ``source`` (its bugs, samples and candidates as they are now) without
    ``source``'s verdicts, keeping those ``copy`` already had, in the schema ``tree``'s nl2fix reads (an earlier
    commit's may read an older one: :data:`INDEX_ONLY_SCHEMAS`)."""
    copy.mkdir(parents=True, exist_ok=True)
    old, new = copy / STORE_FILE, copy / f"{STORE_FILE}.new"
    new.unlink(missing_ok=True)
    with closing(sqlite3.connect(source / STORE_FILE)) as src, closing(sqlite3.connect(new)) as dst:
        src.backup(dst)
        dst.execute("DELETE FROM validations")
        if old.exists():  # detaching checkpoints the old store's write-ahead log into it
            dst.execute("ATTACH DATABASE ? AS old", (str(old),))
            dst.execute("INSERT INTO validations SELECT * FROM old.validations")
            dst.commit()
            dst.execute("DETACH DATABASE old")
        dst.commit()
    if tree != THIS_TREE:
        for_tree(new, tree)
    os.replace(new, old)


def schedule(judges: list[Side], bugs: list[Bug], workers: int) -> list[list[tuple[Side, list[Bug], int]]]:
    """The validate calls: rounds of calls that run at the same time, each a side, its bugs and its workers.
    Two fast engines judge all bugs at the same time, the workers shared between them (one each with
    ``--workers 2``), so the machine's load weighs on both alike and each bug is judged by one worker, as in a
    run of many bugs, where a worker joins another's bug only at the end (a call of two bugs would meet that
    end at every call: the second warm JVM of a bug whose neighbour finished first). Any other side judges
    all bugs with all workers, alone."""
    fast = [s for s in judges if s.engine is Engine.FAST]
    rest = [[(s, bugs, workers)] for s in judges if s not in fast or len(fast) < 2]
    if len(fast) < 2:
        return rest
    return [[(s, bugs, max(1, workers // len(fast))) for s in fast], *rest]


def validate(judges: list[Side], bugs: list[Bug], workers: int) -> dict[str, float] | None:
    """Every side's verdicts on the candidates (:func:`schedule`): each side's process CPU-s, or None when a
    validation failed."""
    process = dict.fromkeys((s.label for s in judges), 0.0)

    def call(side: Side, of: list[Bug], side_workers: int) -> tuple[Side, bool, float, str, float]:
        start = time.monotonic()
        ok, cpu, err = nl2fix(
            "validate",
            "--run",
            str(side.run_dir),
            "--engine",
            side.engine.value,
            "--workers",
            str(side_workers),
            *selection(of),
            "--quiet",
            *([] if side.engine is Engine.FAST else ["--no-sandbox"]),
            tree=side.tree,
            env=side.env,
            profile=side.profile,
        )
        return side, ok, cpu, err, time.monotonic() - start

    for calls in schedule(judges, bugs, workers):
        with ThreadPoolExecutor(len(calls)) as pool:
            done = list(pool.map(lambda c: call(*c), calls))
        for (side, ok, cpu, err, wall), (_, of, side_workers) in zip(done, calls):
            what = ", ".join(b.id for b in of) if len(of) <= 2 else f"{len(of)} bugs"
            beside = [c[0].label for c in calls if c[0] is not side]
            print(
                f"candidates with {side.label} ({what}, {side_workers} worker{'s' * (side_workers > 1)}"
                f"{', beside ' + ', '.join(beside) if beside else ''}): {wall:.0f} s, {cpu:.1f} CPU-s",
                flush=True,
            )
            if side.tree != THIS_TREE:
                as_this_tree_reads(side.run_dir / STORE_FILE)
            if not ok:
                print(f"validation with {side.label} failed:\n{err}")
                return None
            process[side.label] += cpu
    return process


Verdicts = dict[str, dict[tuple[str, str], ValidationRecord]]
"""Each side's records by (bug id, candidate hash)."""


def read_verdicts(judges: list[Side], bugs: list[Bug]) -> Verdicts:
    found: Verdicts = {}
    for side in judges:
        with RunStore(side.run_dir, read_only=True) as store:
            found[side.label] = {
                (r.bug_id, r.hash): r
                for b in bugs
                for r in store.validations(b.id, side.engine.value)
                if r.hash not in (FIXED, BUGGY)
            }
    return found


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.3f}x" if theirs > 0 else "-"


def print_costs(judges: list[Side], records: Verdicts, process: dict[str, float], keys: list[tuple[str, str]]) -> None:
    """Median and mean CPU-s per candidate of each side; defects4j against fast, and fast against its baseline."""
    width = max(10, *(len(s.label) for s in judges))
    print(f"{'engine':{width}} {'median CPU-s/cand':>17} {'mean':>7} {'process CPU-s/cand':>18}")
    medians, means = {}, {}
    for side in judges:
        cpu = [records[side.label][k].cpu_seconds for k in keys]
        medians[side.label], means[side.label] = statistics.median(cpu), statistics.mean(cpu)
        print(
            f"{side.label:{width}} {medians[side.label]:17.2f} {means[side.label]:7.2f} "
            f"{process[side.label] / len(keys):18.2f}"
        )
    print(
        "(process: this call's whole `nl2fix validate` -- baselines, JVM and Ant start-ups -- over the candidates "
        "judged; it is small when the candidates were judged by an earlier call)"
    )
    fast, defects4j = judges[0].label, judges[-1].label
    if medians[fast] > 0 and judges[-1].engine is Engine.DEFECTS4J:
        print(f"defects4j / fast, medians: {medians[defects4j] / medians[fast]:.1f}x")
    for base in (s.label for s in judges[1:] if s.engine is Engine.FAST):
        own = [
            records[fast][k].cpu_seconds / records[base][k].cpu_seconds
            for k in keys
            if records[base][k].cpu_seconds > 0
        ]
        print(
            f"{fast} / {base}: medians {ratio(medians[fast], medians[base])}, means {ratio(means[fast], means[base])}"
            + (f", median of the candidates' own ratios {statistics.median(own):.3f}x" if own else "")
        )


def print_verdicts(judges: list[Side], records: Verdicts, keys: list[tuple[str, str]]) -> None:
    """Agreement of each fast engine with defects4j (and with the other fast engine), every candidate the
    sides do not all agree on; with a baseline, every candidate's verdicts and fast CPU-s side by side."""
    labels = [s.label for s in judges]
    pairs = list(dict.fromkeys([(a, labels[-1]) for a in labels[:-1]] + [(labels[0], b) for b in labels[1:-1]]))
    for a, b in pairs:
        agree = sum(records[a][k].verdict is records[b][k].verdict for k in keys)
        print(f"agreement, {a} vs {b}: {agree} of {len(keys)} ({100 * agree / len(keys):.1f} %)")
    if len(labels) > 2:
        print(
            f"per candidate: the verdicts of {' / '.join(labels)}; CPU-s of {labels[0]} and {labels[1]}, "
            "and their ratio"
        )
        for key in keys:
            ours, base = records[labels[0]][key], records[labels[1]][key]
            print(
                f"  {key[0]:15} {key[1][:12]} {' / '.join(records[x][key].verdict.value for x in labels):44} "
                f"{ours.cpu_seconds:7.2f} {base.cpu_seconds:7.2f} {ratio(ours.cpu_seconds, base.cpu_seconds):>7}"
            )
    for key in keys:
        if len({records[x][key].verdict for x in labels}) > 1:
            said = [f"{x} {records[x][key].verdict.value} ({describe(records[x][key])[:200]})" for x in labels]
            print(f"  DISAGREE {key[0]} {key[1]}: {'; '.join(said)}")


def fix_variants(bug: Bug, count: int) -> list[str]:
    """``count`` variants of the developer's fix: the fix, edits of it that change nothing (an empty
    statement at the start of its body: plausible, as a model's correct answer in other words is), and
    its single-edit mutants, taking turns."""
    if not bug.fixed_method:
        return []
    body = bug.fixed_method.index("{") + 1
    same = [bug.fixed_method[:body] + ";" * k + bug.fixed_method[body:] for k in range(1, count)]
    mutated = bench_validate.mutants(bug.fixed_method, count)
    mixed = [bug.fixed_method, *(c for pair in zip_longest(same, mutated) for c in pair if c is not None)]
    return mixed[:count]


def add_fix_variants(run_dir: Path, bugs: list[Bug], per_bug: int, count: int) -> None:
    """Each bug's :func:`fix_variants` as samples after its ``per_bug`` mutants (kept when there already)."""
    with RunStore(run_dir) as store:
        for bug in bugs:
            for i, code in enumerate(fix_variants(bug, count)):
                store.add_sample(
                    SampleRecord(bug_id=bug.id, index=per_bug + i, response=code, candidate_hash=candidate_hash(code)),
                    code,
                )


def projection(label: str, per_candidate: float, per_bug: float) -> str:
    """The full configuration's CPU-s and its wall time on :data:`CORES` cores."""
    unique = FULL_SAMPLES * UNIQUE_SHARE
    total = FULL_BUGS * per_bug + unique * per_candidate
    return (
        f"{label}: {FULL_BUGS} x {per_bug:.1f} + {unique:,.0f} x {per_candidate:.3f} = {total:,.0f} CPU-s, "
        f"{total / CORES / 3600:.2f} h on {CORES} cores"
    )


def print_projection(
    judges: list[Side], records: Verdicts, keys: list[tuple[str, str]], bugs: list[Bug], prepare_cpu: float
) -> None:
    """The paper's full configuration at this sample's mean CPU-s per unique candidate, each bug prepared
    (``prepare_cpu``) with its two baselines (this run's median, from each side's run store)."""
    print(
        f"projected full configuration ({FULL_BUGS} bugs, {FULL_SAMPLES:,} samples, {UNIQUE_SHARE:.0%} unique; "
        f"preparation {prepare_cpu:.1f} CPU-s a bug, plus the baselines' median here):"
    )
    for side in (s for s in judges if s.engine is Engine.FAST):
        mean = statistics.mean(records[side.label][k].cpu_seconds for k in keys)
        print("  " + projection(side.label, mean, prepare_cpu + baselines_cpu(side, bugs)))


def baselines_cpu(side: Side, bugs: list[Bug]) -> float:
    """The median CPU-s of a bug's two baselines, from the side's run store."""
    with RunStore(side.run_dir, read_only=True) as store:
        return statistics.median(
            sum(r.cpu_seconds for r in store.validations(b.id, side.engine.value) if r.hash in (FIXED, BUGGY))
            for b in bugs
        )


def candidates(
    bugs: list[Bug],
    dataset: str,
    run_dir: Path,
    per_bug: int,
    workers: int,
    baseline: Path | None = None,
    variants: int = 0,
    narrowing_pair: bool = False,
    prepare_cpu: float = PREPARE_CPU,
    defects4j: bool = True,
) -> int:
    ok, _, err = nl2fix(
        "sample",
        "--dataset",
        dataset,
        *selection(bugs),
        "--run",
        str(run_dir),
        "--backend",
        "mutation",
        "-n",
        str(per_bug),
        "--quiet",
    )
    if not ok:
        print(f"sampling failed:\n{err}")
        return 1
    if variants:
        add_fix_variants(run_dir, bugs, per_bug, variants)
    judges = sides(run_dir, baseline, narrowing_pair, defects4j)
    for side in judges:
        if side.run_dir != run_dir:
            verdictless_copy(run_dir, side.run_dir, side.tree)
    process = validate(judges, bugs, workers)
    if process is None:
        return 1
    records = read_verdicts(judges, bugs)
    keys = sorted(set.intersection(*(set(r) for r in records.values())))
    print(
        f"\n(2) mutation-baseline candidates of {len(bugs)} bugs ({', '.join(b.id for b in bugs)}): "
        f"{len(keys)} unique candidates judged by {', '.join(s.label for s in judges)}"
    )
    if keys:
        print_costs(judges, records, process, keys)
        print_verdicts(judges, records, keys)
        if narrowing_pair:
            print_projection(judges, records, keys, bugs, prepare_cpu)
    return 0


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def summary(values: list[float]) -> str:
    return (
        f"{statistics.mean(values):6.3f} {statistics.median(values):6.3f} {p90(values):6.3f} "
        f"{max(values):7.2f} {sum(values):8.1f}"
    )


PHASES = ("compile", "tests", "confirm start", "confirm", "recording", "probe compile", "probe")
"""The steps a candidate's CPU-s are counted from (:mod:`phase_profile`), in the order they happen; the
probe's two are in its behaviour record, the others in its verdict's CPU-s."""
SHARED = ("warm start", "compiler start", "probe reference")
"""Steps no candidate's verdict counts: the bug's shared JVMs' start-ups and the fix's probe of itself."""


def probe_cpu(record: ValidationRecord) -> float:
    return record.behaviour.cpu_seconds if record.behaviour else 0.0


def print_phases(profile: Path, records: dict[tuple[str, str], ValidationRecord]) -> None:
    """Each step's CPU-s per unique candidate (mean, median, p90, max, sum), for all and for the plausible
    ones; and what the bugs' shared steps cost."""
    rows: dict[tuple[str, str], dict[str, float]] = {}
    for row in json.loads(profile.read_text()) if profile.exists() else []:
        mine = rows.setdefault((row["bug"], row["hash"]), {})
        for phase, cpu in row["phases"].items():
            mine[phase] = mine.get(phase, 0.0) + cpu
    keys = [k for k in records if k in rows]
    if not keys:
        print("no step figures (candidates judged by an earlier call are not profiled again)")
        return
    plausible = [k for k in keys if records[k].verdict is Verdict.PLAUSIBLE]
    print(
        f"\nCPU-s per unique candidate by step ({len(keys)} profiled, {len(plausible)} plausible): "
        "mean, median, p90, max, sum"
    )
    for label, chosen in (("all", keys), ("plausible", plausible)):
        if not chosen:
            continue
        print(f" {label}:")
        for phase in (*PHASES, "verdict", "verdict+probe"):
            if phase == "verdict":
                values = [records[k].cpu_seconds for k in chosen]
            elif phase == "verdict+probe":
                values = [records[k].cpu_seconds + probe_cpu(records[k]) for k in chosen]
            else:
                values = [rows[k].get(phase, 0.0) for k in chosen]
            print(f"  {phase:14} {summary(values)}")
    shared = {p: sum(r.get(p, 0.0) for r in rows.values()) for p in SHARED}
    bugs = {b for b, _ in rows}
    print(
        f" shared by each bug's candidates ({len(bugs)} bugs; baselines' own steps included): "
        + ", ".join(f"{p} {cpu:.1f}" for p, cpu in shared.items())
        + "; the baselines' other steps "
        f"{sum(cpu for (_, h), r in rows.items() if not h for p, cpu in r.items() if p not in SHARED):.1f}"
    )
    probes = sorted(((probe_cpu(records[k]), k) for k in plausible if records[k].behaviour), reverse=True)
    for cpu, (bug, hash) in probes[:5]:
        behaviour = records[(bug, hash)].behaviour
        assert behaviour is not None
        print(
            f"  dearest probe: {bug} {hash[:12]} {cpu:.2f} CPU-s, {behaviour.label.value}, "
            f"{behaviour.inputs} inputs {behaviour.note[:120]}"
        )


Key = tuple[str, str]


def cells(records: dict[Key, ValidationRecord]) -> dict[tuple[str, Verdict], list[Key]]:
    """The candidates of each bug and verdict (as the fast engine judged them), each cell in hash order."""
    grouped: dict[tuple[str, Verdict], list[Key]] = {}
    for key in sorted(records):
        grouped.setdefault((key[0], records[key].verdict), []).append(key)
    return grouped


def defects4j_sample(records: dict[Key, ValidationRecord], per_cell: int) -> set[Key]:
    """Up to ``per_cell`` candidates of each bug and verdict (:func:`cells`) for the defects4j engine: every
    kind of candidate is measured, since each costs Defects4J differently (an uncompilable one a compile, a
    loop its whole test limit) and their shares differ from bug to bug."""
    return {key for cell in cells(records).values() for key in cell[:per_cell]}


@dataclass(frozen=True)
class Estimate:
    """The defects4j engine's CPU-s per candidate over all of a set's candidates, estimated from a sample
    stratified by :func:`cells`: each sampled candidate stands for its cell's unsampled ones."""

    mean: float
    median: float
    candidates: int
    sampled: int


def estimated(records: dict[Key, ValidationRecord], costs: dict[Key, float]) -> Estimate | None:
    """:class:`Estimate` of ``costs`` (the sampled candidates' CPU-s) over ``records``' candidates; None when a
    cell has no sampled candidate (nothing stands for it)."""
    weighted = []
    for cell in cells(records).values():
        sampled = [costs[k] for k in cell if k in costs]
        if not sampled:
            return None
        weighted += [(cost, len(cell) / len(sampled)) for cost in sampled]
    if not weighted:
        return None
    total = sum(w for _, w in weighted)
    mean = sum(c * w for c, w in weighted) / total
    ordered = sorted(weighted)
    below, at = 0.0, 0
    while below + ordered[at][1] < total / 2:
        below += ordered[at][1]
        at += 1
    median = ordered[at][0]
    if below + ordered[at][1] == total / 2 and at + 1 < len(ordered):
        median = (median + ordered[at + 1][0]) / 2  # as statistics.median: between the two middle ones
    return Estimate(mean, median, round(total), len(weighted))


def keep_only(run_dir: Path, chosen: set[tuple[str, str]]) -> None:
    """Leave in a run store only the ``chosen`` candidates (and their samples)."""
    with closing(sqlite3.connect(run_dir / STORE_FILE)) as db:
        for table, column in (("candidates", "hash"), ("samples", "candidate_hash")):
            for bug, hash in db.execute(f"SELECT bug_id, {column} FROM {table}").fetchall():
                if (bug, hash) not in chosen:
                    db.execute(f"DELETE FROM {table} WHERE bug_id = ? AND {column} = ?", (bug, hash))
        db.commit()


def replayed(
    bugs: list[Bug],
    dataset: str,
    replay: Path,
    store: Path,
    workers: int,
    d4j_per_bug: int,
    prepare_cpu: float,
    d4j_bugs: frozenset[str] = frozenset(),
    baseline: Path | None = None,
) -> int:
    """A published set of answers (``replay``, NL2Fix's replay format) judged by the fast engine, its steps
    profiled; with ``baseline`` (a code tree) by that tree's fast engine too, at the same time, in a copy of
    the run store each (:func:`schedule`), both sides' figures and every candidate's two verdicts printed;
    ``d4j_per_bug`` of each bug's candidates of each verdict (of the ``d4j_bugs`` only, when given) judged by the
    defects4j engine too, side by side."""
    most = max(len(p) for p in replay_format.load(replay).values())
    run_dir = store / f"replay-{replay.stem}"
    ok, _, err = nl2fix(
        "sample",
        "--dataset",
        dataset,
        *selection(bugs),
        "--run",
        str(run_dir),
        "--backend",
        "replay",
        "--replay-file",
        str(replay),
        "-n",
        str(most),
        "--quiet",
    )
    if not ok:
        print(f"sampling failed:\n{err}")
        return 1
    judges = replay_sides(run_dir, baseline)
    fast = judges[0]
    for side in judges:
        if side.run_dir != run_dir:
            verdictless_copy(run_dir, side.run_dir, side.tree)
    process = validate(judges, bugs, workers)
    if process is None:
        return 1
    both = read_verdicts(judges, bugs)
    records = both["fast"]
    verdicts = statistics_of(records)
    print(
        f"\n(2) {len(records)} unique replayed candidates of {len(bugs)} bugs ({', '.join(b.id for b in bugs)}) "
        f"from {replay.name}: {verdicts}"
    )
    print_phases(fast.profile or run_dir, records)
    for side in judges[1:]:
        print(f"\nthe steps of {side.label}, on the same candidates:")
        print_phases(side.profile or side.run_dir, both[side.label])
    if len(judges) > 1:
        print_before_after(judges, both)
    print_projection([fast], {"fast": records}, list(records), bugs, prepare_cpu)
    with_probe = [r.cpu_seconds + probe_cpu(r) for r in records.values()]
    print(
        "  "
        + projection(
            "fast, the behaviour probe included", statistics.mean(with_probe), prepare_cpu + baselines_cpu(fast, bugs)
        )
    )
    if not d4j_per_bug:
        return 0
    population = {k: r for k, r in records.items() if not d4j_bugs or k[0] in d4j_bugs}
    chosen = defects4j_sample(population, d4j_per_bug)
    d4j = Side("defects4j", Engine.DEFECTS4J, run_dir.with_name(f"{run_dir.name}-defects4j"))
    verdictless_copy(run_dir, d4j.run_dir)
    keep_only(d4j.run_dir, chosen)
    of = [b for b in bugs if any(k[0] == b.id for k in chosen)]
    if validate([d4j], of, workers) is None:
        return 1
    theirs = read_verdicts([d4j], of)["defects4j"]
    keys = sorted(k for k in chosen if k in theirs)
    print(
        f"\nthe defects4j engine on {len(keys)} of them ({d4j_per_bug} of each bug's candidates of each verdict): "
        "verdicts fast / defects4j, CPU-s fast (verdict, probe) / defects4j"
    )
    for key in keys:
        ours, other = records[key], theirs[key]
        mark = "" if ours.verdict is other.verdict else "  DISAGREE"
        probe = probe_cpu(ours)
        print(
            f"  {key[0]:18} {key[1][:12]} {ours.verdict.value:>12} / {other.verdict.value:12} "
            f"{ours.cpu_seconds:6.2f} {probe:6.2f} / {other.cpu_seconds:6.2f}{mark}"
        )
    if keys:
        agree = sum(records[k].verdict is theirs[k].verdict for k in keys)
        # a loop is `timeout` at the fast engine's CPU limit and, under Defects4J, `wrong` when its JVM runs out of
        # heap minutes later: whether a candidate passes is the verdict a pass@k counts
        passing = sum(
            (records[k].verdict is Verdict.PLAUSIBLE) is (theirs[k].verdict is Verdict.PLAUSIBLE) for k in keys
        )
        ours_cpu, their_cpu = [records[k].cpu_seconds for k in keys], [theirs[k].cpu_seconds for k in keys]
        print(
            f"agreement: {agree} of {len(keys)} (plausible or not: {passing} of {len(keys)}); fast mean "
            f"{statistics.mean(ours_cpu):.2f} median {statistics.median(ours_cpu):.2f}, defects4j mean "
            f"{statistics.mean(their_cpu):.2f} median {statistics.median(their_cpu):.2f}: "
            f"{ratio(statistics.mean(their_cpu), statistics.mean(ours_cpu))} "
            f"on the mean, {ratio(statistics.median(their_cpu), statistics.median(ours_cpu))} on the median "
            "(these candidates)"
        )
        print_estimates(population, {k: theirs[k].cpu_seconds for k in keys})
    return 0


def print_estimates(population: dict[Key, ValidationRecord], costs: dict[Key, float]) -> None:
    """The defects4j engine's CPU-s per candidate over all of ``population``'s candidates, estimated from the
    sampled ``costs`` (:func:`estimated`), beside the fast engine's own over all of them; then the same without
    the candidates the fast engine judged ``timeout`` (a loop costs Defects4J its whole test limit, a figure of
    the engine's settings rather than of its work)."""
    no_loops = {k: r for k, r in population.items() if r.verdict is not Verdict.TIMEOUT}
    for what, chosen in (("all", population), ("all but timeouts", no_loops)):
        theirs = estimated(chosen, costs)
        if theirs is None or not chosen:
            print(f"  {what}: a (bug, verdict) cell has no candidate Defects4J judged: no estimate")
            continue
        ours = [r.cpu_seconds for r in chosen.values()]
        mean, median = statistics.mean(ours), statistics.median(ours)
        print(
            f"  {what} ({theirs.candidates} candidates, {theirs.sampled} judged by both, each standing for its bug's "
            f"candidates of its verdict): defects4j mean {theirs.mean:.2f} median {theirs.median:.2f} (estimated), "
            f"fast mean {mean:.3f} median {median:.3f}: {ratio(theirs.mean, mean)} on the mean, "
            f"{ratio(theirs.median, median)} on the median"
        )


def replay_sides(run_dir: Path, baseline: Path | None) -> list[Side]:
    """This tree's fast engine, profiled (in ``run_dir``; with ``baseline``, it and the baseline tree's each in
    a copy named after both trees' code, as :func:`all_sides` names them)."""
    if baseline is None:
        return [Side("fast", Engine.FAST, run_dir, profile=run_dir / f"phases-{code_fingerprint(THIS_TREE)}.json")]
    pair = run_dir.with_name(f"{run_dir.name}-fast-{code_fingerprint(THIS_TREE)}-vs-{code_fingerprint(baseline)}")
    return [
        Side("fast", Engine.FAST, pair / "this", profile=pair / "phases-this.json"),
        Side(f"fast@{baseline.name}", Engine.FAST, pair / "baseline", baseline, profile=pair / "phases-baseline.json"),
    ]


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[-1] if len(values) > 1 else values[0]


def print_before_after(judges: list[Side], records: Verdicts) -> None:
    """This tree's fast engine beside the baseline tree's on the same candidates, judged at the same time:
    CPU-s per unique candidate (verdict, behaviour probe, both; all and plausible) with the ratios, verdicts
    and behaviour labels compared, and every candidate whose verdict or label differs."""
    ours, base = (s.label for s in judges)
    keys = sorted(set(records[ours]) & set(records[base]))
    if not keys:
        return
    print(
        f"\n{ours} beside {base}, the same {len(keys)} candidates judged at the same time: CPU-s per unique "
        "candidate, mean / median / p90 / p99, and the ratio of the means (this / baseline)"
    )
    plausible = [k for k in keys if records[base][k].verdict is Verdict.PLAUSIBLE]
    measures = {
        "verdict": lambda r: r.cpu_seconds,
        "probe": probe_cpu,
        "verdict+probe": lambda r: r.cpu_seconds + probe_cpu(r),
    }
    for group, chosen in (("all", keys), ("plausible", plausible)):
        for name, measure in measures.items():
            if not chosen:
                continue
            sides = [[measure(records[label][k]) for k in chosen] for label in (ours, base)]
            shown = " | ".join(
                f"{statistics.mean(v):6.3f} {statistics.median(v):6.3f} {p90(v):6.3f} {p99(v):7.3f}" for v in sides
            )
            print(f"  {group:9} {name:13} {shown}  {ratio(statistics.mean(sides[0]), statistics.mean(sides[1]))}")
    same = sum(records[ours][k].verdict is records[base][k].verdict for k in keys)
    print(f"verdicts alike: {same} of {len(keys)}")

    def label_of(record: ValidationRecord) -> str:
        return record.behaviour.label.value if record.behaviour else "-"

    labels: dict[tuple[str, str], int] = {}
    for k in plausible:
        pair = (label_of(records[base][k]), label_of(records[ours][k]))
        labels[pair] = labels.get(pair, 0) + 1
    print(
        "behaviour labels of the plausible ones, baseline -> this: "
        + ", ".join(f"{a} -> {b}: {n}" for (a, b), n in sorted(labels.items()))
    )
    for k in keys:
        a, b = records[ours][k], records[base][k]
        if a.verdict is not b.verdict or label_of(a) != label_of(b):
            print(
                f"  {k[0]:18} {k[1][:12]} verdict {b.verdict.value} -> {a.verdict.value}, behaviour "
                f"{label_of(b)} -> {label_of(a)} ({(a.behaviour.note if a.behaviour else '')[:140]})"
            )


def statistics_of(records: dict[tuple[str, str], ValidationRecord]) -> str:
    counts: dict[str, int] = {}
    for record in records.values():
        counts[record.verdict.value] = counts.get(record.verdict.value, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda c: -c[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="Where results are kept and resumed from (default $NL2FIX_CACHE_DIR/bench-real).",
    )
    parser.add_argument("--workers", type=int, default=2, help="Parallel validations (default 2).")
    parser.add_argument("--no-baselines", action="store_true", help="Skip part 1.")
    parser.add_argument("--sample", type=int, default=0, help="Bugs for part 2 (default 0: skip it).")
    parser.add_argument("--per-bug", type=int, default=8, help="Mutation-baseline samples per bug (default 8).")
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        default=None,
        metavar="DIR",
        help="Also validate part 2's candidates (mutants or --replay answers) with the fast engine of the "
        "code in DIR (e.g. a git worktree of an earlier commit), at the same time as this tree's, a bug per "
        "worker at a time: CPU-s and verdicts side by side.",
    )
    parser.add_argument(
        "--fix-variants",
        type=int,
        default=0,
        metavar="K",
        help="Add K variants of each bug's developer fix to its mutants (default 0).",
    )
    parser.add_argument(
        "--narrowing",
        action="store_true",
        help="Judge part 2's candidates with the fast engine's tests narrowed and unnarrowed, side by "
        "side, and project the full configuration's cost.",
    )
    parser.add_argument(
        "--prepare-cpu",
        type=float,
        default=PREPARE_CPU,
        help=f"CPU-s of preparing a bug without its baselines, for the projection (default {PREPARE_CPU}).",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        default=None,
        metavar="FILE",
        help="Part 2 on a published set of answers (NL2Fix replay format; "
        "scripts/repairbench_replay.py makes one from RepairBench's) instead of mutants: the fast "
        "engine's steps profiled, and --defects4j-sample of each bug's candidates judged by the "
        "defects4j engine too.",
    )
    parser.add_argument(
        "--defects4j-sample",
        type=int,
        default=2,
        metavar="K",
        help="With --replay: candidates of each bug and verdict the defects4j engine judges too (default 2; 0: none).",
    )
    parser.add_argument(
        "--defects4j-bugs",
        default="",
        metavar="ID,ID",
        help="With --replay: the bugs whose candidates the defects4j engine judges (default: all).",
    )
    parser.add_argument(
        "--no-defects4j",
        action="store_true",
        help="Part 2 without the defects4j engine (it costs ~15 CPU-s a candidate): fast engines only.",
    )
    args, d4j, bugs = d4j_bugs.parse(parser)
    baseline = args.baseline_tree and args.baseline_tree.resolve()
    if baseline and args.narrowing:
        parser.error("--narrowing and --baseline-tree each add a second fast engine: give one")
    if baseline and not (baseline / "nl2fix" / "cli" / "main.py").is_file():
        parser.error(f"--baseline-tree {args.baseline_tree}: not an nl2fix code tree (no nl2fix/cli/main.py)")
    if baseline and not (args.sample or args.replay):
        parser.error("--baseline-tree compares part 2's candidates: give --sample N or --replay FILE")
    if d4j is None:
        return 0
    if THIS_TREE != Path(__file__).resolve().parent.parent:
        print(f"note: the code under test is {THIS_TREE} (where nl2fix is imported from), not this script's tree")
    store = args.store or cache.cache_dir() / "bench-real"
    start = time.monotonic()
    if not args.no_baselines:
        print_findings(baselines(bugs, store / "baselines", args.workers))
    status = 0
    if args.replay:
        status = replayed(
            bugs,
            args.dataset,
            args.replay,
            store,
            args.workers,
            args.defects4j_sample,
            args.prepare_cpu,
            frozenset(filter(None, args.defects4j_bugs.split(","))),
            baseline,
        )
    elif args.sample:
        variants = f"-fix{args.fix_variants}" if args.fix_variants else ""
        status = candidates(
            spread(bugs, args.sample),
            args.dataset,
            store / f"candidates-n{args.per_bug}{variants}",
            args.per_bug,
            args.workers,
            baseline,
            args.fix_variants,
            args.narrowing,
            args.prepare_cpu,
            not args.no_defects4j,
        )
    print(f"\n{time.monotonic() - start:.0f} s in all; results kept in {store}")
    return status


if __name__ == "__main__":
    sys.exit(main())
