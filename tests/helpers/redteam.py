"""The red team's harness, shared by its rounds (``tests/defects4j_adapter/engines/test_redteam_*.py``):
an engine over a benchmark's projects with room for a loaded machine, a candidate's record as
validation stores it, and what a method does where nl2fix is not (the user's own build and JVM).
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

from defects4j_adapter.contract import Outcome, ValidationEngine, Workspace
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.sandbox.base import Sandbox
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Bug, Verdict
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.verdicts import passing_on_fix, record_of
from tests.helpers.minibench import engine_options
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples" / "benchmark"
"""The bundled example benchmark, whose Textkit-1 most rounds attack."""


def attack_engine(kind: str, cache: Path, box: Sandbox, projects_dir: Path = EXAMPLES / "projects") -> ValidationEngine:
    """The ``fast`` or ``rebuild`` engine over ``projects_dir`` in ``box``. The candidate's limit is 60 s,
    not the mini benchmark's 20: time limits are not what these tests are about, and a rebuild on a loaded
    machine (a load of 19 on 2 cores) took the 20 s."""
    options = engine_options(cache, sandbox=box, projects_dir=projects_dir, candidate_timeout=60.0)
    return (FastEngine if kind == "fast" else RebuildEngine)(options)


def judged(
    engine: ValidationEngine, ws: Workspace, code: str, required: frozenset[str] = frozenset()
) -> tuple[Outcome, ValidationRecord]:
    """``code``'s outcome on ``engine`` and its record as validation stores it (the tests it passed kept,
    so that the fixed version's record gives ``required``: what a candidate must pass)."""
    outcome = engine.run(ws, code, stop_at_first_failure=True)
    return outcome, record_of(
        outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, passes_on_fix=required, keep_passed=True
    )


def verdict(
    engine: ValidationEngine, ws: Workspace, code: str, required: frozenset[str] = frozenset()
) -> ValidationRecord:
    """``code``'s record (:func:`judged`)."""
    return judged(engine, ws, code, required)[1]


@contextlib.contextmanager
def fix_guarded(
    cache: Path, bug: Bug, box: Sandbox | None = None
) -> Iterator[tuple[ValidationEngine, Workspace, frozenset[str]]]:
    """``(engine, workspace, required)``: the fast engine under bubblewrap (``box`` when given) over the example
    benchmark, ``bug``'s workspace and the fix's passes (one warm JVM for all; every pass is confirmed in a fresh
    JVM, which decides). The fix is judged first (it must be ``plausible``) and again at the end: no payload
    judged in between may change what it gets."""
    engine = attack_engine("fast", cache, box or make_sandbox("bwrap"))
    try:
        ws = engine.prepare(bug)
        fix = verdict(engine, ws, bug.fixed_method)
        assert fix.verdict is Verdict.PLAUSIBLE, fix
        required = passing_on_fix(fix)
        yield engine, ws, required
        assert verdict(engine, ws, bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    finally:
        engine.close()


def outside_nl2fix(
    tmp_path: Path, bug: Bug, methods: dict[str, str], arguments: str = '"abc", "abd"'
) -> dict[str, str]:
    """``indexOfDifference(<arguments>)`` (Java source; ``"abc", "abd"`` unless told) with each method of
    ``methods`` in its own copy of the project's package (``org.textkit.<name>``), compiled by one javac and
    run by one plain JVM on its main thread (the user's build, production): what each method does where
    nl2fix is not, by name (a throw prints as one ``!`` and the throwable's class)."""
    package = EXAMPLES / "projects" / "Textkit" / "fixed" / "src" / "main" / "java" / "org" / "textkit"
    calls = []
    for name, method in methods.items():
        src = tmp_path / "src" / "org" / "textkit" / name
        for java in package.glob("*.java"):
            # Accents.java is Latin-1 (the project's own encoding); the others are ASCII
            text = java.read_text(encoding="latin-1").replace("package org.textkit;", f"package org.textkit.{name};")
            if java.name == "Strings.java":
                assert bug.fixed_method in text
                text = text.replace(bug.fixed_method, method)
            (src / java.name).parent.mkdir(parents=True, exist_ok=True)
            (src / java.name).write_text(text, encoding="latin-1")
        calls.append(
            f'try {{ System.out.println("{name}=" + org.textkit.{name}.Strings.indexOfDifference({arguments})); }} '
            f'catch (Throwable t) {{ System.out.println("{name}=!" + t.getClass().getName()); }}'
        )
    (tmp_path / "src" / "Check.java").write_text(
        "public class Check { public static void main(String[] a) { " + " ".join(calls) + " } }", encoding="utf-8"
    )
    out = tmp_path / "classes"
    subprocess.run(
        ["javac", "-encoding", "ISO-8859-1", "-d", str(out), *map(str, sorted((tmp_path / "src").rglob("*.java")))],
        check=True,
    )
    # started in the copy's folder, whose src/ its owner can write, as a user's build runs in the checkout
    lines = subprocess.run(
        ["java", "-cp", str(out), "Check"], check=True, capture_output=True, text=True, cwd=tmp_path
    ).stdout
    return dict(line.split("=", 1) for line in lines.splitlines())
