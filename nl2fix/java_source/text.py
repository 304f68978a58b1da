"""Pure text operations on Java source: comment removal, normalisation, hashing."""

from __future__ import annotations

import hashlib
import re

_WS = re.compile(r"\s+")
_LITERAL = re.compile(r'("""(?:\\[\s\S]|[^\\])*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')')
# Tokens that never need a space around them when whitespace is folded for comparison.
_PUNCT_SPACE = re.compile(r"\s*([{}()\[\];,.=<>!&|+\-*/%?:^~@])\s*")


_TOKENS = re.compile(
    r'(?P<lit>"""(?:\\[\s\S]|[^\\])*?(?:"""|$)|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?)'
    r"|(?P<line>//[^\r\n]*)"
    r"|(?P<block>/\*[\s\S]*?(?:\*/|$))"
)


def _drop_comment(m: re.Match) -> str:
    if m.lastgroup == "lit":
        return m.group()
    if m.lastgroup == "block":
        return "\n" * m.group().count("\n")
    return ""


def strip_comments(source: str) -> str:
    """Remove ``//`` and ``/* */`` comments, keeping string/char literals and line layout.

    Block comments keep their newlines so line numbers of the remaining code do not move;
    lines left empty by a removed comment are dropped by :func:`remove_comments`.
    """
    return _TOKENS.sub(_drop_comment, source)


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
