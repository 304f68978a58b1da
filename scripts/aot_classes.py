#!/usr/bin/env python3
"""The JDK classes whose code nl2fix's JVMs compile, for ``defects4j_adapter/jvm/aot-classes.txt``.

For each bug it runs what a plausible candidate costs, as the fast engine runs it, unconfined (so that the JIT's
log can be written) and with no precompiled code (``NL2FIX_AOT=0``, else those methods are not compiled and not
seen): the developer's fix with a comment added (a candidate, not the project's own version: compiled, validated
and probed beside the fix), each JVM with ``-XX:+LogCompilation``. It prints the classes of ``aot.MODULES`` (the
JDK's and javac's) any of those JVMs compiled a method of, sorted, one a line; with ``--write`` it replaces the list
(keeping its header). Nothing is judged.

    BUGS=Math-33,Math-82,Math-8,Cli-9,Codec-2,JxPath-5,Csv-1,Compress-1,JacksonCore-3
    python3 scripts/aot_classes.py --write --bugs $BUGS,Collections-26,JacksonXml-1,JacksonDatabind-1
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.jvm import aot, reference_java, runner
from defects4j_adapter.sandbox.providers import make_sandbox

HEADER = "#"


def candidate_of(fixed_method: str) -> str:
    """The developer's fix as a candidate: the same code with a comment before its last brace."""
    head, _, tail = fixed_method.rpartition("}")
    return f"{head}// nl2fix: aot profile\n}}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, limit=1)
    parser.add_argument("--write", action="store_true", help=f"Replace the classes listed in {aot.CLASSES}.")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    os.environ[aot.ENABLE_ENV] = "0"
    java = reference_java.current().jdk
    packages: set[str] = set()
    for module in aot.MODULES:
        described = subprocess.run([java.java, "--describe-module", module], capture_output=True, text=True)
        packages |= aot.module_packages(described.stdout)
    logs = Path(tempfile.mkdtemp(prefix="nl2fix-aot-logs-"))
    logging = ("-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation", f"-XX:LogFile={logs}/%p.log")
    quick, full = runner.QUICK_JIT, runner.FULL_RUN_JIT
    runner.QUICK_JIT, runner.FULL_RUN_JIT = (*quick, *logging), (*full, *logging)
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox(False), cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1))
    )
    try:
        for bug in bugs:
            ws = engine.prepare(bug)
            candidate = candidate_of(bug.fixed_method)
            outcome = engine.run(ws, candidate)
            probe = engine.probe(ws, bug.fixed_method, candidate)
            rows = len(probe.observations)
            print(
                f"{bug.id}: {outcome.phase.value}, {outcome.tests_run} tests, probe {rows} rows {probe.error}",
                file=sys.stderr,
            )
    finally:
        engine.close()
        runner.QUICK_JIT, runner.FULL_RUN_JIT = quick, full
    found: set[str] = set()
    for log in sorted(logs.glob("*.log")):
        found |= aot.jit_compiled_classes(log.read_text(errors="replace"), packages)
    listed = sorted(found)
    print(
        f"{len(listed)} classes of {', '.join(aot.MODULES)} compiled in {len(list(logs.glob('*.log')))} JVMs",
        file=sys.stderr,
    )
    if args.write:
        header = [line for line in aot.CLASSES.read_text().splitlines() if line.startswith(HEADER)]
        aot.CLASSES.write_text("\n".join([*header, *listed]) + "\n")
    else:
        print("\n".join(listed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
