#!/usr/bin/env python3
"""Whether the JUnit tests nl2fix writes for divergences show them, on a run's real candidates.

For every plausible candidate of the chosen bugs that a run store labels ``diverges`` (the fast
engine's records), the test :func:`divergence_test` writes from its stored behaviour record is compiled
with the project's classes, once with the developer's fix spliced in and once with the candidate, and
run with JUnit in the sandbox (a candidate is untrusted code): it shows the divergence when it passes on
the fix and fails on the candidate by its assertion or the exception it expects (not by a compile
error). Prints, per bug, the divergences, the tests written and those that show it; why no test was
written for the others (grouped); and what each written test that does not show it did.

    python3 scripts/bench_divergence_tests.py --store RUN_DIR --bugs Cli-23,Csv-9
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.contract import EngineOptions, EngineSettings, Workspace
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.jobs import workspace_mounts
from defects4j_adapter.jvm import java_level, reference_java
from defects4j_adapter.jvm.runner import junit_jars
from defects4j_adapter.sandbox.base import Limits, Sandbox
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.core.processes import run_command
from nl2fix.java_source.splice import splice
from nl2fix.store.records import BehaviourRecord
from nl2fix.store.run_store import RunStore

TEST_SECONDS = 60.0


@dataclass(frozen=True)
class Shown:
    """What one written test did on both versions."""

    fix: str
    """``passes``, ``fails`` or what stopped it (did not compile, ...)."""
    candidate: str

    @property
    def shows(self) -> bool:
        return self.fix == "passes" and self.candidate == "fails"


def outcome(stdout: str, returncode: int) -> str:
    if returncode == 0 and "OK (1 test)" in stdout:
        return "passes"
    if "Tests run: 1,  Failures: 1" in stdout:
        return "fails"
    return f"ended {returncode}: {stdout.strip()[-200:]}"


def check(ws: Workspace, sandbox: Sandbox, candidate: str, test: str, folder: Path) -> Shown:
    """What ``test`` does on the developer's fix and on ``candidate`` (each spliced into the buggy file)."""
    source = ws.buggy_file().read_bytes().decode(ws.encoding)
    return Shown(
        run_on(ws, sandbox, source, ws.bug.fixed_method, test, folder / "fix"),
        run_on(ws, sandbox, source, candidate, test, folder / "candidate"),
    )


def run_on(ws: Workspace, sandbox: Sandbox, source: str, method: str, test: str, folder: Path) -> str:
    """The test compiled against the project (``source``: its buggy file) with ``method`` spliced in, and run:
    ``passes``, ``fails`` or why neither."""
    bug = ws.bug
    main, tests = folder / "classes", folder / "test-classes"
    relative = ws.buggy_file().relative_to(ws.src_dir)
    spliced = folder / "src" / relative
    spliced.parent.mkdir(parents=True, exist_ok=True)
    spliced.write_text(splice(source, bug.buggy_method, bug.start_line, bug.end_line, method).text, ws.encoding)
    package = re.search(r"^package ([\w.]+);", test, re.M)
    name = re.search(r"public class (\w+)", test)
    if package is None or name is None:
        return "names no package or class"
    test_file = folder / "test-src" / package.group(1).replace(".", "/") / f"{name.group(1)}.java"
    test_file.parent.mkdir(parents=True, exist_ok=True)
    test_file.write_text(test, ws.encoding)
    jdk = reference_java.current().jdk
    level = java_level.javac_options(int(ws.java_release), jdk.major)
    # the project's test classes too: an input may hold one (a test's function object), and a user puts the test
    # among them
    classpath = [ws.classes_dir, ws.test_classes_dir, *ws.classpath, *junit_jars()]
    for out, file, path in ((main, spliced, classpath), (tests, test_file, [main, *classpath])):
        out.mkdir()
        made = run_command(
            [
                str(jdk.javac),
                *level,
                "-nowarn",
                "-proc:none",
                "-encoding",
                ws.encoding,
                "-d",
                str(out),
                "-cp",
                ":".join(map(str, path)),
                str(file),
            ],
            timeout=120,
        )
        if made.returncode != 0:
            return f"did not compile ({file.name}): {made.stdout[-300:]}{made.stderr[-300:]}"
    java = sandbox.test_java().jdk.java
    ran = sandbox.run(
        [
            str(java),
            "-cp",
            ":".join(map(str, [tests, main, *classpath])),
            "org.junit.runner.JUnitCore",
            f"{package.group(1)}.{name.group(1)}",
        ],
        workspace_mounts(ws, folder, read_only=junit_jars()),
        Limits(wall_seconds=TEST_SECONDS, memory_mb=None),
    )
    return outcome(ran.stdout, ran.returncode)


def divergences(store: RunStore, bug: Bug) -> list[tuple[str, BehaviourRecord, str]]:
    """The bug's plausible candidates labelled ``diverges``: hash, behaviour record, code."""
    code = {c.hash: c.code for c in store.candidates(bug.id)}
    return [
        (r.hash, r.behaviour, code[r.hash])
        for r in store.validations(bug.id, "fast")
        if r.verdict is Verdict.PLAUSIBLE
        and r.behaviour is not None
        and r.behaviour.label is Behaviour.DIVERGES
        and r.hash in code
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument("--store", required=True, type=Path, help="A run folder judged by the fast engine.")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    sandbox = make_sandbox(True)
    engine = FastEngine(EngineOptions(sandbox=sandbox, cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1)))
    why_not: collections.Counter[str] = collections.Counter()
    totals = collections.Counter[str]()
    root = Path(tempfile.mkdtemp(prefix="divergence-tests-", dir=cache.cache_dir()))
    try:
        with RunStore(args.store, read_only=True) as store:
            print(f"{'bug':18} {'diverges':>8} {'tests':>6} {'show it':>8}")
            for bug in bugs:
                found = divergences(store, bug)
                if not found:
                    continue
                ws = engine.prepare(bug)
                source = ws.buggy_file().read_bytes().decode(ws.encoding)
                written = shown = 0
                for hash, b, code in found:
                    explained = divergence_test(
                        source,
                        bug.buggy_method,
                        bug.start_line,
                        bug.end_line,
                        bug.fixed_method,
                        *b.divergence(),
                    )
                    if not explained.test:
                        why_not[f"{bug.id}: {explained.why_not[:150]}"] += 1
                        continue
                    written += 1
                    result = check(ws, sandbox, code, explained.test, root / bug.id / hash)
                    shown += result.shows
                    if not result.shows:
                        print(
                            f"  {bug.id} {hash[:12]}: on the fix {result.fix[:200]}; on the candidate "
                            f"{result.candidate[:200]}"
                        )
                totals.update(diverges=len(found), written=written, shown=shown)
                print(f"{bug.id:18} {len(found):8} {written:6} {shown:8}")
        print(
            f"{'all':18} {totals['diverges']:8} {totals['written']:6} {totals['shown']:8}   "
            f"({totals['shown']} of {totals['diverges']} divergences come with a test that shows them)"
        )
        if why_not:
            print("no test written:")
            for reason, count in why_not.most_common():
                print(f"  {count:3} {reason}")
    finally:
        engine.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
