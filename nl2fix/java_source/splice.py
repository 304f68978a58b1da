"""Put a candidate method in place of the buggy one, in the text of its source file.

Pure functions over text. The dataset gives the buggy method's lines; they are trusted only
after checking that they hold the buggy method (ignoring whitespace). When they do not (the
dataset's ranges can drift from the current Defects4J by a line or more), the method is looked
up in the file by its text (ignoring whitespace, then comments too); when the dataset's copy of
the text itself differs from the file (a name qualified in one and not the other), by its
declaration: the same-named method closest in text. Every correction is recorded. Only those
lines are replaced, so the rest of the class is left exactly as it was;
a candidate whose braces do not balance would swallow part of the class and is refused before
anything is written. Its braces are counted as javac reads them, Unicode escapes translated
(:mod:`nl2fix.java_source.unicode_escapes`), and that translation is what goes into the file, so
javac compiles exactly the text that was checked.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core.domain import Bug
from nl2fix.java_source.lexer import Kind, code_tokens, words
from nl2fix.java_source.methods import MethodSpan, find_methods, main_method
from nl2fix.java_source.text import normalise, strip_comments
from nl2fix.java_source.unicode_escapes import UnreadableEscape, translate_unicode_escapes

_WS = re.compile(r"\s+")
_QUALIFIER = re.compile(r"\b(?:\w+\s*\.\s*)+(?=\w)")

MIN_SIMILARITY = 0.8
"""How alike (difflib ratio over code tokens) a same-named declaration must be to the dataset's
method to be taken for it: below this it is more likely another method than the same one."""
_DIFF_CONTEXT = 3


class SpliceError(ValueError):
    """The buggy method is not in the file: the harness (or the dataset) is at fault."""


class RefusedCandidate(ValueError):
    """The candidate cannot be spliced in: its braces do not balance (it would not leave the class
    intact), or javac would refuse its Unicode escapes or read them unlike any text we can check."""


@dataclass(frozen=True)
class Location:
    """Where the buggy method sits: 1-based, inclusive lines."""

    start_line: int
    end_line: int
    note: str = ""
    """Set when the dataset's range was wrong and the method was found elsewhere."""

    @property
    def corrected(self) -> bool:
        return bool(self.note)


@dataclass(frozen=True)
class Spliced:
    text: str
    location: Location

    @property
    def detail(self) -> str:
        """The range correction, if one was needed (worth recording with the verdict)."""
        return self.location.note


def _key(text: str) -> str:
    return _WS.sub("", text)


def _split_lines(text: str) -> list[str]:
    """Lines with their endings (CRLF files keep theirs). Only ``\n`` ends a line, as in the
    dataset's line numbers: form feeds and lone CRs in old sources do not."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _find(line_keys: list[str], method_key: str) -> list[tuple[int, int]]:
    """Every 0-based inclusive line span whose joined keys equal ``method_key`` exactly."""
    if not method_key:
        return []
    starts: list[int] = []
    offset = 0
    for k in line_keys:
        starts.append(offset)
        offset += len(k)
    joined = "".join(line_keys)
    first_line_at: dict[int, int] = {}
    last_line_at: dict[int, int] = {}
    for i, (s, k) in enumerate(zip(starts, line_keys)):
        if k:
            first_line_at.setdefault(s, i)
            last_line_at[s + len(k)] = i
    spans, pos = [], joined.find(method_key)
    while pos >= 0:
        end = pos + len(method_key)
        if pos in first_line_at and end in last_line_at:
            spans.append((first_line_at[pos], last_line_at[end]))
        pos = joined.find(method_key, pos + 1)
    return spans


def locate(source: str, method: str, start_line: int, end_line: int) -> Location:
    """The lines of ``source`` holding ``method``: the given range when it holds it, else the
    closest place where the method's text is found. Raises :class:`SpliceError` when it is nowhere."""
    lines = _split_lines(source)
    in_range = 1 <= start_line <= end_line <= len(lines)
    if in_range and _key("".join(lines[start_line - 1 : end_line])) == _key(method):
        return Location(start_line, end_line)
    for strip in (False, True):
        view = _split_lines(strip_comments(source)) if strip else lines
        target = _key(strip_comments(method) if strip else method)
        if strip and len(view) != len(lines):
            break
        if strip and in_range and _key("".join(view[start_line - 1 : end_line])) == target:
            return Location(start_line, end_line)
        spans = _find([_key(l) for l in view], target)
        if spans:
            s, e = min(spans, key=lambda span: (abs(span[0] + 1 - start_line), span[0]))
            how = "its text" if not strip else "its text without comments"
            return Location(
                s + 1,
                e + 1,
                note=f"the dataset's lines {start_line}-{end_line} do not hold the buggy method; "
                f"found it by {how} at lines {s + 1}-{e + 1}",
            )
    found = _by_declaration(source, method, start_line, end_line)
    if found is not None:
        return found
    raise SpliceError(
        f"the buggy method is not at lines {start_line}-{end_line} nor anywhere else in the file "
        f"(compared without whitespace and comments, and with every declaration of the same name: "
        f"none is {MIN_SIMILARITY:.0%} alike)"
    )


def _param_types(span: MethodSpan) -> tuple[str, ...]:
    """The parameters' types, names and ``final`` left out and qualifications dropped
    (``java.util.List<String> a`` and ``List<String> b`` have the same type here)."""
    types = []
    for param in filter(None, (p.strip() for p in span.params.split(","))):
        parts = [w for w in param.split() if w != "final"][:-1]
        types.append(_QUALIFIER.sub("", " ".join(parts)).replace(" ", ""))
    return tuple(types)


def _difference(file_words: list[str], dataset_words: list[str]) -> str:
    """The first place the two texts differ, with a few tokens around it."""
    matcher = difflib.SequenceMatcher(None, file_words, dataset_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            ours = normalise(" ".join(file_words[max(0, i1 - _DIFF_CONTEXT) : i2 + _DIFF_CONTEXT]))
            theirs = normalise(" ".join(dataset_words[max(0, j1 - _DIFF_CONTEXT) : j2 + _DIFF_CONTEXT]))
            return f"the file has `{ours}` where the dataset has `{theirs}`"
    return "they differ only in layout"


def _by_declaration(source: str, method: str, start_line: int, end_line: int) -> Location | None:
    """The same-named declaration (same parameter count, and types when one matches them)
    whose text is closest to ``method``, if it is alike enough; ties go to the one nearest
    the dataset's range. Its first line may be one of its annotations' lines, whichever
    matches the dataset's text best (the dataset may leave annotations out)."""
    wanted = main_method(method)
    if wanted is None:
        return None
    same = [d for d in find_methods(source) if d.complete and d.name == wanted.name and d.arity == wanted.arity]
    typed = [d for d in same if _param_types(d) == _param_types(wanted)]
    lines = _split_lines(source)
    target = words(method)
    best = None
    for decl in typed or same:
        last = source.count("\n", 0, decl.end - 1) + 1
        for first in range(source.count("\n", 0, decl.start) + 1, source.count("\n", 0, decl.header_end) + 2):
            text = words("".join(lines[first - 1 : last]))
            ratio = difflib.SequenceMatcher(None, text, target, autojunk=False).ratio()
            key = (ratio, -abs(first - start_line), -first)
            if best is None or key > best[0]:
                best = (key, first, last, text)
    if best is None or best[0][0] <= MIN_SIMILARITY:
        return None
    (ratio, _, _), first, last, text = best
    moved = (
        "" if (first, last) == (start_line, end_line) else f" instead of the dataset's lines {start_line}-{end_line}"
    )
    return Location(
        first,
        last,
        note=f"the dataset's text of the buggy method differs from the file's; took the declaration of "
        f"{wanted.name}({wanted.params}) at lines {first}-{last}{moved}, {ratio:.0%} alike "
        f"({_difference(text, target)})",
    )


def _brace_steps(code: str) -> list[int]:
    """+1 per ``{`` and -1 per ``}`` outside comments, string, text-block and char literals."""
    return [1 if t.text == "{" else -1 for t in code_tokens(code) if t.kind is Kind.OP and t.text in ("{", "}")]


def brace_balance(code: str) -> int:
    """``{`` minus ``}`` outside comments and literals (of text whose Unicode escapes are translated)."""
    return sum(_brace_steps(code))


def closes_early(code: str) -> bool:
    """Whether a ``}`` closes more than ``code`` opened (it would close the enclosing class)."""
    return min(itertools.accumulate(_brace_steps(code)), default=0) < 0


def splice_at(source: str, location: Location, candidate: str) -> str:
    """``source`` with the location's lines replaced by ``candidate`` as javac reads it (Unicode
    escapes translated). Raises :class:`RefusedCandidate` when that cannot be done safely.

    The first line keeps the original's indentation; the file's own line ending is used."""
    try:
        code = translate_unicode_escapes(candidate)
    except UnreadableEscape as exc:
        raise RefusedCandidate(str(exc)) from exc
    lines = _split_lines(source)
    old = lines[location.start_line - 1 : location.end_line]
    if brace_balance(code) != brace_balance("".join(old)) or closes_early(code):
        raise RefusedCandidate(
            "the candidate's braces do not balance (as javac reads them, Unicode escapes translated), "
            "so it would not leave the rest of the class intact"
        )
    newline = "\r\n" if old and old[0].endswith("\r\n") else "\n"
    first = old[0] if old else ""
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    body = code.strip("\r\n").replace("\r\n", "\n").split("\n")
    body[0] = indent + body[0].lstrip(" \t")
    trailing = newline if old and old[-1].endswith("\n") else ""
    replacement = newline.join(body) + trailing
    return "".join(lines[: location.start_line - 1]) + replacement + "".join(lines[location.end_line :])


def splice(source: str, buggy_method: str, start_line: int, end_line: int, candidate: str) -> Spliced:
    """Locate the buggy method and put ``candidate`` in its place."""
    location = locate(source, buggy_method, start_line, end_line)
    if normalise(candidate) == normalise(buggy_method):
        # The buggy version is the file as it is, also where the dataset's copy of the method
        # differs from the file's (spliced in, that copy might not even compile).
        return Spliced(source, location)
    return Spliced(splice_at(source, location, candidate), location)


def method_header(method: str) -> str:
    """The declaration before the body (modifiers, type, name, parameters, throws), normalised:
    when a candidate changes it, code compiled against the old one may no longer link."""
    code = strip_comments(method)
    brace = code.find("{")
    return normalise(code if brace < 0 else code[:brace])


def splice_method(source: str, bug: Bug, candidate: str) -> Spliced:
    """:func:`splice` at the bug's own method and range."""
    return splice(source, bug.buggy_method, bug.start_line, bug.end_line, candidate)


def encode_source(text: str, encoding: str) -> bytes:
    """The file's bytes in its own encoding; characters it cannot hold become ``\\uXXXX``
    escapes, which javac reads as the same characters."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        pass
    out = []
    for ch in text:
        try:
            out.append(ch.encode(encoding))
        except UnicodeEncodeError:
            units = ch.encode("utf-16-be", "surrogatepass")  # a lone surrogate from an escape
            out.extend(f"\\u{units[i] << 8 | units[i + 1]:04x}".encode("ascii") for i in range(0, len(units), 2))
    return b"".join(out)


def splice_file(
    source_file: Path, dest_file: Path, buggy_method: str, start_line: int, end_line: int, candidate: str, encoding: str
) -> Location:
    """Read ``source_file``, splice, and write the result to ``dest_file`` (never the source)."""
    source = source_file.read_bytes().decode(encoding)
    spliced = splice(source, buggy_method, start_line, end_line, candidate)
    dest_file.parent.mkdir(parents=True, exist_ok=True)
    dest_file.write_bytes(encode_source(spliced.text, encoding))
    return spliced.location
