"""Put a candidate method in place of the buggy one, in the text of its source file.

Pure functions over text. The dataset gives the buggy method's lines; they are trusted only
after checking that they hold the buggy method (ignoring whitespace). When they do not (the
dataset's ranges can drift from the current Defects4J by a line or more), the method is looked
up in the file by its text (ignoring whitespace, then comments too) and the correction is
recorded. Only those lines are replaced, so the rest of the class is left exactly as it was;
a candidate whose braces do not balance would swallow part of the class and is refused before
anything is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nl2fix.java_text import normalise, strip_comments
from nl2fix.models import Bug

_WS = re.compile(r"\s+")
_LITERAL = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


class SpliceError(ValueError):
    """The buggy method is not in the file: the harness (or the dataset) is at fault."""


class UnbalancedCandidate(ValueError):
    """The candidate's braces do not balance: spliced in, it would not leave the class intact."""


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
    starts, offset = [], 0
    for k in line_keys:
        starts.append(offset)
        offset += len(k)
    joined = "".join(line_keys)
    first_line_at = {}
    last_line_at = {}
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
    raise SpliceError(
        f"the buggy method is not at lines {start_line}-{end_line} nor anywhere else in the file "
        "(compared without whitespace and comments)"
    )


def brace_balance(code: str) -> int:
    """``{`` minus ``}`` outside comments, string, text-block and char literals."""
    bare = _LITERAL.sub("", strip_comments(code))
    return bare.count("{") - bare.count("}")


def closes_early(code: str) -> bool:
    """Whether a ``}`` closes more than ``code`` opened (it would close the enclosing class)."""
    depth = 0
    for ch in _LITERAL.sub("", strip_comments(code)):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return True
    return False


def splice_at(source: str, location: Location, candidate: str) -> str:
    """``source`` with the location's lines replaced by ``candidate``.

    The first line keeps the original's indentation; the file's own line ending is used."""
    lines = _split_lines(source)
    old = lines[location.start_line - 1 : location.end_line]
    if brace_balance(candidate) != brace_balance("".join(old)) or closes_early(candidate):
        raise UnbalancedCandidate(
            "the candidate's braces do not balance, so it would not leave the rest of the class intact"
        )
    newline = "\r\n" if old and old[0].endswith("\r\n") else "\n"
    indent = re.match(r"[ \t]*", old[0]).group(0) if old else ""
    body = candidate.strip("\r\n").replace("\r\n", "\n").split("\n")
    body[0] = indent + body[0].lstrip(" \t")
    trailing = newline if old and old[-1].endswith("\n") else ""
    replacement = newline.join(body) + trailing
    return "".join(lines[: location.start_line - 1]) + replacement + "".join(lines[location.end_line :])


def splice(source: str, buggy_method: str, start_line: int, end_line: int, candidate: str) -> Spliced:
    """Locate the buggy method and put ``candidate`` in its place."""
    location = locate(source, buggy_method, start_line, end_line)
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
            units = ch.encode("utf-16-be")
            out.extend(f"\\u{units[i] << 8 | units[i + 1]:04x}".encode("ascii") for i in range(0, len(units), 2))
    return b"".join(out)


def splice_file(source_file: Path, dest_file: Path, buggy_method: str, start_line: int, end_line: int,
                candidate: str, encoding: str) -> Location:
    """Read ``source_file``, splice, and write the result to ``dest_file`` (never the source)."""
    source = source_file.read_bytes().decode(encoding)
    spliced = splice(source, buggy_method, start_line, end_line, candidate)
    dest_file.parent.mkdir(parents=True, exist_ok=True)
    dest_file.write_bytes(encode_source(spliced.text, encoding))
    return spliced.location
