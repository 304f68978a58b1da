"""Per-project dataset statistics (the paper's Table 1 columns), computed from the bugs. Pure.

Changed lines and tokens compare the comment-free buggy and fixed methods: a line (token)
replaced counts once, like one added or removed; blank lines and indentation do not count.
Issue lengths are cl100k tokens.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean

from nl2fix.core import tokens
from nl2fix.core.domain import Bug
from nl2fix.java_source.lexer import words
from nl2fix.java_source.text import remove_comments


def changed(a: Sequence[str], b: Sequence[str]) -> int:
    """Units changed between two sequences: per differing block, the larger of its two sides."""
    blocks = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in blocks if op != "equal")


def _lines(method: str) -> list[str]:
    return [line.strip() for line in remove_comments(method).splitlines() if line.strip()]


@dataclass(frozen=True)
class BugStats:
    bug_id: str
    project: str
    method_lines: int
    changed_lines: int
    changed_tokens: int
    title_tokens: int
    description_tokens: int


@dataclass(frozen=True)
class ProjectStats:
    project: str
    bugs: int
    method_lines: float
    changed_lines: float
    changed_tokens: float
    title_tokens: float
    description_tokens: float


def bug_stats(bug: Bug) -> BugStats:
    buggy, fixed = bug.buggy_method_no_comments or remove_comments(bug.buggy_method), bug.fixed_method
    return BugStats(
        bug_id=bug.id,
        project=bug.project,
        method_lines=len(_lines(buggy)),
        changed_lines=changed(_lines(buggy), _lines(fixed)),
        changed_tokens=changed(words(buggy), words(remove_comments(fixed))),
        title_tokens=tokens.count(bug.title),
        description_tokens=tokens.count(bug.description),
    )


def _average(project: str, rows: list[BugStats]) -> ProjectStats:
    return ProjectStats(
        project=project,
        bugs=len(rows),
        method_lines=mean(r.method_lines for r in rows),
        changed_lines=mean(r.changed_lines for r in rows),
        changed_tokens=mean(r.changed_tokens for r in rows),
        title_tokens=mean(r.title_tokens for r in rows),
        description_tokens=mean(r.description_tokens for r in rows),
    )


def project_stats(bugs: Sequence[Bug]) -> list[ProjectStats]:
    """One row per project (alphabetical), then ``All``."""
    rows = [bug_stats(b) for b in bugs]
    by_project: dict[str, list[BugStats]] = {}
    for row in rows:
        by_project.setdefault(row.project, []).append(row)
    table = [_average(p, by_project[p]) for p in sorted(by_project)]
    return table + [_average("All", rows)] if rows else table


COLUMNS = ("Project", "Bugs", "Method lines", "Changed lines", "Changed tokens", "Title tokens", "Description tokens")


def format_table(table: Sequence[ProjectStats]) -> str:
    cells = [COLUMNS] + [
        (
            r.project,
            str(r.bugs),
            f"{r.method_lines:.1f}",
            f"{r.changed_lines:.1f}",
            f"{r.changed_tokens:.1f}",
            f"{r.title_tokens:.1f}",
            f"{r.description_tokens:.1f}",
        )
        for r in table
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
