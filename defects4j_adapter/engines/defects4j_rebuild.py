"""A whole-project rebuild of a Defects4J checkout, done by Defects4J's own build.

When a candidate changes its method's declaration in a way other classes can see (see
:mod:`defects4j_adapter.engines.declaration`), every class must be compiled again. For a Defects4J bug
that compile is Defects4J's: ``defects4j compile`` on a fresh copy of the pristine checkout (as the
defects4j engine judges in) with the candidate spliced in and every compiled class removed first,
so the result is what a fresh checkout would give -- same javac, levels, encoding, class path,
never stricter than Defects4J. The tests then run with nl2fix's runner, confined, on the classes
of that copy (``tests``, the fast engine's path); the copy is removed afterwards.

The build runs the project's build files, so it is confined as the defects4j engine's are
(:mod:`~defects4j_adapter.workspaces.confined_defects4j`): the engine's sandbox (bubblewrap on the
host for ``--sandbox docker``), which shows it that copy alone writable and Defects4J read-only.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from defects4j_adapter.contract import EngineOptions, Outcome, Phase, Workspace
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines import defects4j as d4j_engine
from defects4j_adapter.engines import jobs
from defects4j_adapter.workspaces import confined_defects4j
from defects4j_adapter.workspaces import defects4j as d4j_workspace

NOTE = "the declaration changed in a way other classes can see: Defects4J compiled the whole project again"


def is_checkout(ws: Workspace) -> bool:
    return (ws.root / d4j_workspace.CONFIG_FILE).is_file()


def _in(slot: Path, ws: Workspace, path: Path) -> Path:
    return slot / path.relative_to(ws.root)


class Defects4JRebuild:
    def __init__(self, options: EngineOptions):
        self.options = options
        self._d4j: d4j_cli.Defects4J | None = None

    @property
    def d4j(self) -> d4j_cli.Defects4J:
        if self._d4j is None:
            self._d4j = confined_defects4j.confined(d4j_cli.Defects4J.find(), self.options.sandbox)
        return self._d4j

    def run(
        self, ws: Workspace, method: str, *, log_dir: Path | None, tests: Callable[[Workspace], Outcome]
    ) -> Outcome:
        """Splice ``method`` into a slot, compile it with Defects4J, then ``tests(slot workspace)``."""
        start = time.monotonic()
        with d4j_workspace.candidate_slot(ws.root, self.options.settings.workers) as slot:
            outcome = self._in_slot(ws, slot, method, log_dir, tests)
        return replace(outcome, wall_seconds=time.monotonic() - start).noted(NOTE, first=True)

    def _in_slot(
        self, ws: Workspace, slot: Path, method: str, log_dir: Path | None, tests: Callable[[Workspace], Outcome]
    ) -> Outcome:
        buggy_file = ws.buggy_file()
        spliced = jobs.write_spliced(ws, method, _in(slot, ws, buggy_file))
        if isinstance(spliced, Outcome):
            return spliced
        # a class kept from the buggy build was compiled against the old declaration: none is kept
        for folder in (ws.classes_dir, ws.test_classes_dir):
            shutil.rmtree(_in(slot, ws, folder), ignore_errors=True)
        built = self.d4j.compile(slot)
        jobs.keep(
            log_dir, {buggy_file.name: spliced.path, "defects4j-compile.log": built.result.stdout + built.result.stderr}
        )
        outcome, go_on = d4j_engine.absorb_compile(Outcome(phase=Phase.COMPILE, compiled=False), built)
        if not go_on:
            return outcome.noted(spliced.note, first=True)
        # the tests read the slot's classes; the candidate's file is spliced again from the
        # pristine one, as on the fast path
        tested = tests(
            replace(
                ws,
                root=slot,
                classes_dir=_in(slot, ws, ws.classes_dir),
                test_classes_dir=_in(slot, ws, ws.test_classes_dir),
            )
        )
        return tested.costing(outcome.cpu_seconds)
