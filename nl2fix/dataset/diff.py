"""Compare two NL2Fix dataset files bug by bug: ``nl2fix dataset diff A B``.

Bugs are paired by id (``Cli-4``), not by key, so that a method whose lines moved is reported as a
drifted range of the same bug. For each pair: file and line range, the buggy and fixed methods
(exactly, and ignoring comments and whitespace), and each issue text (exactly, after markup is
turned into plain text and whitespace folded, or empty on one side).
"""

from __future__ import annotations

import enum
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import parse_key
from nl2fix.dataset.markup import jira_to_text, markdown_to_text
from nl2fix.java_source.text import normalise

METHOD_FIELDS = ("src", "fixed_src")
TEXT_FIELDS = ("summary", "Description", "comments", "issue_url")


class Same(str, enum.Enum):
    """How alike two values are, best first."""

    EQUAL = "equal"
    NORMALISED = "equal ignoring comments/whitespace/markup"
    EMPTY_A = "empty in A"
    EMPTY_B = "empty in B"
    DIFFERENT = "different"


@dataclass(frozen=True)
class Entry:
    key: str
    path: str
    start: int
    end: int
    record: dict


@dataclass
class BugDiff:
    bug_id: str
    a: Entry
    b: Entry
    fields: dict[str, Same]

    @property
    def range(self) -> str:
        if self.a.path != self.b.path:
            return "other file"
        if (self.a.start, self.a.end) == (self.b.start, self.b.end):
            return "same"
        if self.a.end - self.a.start == self.b.end - self.b.start:
            return f"shifted {self.b.start - self.a.start:+d} lines"
        return f"{self.a.start}-{self.a.end} vs {self.b.start}-{self.b.end}"


@dataclass
class DatasetDiff:
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    pairs: list[BugDiff] = field(default_factory=list)

    def field_counts(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for p in self.pairs:
            for name, verdict in p.fields.items():
                out.setdefault(name, Counter())[verdict] += 1
        return out

    def to_json(self) -> dict:
        return {
            "only_in_a": self.only_a,
            "only_in_b": self.only_b,
            "in_both": len(self.pairs),
            "same_range": sum(p.range == "same" for p in self.pairs),
            "fields": {name: {v.value: n for v, n in counts.items()} for name, counts in self.field_counts().items()},
            "bugs": [
                {
                    "bug": p.bug_id,
                    "a": p.a.key,
                    "b": p.b.key,
                    "range": p.range,
                    **{n: v.value for n, v in p.fields.items()},
                }
                for p in self.pairs
            ],
        }

    def lines(self, details: bool = True) -> list[str]:
        both = len(self.pairs)
        out = [
            f"bugs only in A: {len(self.only_a)}" + (f" ({', '.join(self.only_a)})" if details and self.only_a else ""),
            f"bugs only in B: {len(self.only_b)}" + (f" ({', '.join(self.only_b)})" if details and self.only_b else ""),
            f"bugs in both: {both}",
        ]
        if not both:
            return out
        ranges = Counter(
            "same"
            if p.range == "same"
            else "shifted"
            if p.range.startswith("shifted")
            else p.range
            if p.range == "other file"
            else "resized"
            for p in self.pairs
        )
        out.append("  line range: " + ", ".join(f"{n} {k}" for k, n in ranges.most_common()))
        for name, counts in self.field_counts().items():
            out.append(f"  {name}: " + ", ".join(f"{counts[v]} {v.value}" for v in Same if counts[v]))
        if details:
            out.append("")
            for p in self.pairs:
                off = [f"{n}: {v.value}" for n, v in p.fields.items() if v != Same.EQUAL]
                if p.range != "same" or any(p.fields[n] not in (Same.EQUAL, Same.NORMALISED) for n in METHOD_FIELDS):
                    out.append(f"{p.bug_id}: range {p.range}; " + "; ".join(off))
        return out


def _folded(text: str) -> str:
    return " ".join(markdown_to_text(jira_to_text(text)).split())


def _as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(_as_text(v) for v in value)
    if isinstance(value, dict):
        return _as_text(value.get("content") or value.get("body") or "")
    return str(value)


def compare_values(name: str, a, b) -> Same:
    ta, tb = _as_text(a), _as_text(b)
    if ta == tb:
        return Same.EQUAL
    if not ta.strip():
        return Same.EMPTY_A
    if not tb.strip():
        return Same.EMPTY_B
    if name in METHOD_FIELDS:
        return Same.NORMALISED if normalise(ta) == normalise(tb) else Same.DIFFERENT
    if name == "issue_url":
        same = ta.lower().replace("//browse", "/browse") == tb.lower().replace("//browse", "/browse")
        return Same.NORMALISED if same else Same.DIFFERENT
    return Same.NORMALISED if _folded(ta) == _folded(tb) else Same.DIFFERENT


def read_entries(path: Path) -> dict[str, Entry]:
    """Entries by bug id (``Project-N``)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Nl2FixError(f"dataset file {path} not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Nl2FixError(f"dataset file {path} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise Nl2FixError(f"dataset file {path} must hold a JSON object keyed by bug")
    out: dict[str, Entry] = {}
    for key, record in raw.items():
        try:
            project, number, rel, start, end = parse_key(key)
        except ValueError as exc:
            raise Nl2FixError(f"{path}: {exc}") from None
        out.setdefault(f"{project}-{number}", Entry(key, rel, start, end, record if isinstance(record, dict) else {}))
    return out


def diff_datasets(a: Path, b: Path, projects: set[str] | None = None) -> DatasetDiff:
    """``projects``: compare only these projects' bugs (e.g. the ones a build covered)."""
    ea, eb = read_entries(a), read_entries(b)
    if projects:
        keep = {p.lower() for p in projects}
        ea = {k: v for k, v in ea.items() if k.rsplit("-", 1)[0].lower() in keep}
        eb = {k: v for k, v in eb.items() if k.rsplit("-", 1)[0].lower() in keep}
    out = DatasetDiff(only_a=[i for i in ea if i not in eb], only_b=[i for i in eb if i not in ea])
    for bug_id, x in ea.items():
        if bug_id in eb:
            y = eb[bug_id]
            out.pairs.append(
                BugDiff(
                    bug_id,
                    x,
                    y,
                    {
                        name: compare_values(name, x.record.get(name), y.record.get(name))
                        for name in METHOD_FIELDS + TEXT_FIELDS
                    },
                )
            )
    return out
