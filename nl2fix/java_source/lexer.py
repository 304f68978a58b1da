"""A small lossless Java lexer: the text is exactly the concatenation of its tokens.

Used wherever code must be read token by token without being fooled by strings and comments:
finding a method's braces in a model's answer, mutating operators and literals, and measuring
edit distance and changed tokens between methods. It does not need the code to compile.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class Kind(str, enum.Enum):
    SPACE = "space"
    COMMENT = "comment"
    STRING = "string"
    CHAR = "char"
    NUMBER = "number"
    WORD = "word"
    OP = "op"
    OTHER = "other"


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


_OPERATORS = sorted(
    """>>>= <<= >>= >>> ... -> :: == != <= >= && || ++ -- += -= *= /= %= &= |= ^= << >>
    ( ) { } [ ] ; , . @ = > < ! ~ ? : + - * / & | ^ %""".split(),
    key=len,
    reverse=True,
)
_PATTERN = re.compile(
    "|".join(
        [
            r"(?P<space>\s+)",
            r"(?P<comment>//[^\r\n]*|/\*[\s\S]*?(?:\*/|\Z))",
            r'(?P<string>"""(?:\\[\s\S]|[^\\])*?(?:"""|\Z)|"(?:\\.|[^"\\\n])*"?)',
            r"(?P<char>'(?:\\.|[^'\\\n])*'?)",
            r"(?P<number>0[xX][0-9a-fA-F_]+[lL]?|0[bB][01_]+[lL]?|"
            r"(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[fFdDlL]?)",
            r"(?P<word>[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)",
            "(?P<op>" + "|".join(re.escape(op) for op in _OPERATORS) + ")",
            r"(?P<other>.)",
        ]
    ),
    re.DOTALL,
)


_KINDS = {kind.value: kind for kind in Kind}


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text``, whitespace and comments included (``"".join`` gives ``text`` back)."""
    return [Token(_KINDS[str(m.lastgroup)], m.group(), m.start()) for m in _PATTERN.finditer(text)]


def code_tokens(text: str) -> list[Token]:
    """The tokens that matter to the compiler: no whitespace, no comments."""
    return [t for t in tokenize(text) if t.kind not in (Kind.SPACE, Kind.COMMENT)]


def words(text: str) -> list[str]:
    """Code token texts, the unit of edit distance and of "changed tokens"."""
    return [t.text for t in code_tokens(text)]


def matching_close(tokens: list[Token], open_at: int) -> int | None:
    """Index of the bracket closing ``tokens[open_at]`` (one of ``( [ {``), or None if unbalanced."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opener = tokens[open_at].text
    closer, depth = pairs[opener], 0
    for i in range(open_at, len(tokens)):
        if tokens[i].kind is not Kind.OP:
            continue
        if tokens[i].text == opener:
            depth += 1
        elif tokens[i].text == closer:
            depth -= 1
            if depth == 0:
                return i
    return None


def tokens_wo_comments(method: str) -> str:
    """The dataset's ``*_wo_comments`` form: comments dropped, tokens joined by single spaces.

    As in the published data, ``>>`` closing nested generics (``List<List<T>>``) is two ``>``
    tokens while the shift operator stays one."""
    out: list[str] = []
    open_angles = 0
    for tok in words(method):
        if tok in (";", "{", "}"):
            open_angles = 0
        elif tok == "<":
            open_angles += 1
        elif tok == ">":
            open_angles = max(0, open_angles - 1)
        elif tok in (">>", ">>>") and open_angles >= len(tok):
            open_angles -= len(tok)
            out.extend(">" * len(tok))
            continue
        out.append(tok)
    return " ".join(out)
