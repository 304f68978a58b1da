"""The class-file check (:mod:`defects4j_adapter.bytecode`) where each engine has a candidate's
classes: the fast engine from the runner's signed report (as compiled, before any of their code
ran), the rebuild and ``defects4j`` engines from the folder javac or Defects4J compiled into, before
any test runs. The buggy version's classes come from the workspace's compiled classes, read once
per bug.

A project compiled without debug information (``-g:none``) does not say which source file a class
came from; its classes are then chosen by name (the file's class and those nested in it), and a
compiled folder is also held against the buggy one for class files that were not there before,
so a top-level class the candidate's file adds under any name is still found.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from defects4j_adapter.bytecode.check import Rejection, check, classes_of_source
from defects4j_adapter.bytecode.classfile import ClassFileError
from defects4j_adapter.contract import Outcome, Workspace
from defects4j_adapter.engines import jobs
from nl2fix.java_source.methods import main_method


def _package(ws: Workspace) -> str:
    return next(iter(jobs.package_of(ws)), "")


def _folder(root: Path, package: str) -> Path:
    return root.joinpath(*package.split(".")) if package else root


def _named_for(class_name: str, stem: str) -> bool:
    """Whether a class is the file's top-level class or one nested in it, by name."""
    return class_name == stem or class_name.startswith(stem + "$")


def _by_name(root: Path, package: str, stem: str) -> dict[str, bytes]:
    """The file's top-level class and the classes nested in it, by file name."""
    prefix = f"{package.replace('.', '/')}/" if package else ""
    return {
        prefix + p.stem: p.read_bytes()
        for p in sorted(_folder(root, package).glob("*.class"))
        if _named_for(p.stem, stem)
    }


def _select(root: Path, package: str, source: Path) -> dict[str, bytes]:
    """The classes under ``root`` compiled from ``source``: by their SourceFile, else by name."""
    try:
        return classes_of_source(root, package, source.name)
    except ClassFileError:
        return _by_name(root, package, source.stem)


@functools.lru_cache(maxsize=64)
def _buggy(classes_dir: Path, target: Path, package: str) -> tuple[tuple[str, bytes], ...]:
    return tuple(sorted(_select(classes_dir, package, target).items()))


def _method_name(ws: Workspace) -> str:
    span = main_method(ws.bug.buggy_method)
    if span is None:
        raise ClassFileError(f"no method declaration in {ws.bug.id}'s buggy method")
    return span.name


def _reason(found: Rejection | None) -> str:
    return f"{found.kind.value}: {found.reason}" if found else ""


def rejection(ws: Workspace, candidate: Mapping[str, bytes]) -> str:
    """Why the classes compiled from the candidate's file (internal name -> bytes) may not run;
    ``""`` when they may. Raises :class:`ClassFileError` when the classes cannot be read."""
    buggy = dict(_buggy(ws.classes_dir, ws.buggy_file(), _package(ws)))
    if not buggy:
        raise ClassFileError(f"no compiled class of {ws.buggy_file().name} in {ws.classes_dir}")
    return _reason(check(buggy, candidate, _method_name(ws)))


def rejection_in(ws: Workspace, classes_root: Path) -> str:
    """:func:`rejection` of the classes compiled into ``classes_root`` (a whole build: a class file
    in the candidate's package that the buggy build has no file for is refused too)."""
    package = _package(ws)
    before = {p.name for p in _folder(ws.classes_dir, package).glob("*.class")}
    added = sorted(p.stem for p in _folder(classes_root, package).glob("*.class") if p.name not in before)
    stem = ws.buggy_file().stem
    foreign = [name for name in added if not _named_for(name, stem)]
    if foreign:
        return f"structure: the candidate's file adds the class {'.'.join(filter(None, [package, foreign[0]]))}"
    return rejection(ws, _select(classes_root, package, ws.buggy_file()))


def remove_compiled(ws: Workspace, classes_root: Path) -> None:
    """Delete the class files compiled from the target file (by name) under ``classes_root``."""
    for compiled in _folder(classes_root, _package(ws)).glob("*.class"):
        if _named_for(compiled.stem, ws.buggy_file().stem):
            compiled.unlink()


def from_report(class_files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The runner's class files (binary names with dots) by internal name."""
    return {name.replace(".", "/"): data for name, data in class_files.items()}


def checked(outcome: Outcome, why_not: Callable[[], str]) -> Outcome:
    """``outcome`` with the check's rejection (``why_not()``) set, or its failure to read the
    classes as the harness's error."""
    try:
        return replace(outcome, rejection=why_not())
    except ClassFileError as exc:
        return replace(outcome, harness_error=f"the class-file check could not read the classes: {exc.message}")
