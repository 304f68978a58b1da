"""Where a fast-engine validation's CPU goes, candidate by candidate, for ``scripts/bench_real.py --replay``.

:func:`install` wraps (never replaces) the fast engine's steps in the ``nl2fix validate`` process it runs
in and adds up, per candidate, the CPU-s each step reported (the JVMs' own CPU, as the engine counts it):
``compile`` (its compiling JVM's job), ``tests`` (the warm test JVM's job), ``confirm`` (the fresh JVM's
job that confirms a pass) and ``confirm start`` (that JVM's start-up to its READY), ``probe compile`` and
``probe`` (the behaviour probe's source compiled, and its run beside the fix), ``recording`` (the bug's
run that finds which tests execute the method, paid by its first candidate), ``probe reference`` (the
developer's fix probed against itself, once a bug), and ``warm start`` / ``compiler start`` (start-ups of
the bug's shared JVMs, which no candidate's verdict counts). Nothing a verdict depends on is touched: each
wrapper calls the engine's own step and reads the CPU-s off its result. At exit the figures go to a JSON
file: ``[{"bug", "hash", "phases": {phase: CPU-s}}]``; a candidate's steps are found by the worker thread
that runs it (:meth:`BugRun.candidate`); steps outside any candidate (the baselines) are the bug's, hash
``""``.
"""

from __future__ import annotations

import atexit
import functools
import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from defects4j_adapter.engines.fast import FastEngine
from nl2fix.validation.bug_work import BugRun

_here = threading.local()
_lock = threading.Lock()
_phases: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))


def _context(name: str) -> str:
    stack = getattr(_here, "stack", [])
    return stack[-1] if stack else name


def _add(phase: str, cpu: float) -> None:
    with _lock:
        _phases[(getattr(_here, "bug", ""), getattr(_here, "hash", ""))][phase] += cpu


def _within(name: str, call: Any) -> Any:
    _here.stack = [*getattr(_here, "stack", []), name]
    try:
        return call()
    finally:
        _here.stack = _here.stack[:-1]


def install(out: str) -> None:
    """Wrap the steps; write what they cost to ``out`` when the process exits."""
    candidate, baselines = BugRun.candidate, BugRun.baselines
    compile_source, judged, new, probe, recording = (
        FastEngine.compile_source,
        FastEngine._in_jvm,
        FastEngine._new,
        FastEngine.probe,
        FastEngine.recording,
    )

    @functools.wraps(candidate)
    def candidate_(self: BugRun, hash: str, code: str) -> Any:
        _here.bug, _here.hash = self.bug.id, hash
        try:
            return candidate(self, hash, code)
        finally:
            _here.hash = ""

    @functools.wraps(baselines)
    def baselines_(self: BugRun, *args: Any, **kwargs: Any) -> Any:
        _here.bug, _here.hash = self.bug.id, ""
        return baselines(self, *args, **kwargs)

    @functools.wraps(compile_source)
    def compile_source_(self: FastEngine, *args: Any, **kwargs: Any) -> Any:
        made = compile_source(self, *args, **kwargs)
        _here.compiled = getattr(_here, "compiled", 0.0) + made.cpu_seconds
        where = _context("")
        _add(
            "probe compile" if where.startswith("probe") else "recording" if where == "recording" else "compile",
            made.cpu_seconds,
        )
        return made

    @functools.wraps(judged)
    def judged_(self: FastEngine, *args: Any, **kwargs: Any) -> Any:
        confirming = kwargs.get("confirming", False)
        before = _compiled_so_far()
        outcome, fresh = _within("confirm" if confirming else _context("tests"), lambda: judged(self, *args, **kwargs))
        # its own compile (the recording's runs compile the buggy method) is counted by compile_source_
        _add(_context("confirm" if confirming else "tests"), outcome.cpu_seconds - (_compiled_so_far() - before))
        return outcome, fresh

    @functools.wraps(new)
    def new_(self: FastEngine, ws: Any, *args: Any, **kwargs: Any) -> Any:
        # as the engine under measure takes them: a baseline tree's may be older than this script
        jvm = new(self, ws, *args, **kwargs)
        compiler = kwargs.get("compiler", args[1] if len(args) > 1 else False)
        where = _context("")
        if compiler:
            _add("compiler start", jvm.startup_cpu)
        elif where == "confirm":
            # counted in the confirming job's CPU-s by the engine: moved from "confirm" to its own phase
            _add("confirm start", jvm.startup_cpu)
            _add("confirm", -jvm.startup_cpu)
        else:
            _add("warm start", jvm.startup_cpu)
        return jvm

    @functools.wraps(probe)
    def probe_(self: FastEngine, ws: Any, reference: str, cand: str, **kwargs: Any) -> Any:
        name = "probe reference" if cand == reference else "probe"
        before = _compiled_so_far()
        run = _within(name, lambda: probe(self, ws, reference, cand, **kwargs))
        _add(name, run.cpu_seconds - (_compiled_so_far() - before))
        return run

    @functools.wraps(recording)
    def recording_(self: FastEngine, ws: Any) -> Any:
        return _within("recording", lambda: recording(self, ws))

    BugRun.candidate, BugRun.baselines = candidate_, baselines_  # type: ignore[method-assign]
    FastEngine.compile_source, FastEngine._in_jvm, FastEngine._new = compile_source_, judged_, new_  # type: ignore[method-assign]
    FastEngine.probe, FastEngine.recording = probe_, recording_  # type: ignore[method-assign,assignment]
    atexit.register(lambda: _write(Path(out)))


def _compiled_so_far() -> float:
    """This thread's compiles' CPU-s so far (a step's own compiles, counted by compile_source_, are
    subtracted from the step's CPU-s)."""
    return getattr(_here, "compiled", 0.0)


def _write(out: Path) -> None:
    rows = [
        {"bug": bug, "hash": hash, "phases": {k: round(v, 3) for k, v in phases.items()}}
        for (bug, hash), phases in _phases.items()
    ]
    kept = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(kept + rows, indent=1) + "\n")
