"""How much CPU a candidate's test may use: paced to what the reference (the developer's fix) took.

The runner gives every test of a job one CPU limit. Two kinds of run ask for less than the user's
``--test-timeout``:

- a JVM that judged other candidates (:meth:`Pace.used`): a limit met there is never the verdict, a fresh
  JVM judges the candidate again. Waiting out the full limit there only made a loop cost twice.
- a fresh JVM, whose time limit is the verdict's (:meth:`Pace.fresh`): :data:`FRESH_FLOOR` plus
  ``--timeout-pace`` times the longest the reference took on any test of the bug, at most the user's
  limit. A candidate that loops is ``timeout`` at that limit, not after the full one (RepairBench's
  looping answers cost 10-12 CPU-s each, most of all answers' CPU). A correct answer meets it only by
  being that many times slower than the fix on some test and slower than the floor, as mutation testing's
  timeouts are a factor of the unmutated run's (PIT: 1.25 x + 4 s; cargo-mutants: 5 x, 20 s at least).

What the reference took is the wall-clock milliseconds the runner reported for each test (no less than its
CPU time), the longest of every run seen in a JVM no candidate's code ran in (a candidate's leftovers could
slow it down, and loosen every later limit). It is kept in the cache beside the bug's recording, so a run that
resumes in another process paces as the first did; until it is known, no run is paced. A loaded machine can
only make it longer, and a limit looser.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.contract import Workspace
from defects4j_adapter.engines.runner_output import ReportedTest

WARM_TEST_LIMIT = 2.0
"""CPU-s a candidate's test may use in a JVM that ran other candidates' code, at most (RepairBench's answers:
timeouts were 6 % of the candidates and half the CPU while it was the full limit)."""
WARM_PACE = 5
"""How many times the longest the reference took on a used JVM's tests such a JVM gives a candidate's test. Its
limit is never the verdict, so a lower one changes none: a candidate it stops is judged in a fresh JVM, where a
pass is confirmed anyway; it only makes a loop cheaper before that. RepairBench's 264 wrong answers to 12 bugs
judged in used JVMs: none had a test within 80 % of 3 times the fix's (0.25 s at least); at 10 times, Cli-23's
24 looping answers spent 0.7 CPU-s each there."""
WARM_FLOOR = 0.3
"""The least CPU-s a candidate's test is given in a used JVM, however fast the reference: a test's first run in
a job loads and interprets the project's classes anew."""
FRESH_FLOOR = 1.0
"""The least CPU-s a fresh JVM gives a candidate's test when paced: it loads the JDK's, JUnit's and the
project's classes, interpreted, and may run with the quick JIT compiler only. The reference's times were taken
in such a JVM, its first test's loading included. RepairBench's 122 plausible answers to 12 bugs (their confirming
JVMs' reports): none came within 0.03 s of ten times the fix's slowest test, so no floor would have timed one out;
at 2 CPU-s, Cli-23's 24 looping answers were two fifths of all answers' verdict CPU."""
SUBDIR = "pace"


@dataclass(frozen=True)
class Limit:
    """A run's CPU limit per test, and why it is less than the user's, when it is."""

    seconds: float
    why: str = ""


def reference_of(ws: Workspace) -> str:
    """The method whose runs pace the candidates': the developer's fix, else the tree as it is."""
    return ws.bug.fixed_method or ws.bug.buggy_method


class Pace:
    """Per workspace, the longest each test took on the reference; kept under ``cache_dir`` (None: in
    memory only)."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._millis: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()

    def _path(self, ws: Workspace) -> Path | None:
        if self._cache_dir is None:
            return None
        key = hashlib.sha256(
            "\n".join((str(ws.root), ws.bug.id, reference_of(ws), *ws.trigger_tests, "|", *ws.relevant_tests)).encode()
        ).hexdigest()[:24]
        return self._cache_dir / SUBDIR / ws.bug.id / f"{key}.json"

    def _of(self, ws: Workspace) -> dict[str, int]:
        """Under the lock: the workspace's times, read from the cache the first time."""
        key = str(ws.root)
        if key not in self._millis:
            path, kept = self._path(ws), {}
            try:
                if path is not None:
                    kept = {str(k): int(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
            except (OSError, ValueError, AttributeError, TypeError):
                kept = {}  # a missing or damaged file: paced again once the reference has run
            self._millis[key] = kept
        return self._millis[key]

    def saw(self, ws: Workspace, tests: Iterable[ReportedTest]) -> None:
        """The reference ran ``tests``: the longest each took so far is kept, and saved when it grew."""
        with self._lock:
            millis = self._of(ws)
            grew = False
            for test in tests:
                if test.millis > millis.get(test.name, -1):
                    millis[test.name], grew = test.millis, True
            path = self._path(ws)
            if grew and path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
                tmp.write_text(json.dumps(millis, sort_keys=True), encoding="utf-8")
                tmp.replace(path)

    def known(self, ws: Workspace) -> bool:
        """Whether the reference has been seen to run this workspace's tests."""
        with self._lock:
            return bool(self._of(ws))

    def used(self, ws: Workspace, tests: tuple[str, ...] | None) -> Limit:
        """The limit of a JVM that judged other candidates, running ``tests`` (None: every test, not paced):
        :data:`WARM_PACE` times the longest the reference took on them, between :data:`WARM_FLOOR` and
        :data:`WARM_TEST_LIMIT`; that limit where the reference was not seen on one of them."""
        if tests is None:
            return Limit(WARM_TEST_LIMIT)
        with self._lock:
            millis = self._of(ws)
            took = [millis.get(t) for t in tests]
        if not took or None in took:
            return Limit(WARM_TEST_LIMIT)
        return Limit(min(WARM_TEST_LIMIT, max(WARM_FLOOR, WARM_PACE * max(t or 0 for t in took) / 1000)))

    def fresh(self, ws: Workspace, cap: float, pace: float) -> Limit:
        """The limit of a fresh JVM, the verdict's: :data:`FRESH_FLOOR` plus ``pace`` times the longest the
        reference took on any test, at most ``cap`` (the user's); ``cap`` when ``pace`` is 0 or nothing is known."""
        with self._lock:
            longest = max(self._of(ws).values(), default=None)
        if not pace or longest is None or FRESH_FLOOR + pace * longest / 1000 >= cap:
            return Limit(cap)
        seconds = FRESH_FLOOR + pace * longest / 1000
        reference = "the developer's fix" if ws.bug.fixed_method else "the tree as it is"
        why = (
            f"each test had {seconds:.2f} CPU-s: {FRESH_FLOOR:g} + {pace:g} times the {longest / 1000:.3f} s "
            f"{reference} took on its slowest test (--timeout-pace {pace:g}; --test-timeout {cap:g} at most)"
        )
        return Limit(seconds, why)
