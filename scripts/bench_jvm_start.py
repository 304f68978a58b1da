#!/usr/bin/env python3
"""What a fresh confirming JVM's start costs, and what a class data sharing archive saves of it.

A pass in a warm JVM is confirmed in a fresh JVM started for that one candidate: its start to the
runner's READY is the ``confirm start`` step of ``bench_real.py --replay`` (0.72 CPU-s a plausible
answer of RepairBench's). This starts such one-job JVMs in the sandbox for each bug, taking turns: plain
(the JDK's default archive), without any archive (``-Xshare:off``), and with ``-XX:SharedArchiveFile`` of
an archive of every JDK class the runner loads before READY (made once: their list dumped by a runner
started unconfined, then ``-Xshare:dump``); and prints the CPU-s to READY (median, mean). Only JDK (boot)
classes can be archived: the JVM archives no class of another loader while ``-Djava.system.class.loader``
is set, as the runner's is, nor any from a directory on the class or module path (the runner's module
is one), so the runner's, JUnit's and the project's classes are loaded as before. Nothing is judged.

    python3 scripts/bench_jvm_start.py --bugs Codec-2,Cli-23 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.jvm import reference_java, runner
from defects4j_adapter.sandbox.providers import make_sandbox

ARCHIVE = "jdk-classes.jsa"
"""In the runner's folder, which the sandbox mounts."""


def jdk_archive(engine: FastEngine, classpath: list, out_dir) -> str:
    """An archive of the JDK classes a runner loads to READY; the flag that uses it."""
    listed, archive = out_dir / "classes.lst", engine.runner_dir / ARCHIVE
    argv = runner.jvm_command(
        engine.runner_dir, memory_mb=1024, tmp_dir="/tmp", mode=["serve"], test_classpath=classpath, confined=False
    )
    # its input closed at once: the runner gets as far as READY and ends
    subprocess.run([argv[0], f"-XX:DumpLoadedClassList={listed}", *argv[1:]], input=b"", capture_output=True)
    java = str(reference_java.current().jdk.java)
    dumped = subprocess.run(
        [java, "-Xshare:dump", f"-XX:SharedClassListFile={listed}", f"-XX:SharedArchiveFile={archive}"],
        capture_output=True,
        text=True,
    )
    if dumped.returncode != 0:
        raise SystemExit(f"the archive could not be made: {dumped.stdout[-1000:]}{dumped.stderr[-1000:]}")
    return f"-XX:SharedArchiveFile={archive}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser, limit=1)
    parser.add_argument("--rounds", type=int, default=5, help="JVMs started per bug and variant (default 5).")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox(True), cache_dir=cache.cache_dir(), settings=EngineSettings(workers=1))
    )
    plain = runner.QUICK_JIT
    try:
        for bug in bugs:
            ws = engine.prepare(bug)
            variants = {
                "plain": (),
                "-Xshare:off": ("-Xshare:off",),
                "JDK-class archive": (jdk_archive(engine, list(ws.classpath), engine.options.cache_dir),),
            }
            cpu: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(args.rounds):
                for name, flags in variants.items():
                    runner.QUICK_JIT = (*plain, *flags)
                    jvm = engine._new(ws, one_job=True)
                    jvm.close()
                    cpu[name].append(jvm.startup_cpu)
            print(f"{bug.id}: a one-job JVM's CPU-s to READY, {args.rounds} each (median, mean)")
            for name, values in cpu.items():
                print(f"  {name:18} {statistics.median(values):6.3f} {statistics.mean(values):6.3f}")
    finally:
        runner.QUICK_JIT = plain
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
