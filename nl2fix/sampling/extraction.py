"""Pull the one candidate method out of a model's answer, or say why there is none. Pure.

Answers come as fenced blocks (possibly unterminated when the model ran out of tokens), ``<code>``
tags (the paper's ChatGPT prompt asked for them), bare code, or code wrapped in chatter; they may
show several methods (the buggy one first, a helper, a test). The candidate is the method named
like the target: the one with the target's parameter list if there are overloads, else the last
one shown (answers put the fix after the original), preferring one that differs from the buggy
method (answers also quote the original after the fix). An unchanged copy followed by a copy that
was cut off is no candidate: the fix is the part that was lost. Completion-style answers continue
the prompt's method header, so the header is put back in front before looking. A unified diff
(with or without ``@@`` hunk headers) is applied to the buggy method, matching lines by their
text without indentation.

The answer is read as written, Unicode escapes untranslated: extraction only chooses the text that
becomes the candidate, stored as the model wrote it. Whether that text is safe to compile (its
braces as javac reads them) is decided where it is spliced in, so an escape that misleads the
choice here yields at worst another candidate text, judged or refused there like any other.
"""

from __future__ import annotations

import enum
import html
import re
from dataclasses import dataclass

from nl2fix.java_source.methods import MethodSpan, find_methods, main_method
from nl2fix.java_source.text import candidate_hash

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_CODE_TAG = re.compile(r"<code[^>]*>(.*?)(?:</code>|\Z)", re.DOTALL | re.IGNORECASE)
_CODE_LIKE = re.compile(r"[;{}]")
# file headers, and git's (``diff --git``, ``index``) above them: RepairBench's diffs carry both
_DIFF_FILE_HEADER = re.compile(r"^(?:(?:---|\+\+\+) |diff --git |index [0-9a-f]+\.\.[0-9a-f]+)")
_HUNK_START = re.compile(r"^@@ -(\d+)")
_DIFF_EDIT = re.compile(r"^[-+](?![-+]{2} )")


class Failure(str, enum.Enum):
    """Why an answer yields no candidate."""

    EMPTY = "empty"
    NO_CODE = "no-code"
    NO_METHOD = "no-method"
    OTHER_METHOD = "other-method"
    TRUNCATED = "truncated"


@dataclass(frozen=True)
class Extraction:
    code: str | None
    failure: Failure | None = None
    detail: str = ""

    @property
    def error(self) -> str | None:
        """The reason as stored in ``SampleRecord.extraction_error``."""
        return None if self.failure is None else f"{self.failure.value}: {self.detail}"


def code_segments(response: str) -> list[str]:
    """Fenced blocks, else ``<code>`` blocks, else the whole answer."""
    fenced = [m.group(2) for m in _FENCE.finditer(response)]
    if fenced:
        return fenced
    tagged = [html.unescape(m.group(1)) for m in _CODE_TAG.finditer(response)]
    return tagged or [response]


def _dedent(text: str, span: MethodSpan) -> str:
    """The method's text with the indentation of its first line removed from every line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    indent = text[line_start : span.start]
    body = text[span.start : span.end]
    if indent.strip():
        return body
    lines = body.split("\n")
    return "\n".join([lines[0]] + [l[len(indent) :] if l.startswith(indent) else l.lstrip() for l in lines[1:]])


def _choose(spans: list[tuple[str, MethodSpan]], target: MethodSpan, unchanged: str) -> int:
    """Position in ``spans`` (complete ones) of the candidate; ``unchanged`` is the buggy method's hash."""

    def preference(position: int) -> tuple:
        segment, span = spans[position]
        changed = candidate_hash(segment[span.start : span.end]) != unchanged
        return (span.params == target.params, span.arity == target.arity, changed, position)

    return max(range(len(spans)), key=preference)


def is_diff(segment: str) -> bool:
    """Whether a code segment is a unified diff: hunk headers, or every line marked `` ``/``+``/``-``."""
    lines = [l for l in segment.split("\n") if l.strip()]
    if any(l.startswith("@@") for l in lines):
        return True
    marked = [l for l in lines if not _DIFF_FILE_HEADER.match(l)]
    return bool(marked) and all(l[0] in " +-\\" for l in marked) and any(_DIFF_EDIT.match(l) for l in marked)


def apply_diff(diff: str, method: str) -> str | None:
    """``method`` with the diff's hunks applied, or None when a hunk's old lines are not in it.

    Lines are matched by their text without indentation, blank lines ignored: models re-indent
    the method they were shown (and may drop its blank lines) when they write the diff."""
    hunks: list[tuple[int, list[str]]] = [(1, [])]
    for line in diff.split("\n"):
        if line.startswith("@@"):
            start = _HUNK_START.match(line)
            hunks.append((int(start.group(1)) if start else 1, []))
        elif not _DIFF_FILE_HEADER.match(line) and not line.startswith("\\"):
            hunks[-1][1].append(line)
    lines, shift = method.split("\n"), 0
    for stated, hunk in hunks:
        while hunk and not hunk[-1]:
            hunk.pop()  # the block's final newline, not a blank line of the method
        if not hunk:
            continue
        old = [l[1:].strip() for l in hunk if l[:1] in (" ", "-") and l[1:].strip()]
        new = [l[1:] for l in hunk if l[:1] in (" ", "+", "")]
        if not old:
            return None  # an insertion without context has no place to go
        kept = [(i, l.strip()) for i, l in enumerate(lines) if l.strip()]
        starts = [k for k in range(len(kept) - len(old) + 1) if [t for _, t in kept[k : k + len(old)]] == old]
        if not starts:
            return None
        # short context may occur more than once ("}"): the place nearest the hunk's line number
        old_side = [l[1:].strip() for l in hunk if l[:1] in (" ", "-", "")]
        near = stated + shift + next(i for i, text in enumerate(old_side) if text)
        at = min(starts, key=lambda k: abs(kept[k][0] + 1 - near))
        first, last = kept[at][0], kept[at + len(old) - 1][0]
        lines[first : last + 1] = new
        shift += len(new) - (last + 1 - first)  # earlier hunks move the lines later ones number
    return "\n".join(lines)


def extract_method(response: str | None, target_method: str, prefix: str = "") -> Extraction:
    """The candidate for ``target_method`` in ``response``.

    ``prefix`` is the method header a completion prompt ended with; the answer continues it.
    """
    if not response or not response.strip():
        return Extraction(None, Failure.EMPTY, "the answer is empty")
    target = main_method(target_method)
    if target is None:
        raise ValueError("the target method has no declaration")
    blocks = code_segments(response)
    diffs = [b for b in blocks if is_diff(b)]
    if diffs:  # the raw answer would show both sides of the diff as code
        applied = [apply_diff(b, target_method) if is_diff(b) else b for b in blocks]
        blocks = [b for b in applied if b is not None]
    stages = (
        ([[prefix + response]] if prefix else []) + [blocks] + ([] if diffs or blocks == [response] else [[response]])
    )
    unchanged = candidate_hash(target_method)
    named: list[tuple[str, MethodSpan]] = []
    others: set[str] = set()
    for stage in stages:
        found = []
        for segment in stage:
            for span in find_methods(segment):
                if span.name != target.name:
                    others.add(span.name)
                    continue
                found.append((segment, span))
        named += found
        complete = [item for item in found if item[1].complete]
        if complete:
            segment, span = complete[_choose(complete, target, unchanged)]
            if not found[-1][1].complete and candidate_hash(segment[span.start : span.end]) == unchanged:
                return Extraction(
                    None,
                    Failure.TRUNCATED,
                    f"only an unchanged {target.name} is complete; the answer was cut off in a later one",
                )
            return Extraction(_dedent(segment, span))
    if diffs and None in applied:
        return Extraction(None, Failure.NO_METHOD, "a diff whose old lines are not in the buggy method")
    if named:
        return Extraction(None, Failure.TRUNCATED, f"{target.name}'s body never closes (the answer was cut off)")
    if others:
        return Extraction(
            None, Failure.OTHER_METHOD, f"methods {', '.join(sorted(others))} but none named {target.name}"
        )
    if _CODE_LIKE.search(response):
        return Extraction(None, Failure.NO_METHOD, "code without a method declaration")
    return Extraction(None, Failure.NO_CODE, "no code in the answer")
