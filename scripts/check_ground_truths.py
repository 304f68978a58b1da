#!/usr/bin/env python3
"""The class-file check (:mod:`defects4j_adapter.bytecode`) on the dataset's real ground truths:
issue 19's acceptance, no real fix may be rejected by it.

For each selected bug it prepares the fast engine's workspace (the buggy revision checked out and
compiled, in the nl2fix cache), splices the dataset's fixed method into the buggy file, compiles
that one file with the test Java's javac (``-g``, at the workspace's Java level, against the
buggy classes and the class path) into a folder of its own, and asks the check about those
classes, as the rebuild and ``defects4j`` engines do (``class_check.rejection_in``). The buggy
method goes through the same steps as a control: the check must never reject it. Each bug ends
``ok``, ``rejected`` (why), ``could not compile`` or ``could not check`` (per version), or ``could
not prepare``; results are kept in ``--store`` (default ``$NL2FIX_CACHE_DIR/ground-truths``), in
a file named after the check's code, so a rerun skips the bugs already recorded and a changed check
starts afresh. Needs a Defects4J; without one it says so and exits 0.

    python3 scripts/check_ground_truths.py --projects Cli,Csv        # every bug of two projects
    python3 scripts/check_ground_truths.py --bugs Cli-5,Csv-2 --store /tmp/gt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import d4j_bugs

import defects4j_adapter
from defects4j_adapter import cache
from defects4j_adapter.bytecode.classfile import ClassFileError
from defects4j_adapter.contract import EngineOptions, Outcome, Workspace
from defects4j_adapter.engines import class_check, jobs
from defects4j_adapter.workspaces import local as local_workspace
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError

OK, REJECTED, NOT_COMPILED, NOT_CHECKED, NOT_PREPARED = (
    "ok",
    "rejected",
    "could not compile",
    "could not check",
    "could not prepare",
)
STATUSES = (OK, REJECTED, NOT_COMPILED, NOT_CHECKED, NOT_PREPARED)
CHECK_CODE = ("bytecode", "engines/class_check.py")
"""The check's code, under ``defects4j_adapter/``: what the store's file is named after."""


@dataclass
class Version:
    """What the check said of one version of the method (the fixed, or the buggy control)."""

    status: str
    detail: str = ""
    """The rejection, the compiler's first errors, or why the classes could not be read."""


@dataclass
class Finding:
    bug: str
    project: str
    prepare_error: str = ""
    fixed: Version | None = None
    buggy: Version | None = None
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """The ground truth's status (``could not prepare`` when there was no workspace)."""
        return self.fixed.status if self.fixed else NOT_PREPARED

    @classmethod
    def from_json(cls, data: dict) -> Finding:
        versions = {k: Version(**data[k]) if data.get(k) else None for k in ("fixed", "buggy")}
        return cls(**{**data, **versions})


def check_fingerprint() -> str:
    """A short hash of the check's code, so results of another check are not taken for this one's."""
    root = Path(defects4j_adapter.__file__).parent
    files = sorted(
        p for part in CHECK_CODE for p in ([root / part] if (root / part).is_file() else (root / part).rglob("*.py"))
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.relative_to(root)}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:12]


def load(path: Path) -> dict[str, Finding]:
    if not path.is_file():
        return {}
    return {d["bug"]: Finding.from_json(d) for d in json.loads(path.read_text(encoding="utf-8"))}


def save(path: Path, findings: dict[str, Finding]) -> None:
    """Written whole and replaced at once, so an interrupted run leaves the last complete file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    temp.write_text(json.dumps([asdict(f) for f in findings.values()], indent=1) + "\n", encoding="utf-8")
    os.replace(temp, path)


def one_line(text: str, limit: int = 600) -> str:
    return " ".join(text.split())[:limit]


def check_version(ws: Workspace, method: str, work: Path) -> Version:
    """``method`` spliced into the buggy file, compiled alone into ``work/classes``, and checked."""
    source = work / "src" / ws.buggy_file().name
    source.parent.mkdir(parents=True)
    spliced = jobs.write_spliced(ws, method, source)
    if isinstance(spliced, Outcome):
        return Version(NOT_COMPILED, one_line(f"splice: {spliced.harness_error or spliced.compile_errors}"))
    classes = work / "classes"
    result = local_workspace.javac(
        [source], classes, [ws.classes_dir, *ws.classpath], ws.encoding, release=ws.java_release
    )
    if not result.ok:
        errors = local_workspace.first_errors(result.stdout + result.stderr, limit=6, relative_to=source.parent)
        return Version(NOT_COMPILED, one_line(("timed out; " if result.timed_out else "") + errors))
    try:
        reason = class_check.rejection_in(ws, classes)
    except ClassFileError as exc:
        return Version(NOT_CHECKED, one_line(exc.message))
    return Version(REJECTED, reason) if reason else Version(OK)


def check_bug(bug: Bug, options: EngineOptions) -> Finding:
    start = time.monotonic()
    found = Finding(bug.id, bug.project)
    try:
        ws = prepare_workspace(bug, options)
    except Nl2FixError as exc:
        found.prepare_error = one_line(exc.message)
    else:
        with tempfile.TemporaryDirectory(prefix=f"gt-{bug.id}-") as tmp:
            found.fixed = check_version(ws, bug.fixed_method, Path(tmp) / "fixed")
            found.buggy = check_version(ws, bug.buggy_method, Path(tmp) / "buggy")
    found.seconds = round(time.monotonic() - start, 1)
    return found


def summary(findings: Iterable[Finding]) -> list[str]:
    """Counts per project, then every rejected ground truth, every rejected buggy control (a bug
    in the check), and every bug that could not be prepared, compiled or checked."""
    findings = list(findings)
    projects = sorted({f.project for f in findings})
    width = max([len("project"), len("all"), *map(len, projects)])
    lines = [f"{'project':{width}} {'bugs':>5} " + " ".join(f"{s:>{len(s)}}" for s in STATUSES) + " buggy-rejected"]
    for project in [*projects, "all"]:
        of = [f for f in findings if project in (f.project, "all")]
        controls = sum(bool(f.buggy and f.buggy.status == REJECTED) for f in of)
        lines.append(
            f"{project:{width}} {len(of):5} "
            + " ".join(f"{sum(f.status == s for f in of):{len(s)}}" for s in STATUSES)
            + f" {controls:14}"
        )

    def listed(title: str, rows: list[str]) -> None:
        if rows:
            lines.append(f"{title} ({len(rows)}):")
            lines.extend(f"  {row}" for row in rows)

    listed(
        "ground truths the check rejects",
        [f"{f.bug}: {f.fixed.detail}" for f in findings if f.fixed and f.fixed.status == REJECTED],
    )
    listed(
        "BUGGY METHODS the check rejects (a bug in the check)",
        [f"{f.bug}: {f.buggy.detail}" for f in findings if f.buggy and f.buggy.status == REJECTED],
    )
    listed("could not prepare", [f"{f.bug}: {f.prepare_error}" for f in findings if f.prepare_error])
    for name in ("fixed", "buggy"):
        for status in (NOT_COMPILED, NOT_CHECKED):
            listed(
                f"{name} method: {status}",
                [f"{f.bug}: {v.detail}" for f in findings for v in [getattr(f, name)] if v and v.status == status],
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="Where results are kept and resumed from (default $NL2FIX_CACHE_DIR/ground-truths).",
    )
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    path = (args.store or cache.cache_dir() / "ground-truths") / f"check-{check_fingerprint()}.json"
    findings = load(path)
    todo = [b for b in bugs if b.id not in findings]
    print(f"{len(bugs)} bugs selected, {len(bugs) - len(todo)} already recorded in {path}", flush=True)
    projects_dir = Path(args.dataset).parent / "projects"
    options = EngineOptions(
        sandbox=None, cache_dir=cache.cache_dir(), projects_dir=projects_dir if projects_dir.is_dir() else None
    )
    start = time.monotonic()
    for i, bug in enumerate(todo, 1):
        found = findings[bug.id] = check_bug(bug, options)
        save(path, findings)
        said = found.prepare_error or (found.fixed and found.fixed.detail) or ""
        print(
            f"[{i}/{len(todo)}] {bug.id}: {found.status}; buggy {found.buggy.status if found.buggy else '-'} "
            f"({found.seconds:.0f} s){': ' + said[:200] if said else ''}",
            flush=True,
        )
    print("\n".join(["", *summary(findings[b.id] for b in bugs)]))
    print(f"\n{time.monotonic() - start:.0f} s for {len(todo)} bugs; results kept in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
