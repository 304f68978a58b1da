"""Pure text operations on Java source: comment removal, normalisation, hashing."""

from __future__ import annotations

import hashlib
import re

_WS = re.compile(r"\s+")
_LITERAL = re.compile(r'("""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')')
# Tokens that never need a space around them when whitespace is folded for comparison.
_PUNCT_SPACE = re.compile(r"\s*([{}()\[\];,.=<>!&|+\-*/%?:^~@])\s*")


def strip_comments(source: str) -> str:
    """Remove ``//`` and ``/* */`` comments, keeping string/char literals and line layout.

    Block comments keep their newlines so line numbers of the remaining code do not move;
    lines left empty by a removed comment are dropped by :func:`drop_blank_comment_lines`.
    """
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = source.find("\n", i)
            i = n if j == -1 else j
        elif c == "/" and nxt == "*":
            j = source.find("*/", i + 2)
            end = n if j == -1 else j + 2
            out.append("\n" * source.count("\n", i, end))
            i = end
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            end = n if j == -1 else j + 3
            out.append(source[i:end])
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def remove_comments(method: str) -> str:
    """The buggy method as given to models: comments removed, lines they emptied dropped,
    trailing spaces trimmed (the paper's rule; the original is kept beside it)."""
    kept = []
    stripped = strip_comments(method).split("\n")
    original = method.split("\n")
    for new, old in zip(stripped, original):
        if new.strip() or not old.strip():
            kept.append(new.rstrip())
    text = "\n".join(kept).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def normalise(method: str) -> str:
    """Comment- and whitespace-insensitive form, used for dedup hashes and exact match.

    Whitespace inside string and char literals is significant and kept as it is."""
    parts = []
    for i, piece in enumerate(_LITERAL.split(strip_comments(method))):
        if i % 2:
            parts.append(piece)
        else:
            parts.append(_PUNCT_SPACE.sub(r"\1", _WS.sub(" ", piece)))
    return "".join(parts).strip()


def candidate_hash(method: str) -> str:
    return hashlib.sha256(normalise(method).encode("utf-8")).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def same_code(a: str, b: str) -> bool:
    """Exact match ignoring whitespace and comments."""
    return normalise(a) == normalise(b)
