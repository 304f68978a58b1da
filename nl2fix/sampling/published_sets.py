"""Published patch sets read into answers: RepairBench's folders, unified diffs of whole files, JSON
lines of method texts. Reading only; :mod:`nl2fix.sampling.importing` turns answers into samples.

- ``repairbench``: ``[<model>/<benchmark>/patches/]<Bug>/<verdict>/<i>.diff`` beside ``<Bug>/target.diff``
  (RepairBench's ``results/`` folder, one model's folder, or its ``patches/``). Each ``<i>.diff`` is a
  diff of the whole function; the verdict is its folder (``exact_match`` and ``ast_match`` answers are
  plausible too: RepairBench files an answer under the best category it reached). The model is the
  folder above ``<benchmark>/patches``, else the folder given.
- ``diff``: ``[<model>/]<Bug>/<name>.diff`` (or ``.patch``): a unified diff of the bug's source file.
- ``methods``: a JSON lines file, one ``{"bug", "model", "text"[, "verdict"]}`` per answer.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core import bug_ids
from nl2fix.core.errors import Nl2FixError


class Format(str, enum.Enum):
    REPAIRBENCH = "repairbench"
    DIFF = "diff"
    METHODS = "methods"


class Kind(str, enum.Enum):
    """What an answer's text is."""

    METHOD = "method"
    """A method (or an answer holding one): extracted as a model's answer is."""
    FUNCTION_DIFF = "function-diff"
    """A diff of the whole function (RepairBench), applied to the publisher's buggy function."""
    FILE_DIFF = "file-diff"
    """A unified diff of the bug's source file, applied to the buggy file; the method is taken out."""


REPAIRBENCH_VERDICTS = {
    # folder: (plausible, compiled), RepairBench's categories from best to worst
    "exact_match": (True, True),
    "ast_match": (True, True),
    "plausible": (True, True),
    "compilable": (False, True),
    "non_compilable": (False, False),
}
PLAUSIBLE_WORDS = {"plausible", "exact_match", "ast_match", "correct", "pass", "passed", "true"}
"""Verdict words of a methods file read as plausible; any other word is a verdict that is not."""
DIFF_SUFFIXES = (".diff", ".patch")


@dataclass(frozen=True)
class Answer:
    """One published answer for one bug."""

    bug: str
    """The bug as the set names it (``Chart-1``)."""
    model: str
    text: str
    kind: Kind
    source: str
    """Where in the set it is: a path relative to the set, or ``file:line``."""
    verdict: str | None = None
    plausible: bool | None = None
    compiled: bool | None = None
    base: str | None = None
    """For a function diff: the publisher's buggy function (the old side of its ``target.diff``)."""


def _side(diff: str, mark: str) -> str:
    lines, in_hunk = [], False
    for line in diff.split("\n"):
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line[:1] in (" ", mark):
            lines.append(line[1:])
        elif in_hunk and line == "":
            lines.append("")
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def old_side(diff: str) -> str:
    """The text a diff was made from: its context and removed lines (a diff with full context, as
    RepairBench's ``target.diff``, gives the whole file)."""
    return _side(diff, "-")


def new_side(diff: str) -> str:
    """The text a diff makes: its context and added lines."""
    return _side(diff, "+")


def whole(diff: str) -> bool:
    """Whether the diff is one hunk from line 1 (RepairBench's, with the whole function as context): its
    new side is the whole new function. RepairBench's context lines are the answer's own where only
    whitespace changed (``item!= null`` beside the original's ``item != null``), so such a diff is read,
    not applied."""
    hunks = [line for line in diff.split("\n") if line.startswith("@@")]
    return len(hunks) == 1 and hunks[0].startswith("@@ -1,")


def detect(path: Path) -> Format:
    """The format of ``path``: a file is JSON lines of methods; a folder with RepairBench's verdict
    folders is RepairBench's; any other folder of diffs is file diffs."""
    if not path.exists():
        raise Nl2FixError(f"{path} does not exist", "pass a published set's folder or JSON lines file")
    if path.is_file():
        return Format.METHODS
    for file in path.rglob("*.diff"):
        if file.parent.name in REPAIRBENCH_VERDICTS:
            return Format.REPAIRBENCH
    return Format.DIFF


def read(path: Path, fmt: Format | None = None, model: str | None = None) -> list[Answer]:
    """Every answer of the set at ``path`` (``model``: for sets that do not name theirs)."""
    fmt = fmt or detect(path)
    if fmt is Format.METHODS:
        return _methods(path, model)
    if not path.is_dir():
        raise Nl2FixError(f"{path} is not a folder", f"--format {fmt.value} reads a folder")
    return _repairbench(path, model) if fmt is Format.REPAIRBENCH else _file_diffs(path, model)


def costs(root: Path, fmt: Format, model: str | None = None) -> dict[str, float]:
    """Dollars per model as RepairBench publishes them (``<model>/<benchmark>/costs_*.json``'s
    ``total_cost``, summed over its files); empty for the other formats."""
    if fmt is not Format.REPAIRBENCH:
        return {}
    found: dict[str, float] = {}
    for file in sorted(root.rglob("costs_*.json")):
        parts = file.relative_to(root).parts
        # <model>/<benchmark>/costs_*.json, or the model's own folder given
        name = model or (
            parts[-3] if len(parts) >= 3 else root.resolve().name if len(parts) == 2 else root.resolve().parent.name
        )
        try:
            total = json.loads(_read_text(file)).get("total_cost")
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(total, (int, float)):
            found[name] = found.get(name, 0.0) + float(total)
    return found


def _bug_at(parts: tuple[str, ...]) -> int | None:
    """The position of the last path part that names a bug (``Chart-1``)."""
    return next(
        (i for i in range(len(parts) - 1, -1, -1) if bug_ids.canonical_key(parts[i]) is not None and "-" in parts[i]),
        None,
    )


def _model_of(root: Path, parts: tuple[str, ...], bug_at: int, skip: int, given: str | None) -> str:
    """``given``, else the folder ``skip`` levels above the bug's (counted on the whole path, so that a
    set given as ``<model>/defects4j/patches`` still names its model)."""
    if given:
        return given
    whole = root.resolve().parts
    at = len(whole) + bug_at - 1 - skip
    return (whole + parts)[at] if at > 0 else root.resolve().name


def _read_text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return file.read_text(encoding="latin-1")


def _repairbench(root: Path, model: str | None) -> list[Answer]:
    answers = []
    for file in sorted(root.rglob("*.diff")):
        folder = file.parent.name
        if folder not in REPAIRBENCH_VERDICTS:
            continue
        parts = file.relative_to(root).parts
        bug_at = _bug_at(parts[:-2])
        if bug_at is None:
            continue
        target = file.parent.parent / "target.diff"
        # <model>/<benchmark>/patches/<Bug>: the model is three folders above the bug's
        above = (root.resolve().parts + parts[:bug_at])[-1:]
        skip = 2 if above == ("patches",) else 0
        plausible, compiled = REPAIRBENCH_VERDICTS[folder]
        answers.append(
            Answer(
                bug=parts[bug_at],
                model=_model_of(root, parts, bug_at, skip, model),
                text=_read_text(file),
                kind=Kind.FUNCTION_DIFF,
                source="/".join(parts),
                verdict=folder,
                plausible=plausible,
                compiled=compiled,
                base=old_side(_read_text(target)) if target.is_file() else None,
            )
        )
    return sorted(answers, key=lambda a: (a.model, a.bug, _number(a.source)))


def _number(source: str) -> tuple[int, str]:
    """``.../3.diff`` sorts as sample 3 (RepairBench numbers its samples), then by path."""
    stem = source.rsplit("/", 1)[-1].split(".", 1)[0]
    return (int(stem), source) if stem.isdigit() else (1 << 30, source)


def _file_diffs(root: Path, model: str | None) -> list[Answer]:
    answers = []
    for file in sorted(f for f in root.rglob("*") if f.is_file() and f.name.endswith(DIFF_SUFFIXES)):
        parts = file.relative_to(root).parts
        bug_at = _bug_at(parts[:-1])
        if bug_at is None:
            raise Nl2FixError(
                f"{file}: no folder of its path names a bug",
                "lay diffs out as [MODEL/]BUG/NAME.diff, e.g. gpt-4o/Chart-1/0.diff",
            )
        answers.append(
            Answer(
                bug=parts[bug_at],
                model=_model_of(root, parts, bug_at, 0, model),
                text=_read_text(file),
                kind=Kind.FILE_DIFF,
                source="/".join(parts),
            )
        )
    return answers


def _methods(path: Path, model: str | None) -> list[Answer]:
    answers = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Nl2FixError(f"{where} is not JSON: {exc}", "one JSON object per line") from exc
        if not isinstance(row, dict) or not isinstance(row.get("bug"), str) or not isinstance(row.get("text"), str):
            raise Nl2FixError(
                f"{where} has no `bug` and `text` strings",
                'each line is {"bug": "Chart-1", "model": "...", "text": "...", "verdict": "..."}',
            )
        name = row.get("model") or model
        if not isinstance(name, str) or not name:
            raise Nl2FixError(f"{where} names no model", "add a `model` field, or pass --model NAME")
        verdict = row.get("verdict")
        word = None if verdict is None else str(verdict).strip().lower()
        answers.append(
            Answer(
                bug=row["bug"],
                model=name,
                text=row["text"],
                kind=Kind.METHOD,
                source=where,
                verdict=word,
                plausible=None if word is None else word in PLAUSIBLE_WORDS,
            )
        )
    return answers
