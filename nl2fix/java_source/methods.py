"""Find Java method declarations in text that may be a whole class, a lone method, or code with
prose around it. Pure functions over :mod:`nl2fix.java_source.lexer`.

A declaration is ``[annotations] [modifiers] [<T>] [ReturnType] name(params) [throws X, Y] {body}``;
calls, ``new Foo(...) { ... }`` and control statements are not declarations.
"""

from __future__ import annotations

from dataclasses import dataclass

from nl2fix.java_source.lexer import Kind, Token, code_tokens, matching_close

MODIFIERS = frozenset(
    "public protected private static final abstract synchronized native strictfp default transient volatile".split()
)
PRIMITIVES = frozenset("void boolean byte char short int long float double var".split())
KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double else enum
    extends final finally float for goto if implements import instanceof int interface long native new
    package private protected public return short static strictfp super switch synchronized this throw
    throws transient try void volatile while true false null record yield""".split()
)


@dataclass(frozen=True)
class MethodSpan:
    """Where one method declaration sits in a text (character offsets, end exclusive)."""

    name: str
    start: int
    header_end: int
    """Offset just after the body's opening brace."""
    end: int
    """Offset just after the closing brace; -1 when the body never closes (truncated text)."""
    params: str
    """Parameter list with whitespace folded, e.g. ``int a , String b``."""
    arity: int
    """Number of parameters."""

    @property
    def complete(self) -> bool:
        return self.end >= 0


def _skip_back_brackets(tokens: list[Token], i: int, close: str, open_: str) -> int:
    """From a closing bracket at ``i``, the index of its opening bracket (or -1)."""
    depth = 0
    while i >= 0:
        text = tokens[i].text
        if text == close:
            depth += 1
        elif text in (">>", ">>>") and close == ">":
            depth += len(text)
        elif text == open_:
            depth -= 1
            if depth <= 0:
                return i
        i -= 1
    return -1


def _skip_type_back(tokens: list[Token], i: int) -> int:
    """Given ``i`` at the last token of a type (``String``, ``List<X>``, ``int[]``, ``a.B``), the index
    before the type; or -2 when ``tokens[i]`` cannot end a type."""
    while i >= 0 and tokens[i].text == "]":
        i -= 1
        if i < 0 or tokens[i].text != "[":
            return -2
        i -= 1
    if i >= 0 and tokens[i].text in (">", ">>", ">>>"):
        i = _skip_back_brackets(tokens, i, ">", "<") - 1
    if i < 0 or tokens[i].kind is not Kind.WORD or (tokens[i].text in KEYWORDS and tokens[i].text not in PRIMITIVES):
        return -2
    i -= 1
    while i >= 1 and tokens[i].text == "." and tokens[i - 1].kind is Kind.WORD:
        i -= 2
    return i


def _skip_modifiers_back(tokens: list[Token], i: int) -> int:
    while i >= 0:
        text = tokens[i].text
        if text in MODIFIERS:
            i -= 1
        elif tokens[i].kind is Kind.WORD and i >= 1 and tokens[i - 1].text == "@":
            i -= 2
        elif text == ")":
            opener = _skip_back_brackets(tokens, i, ")", "(")
            if opener >= 2 and tokens[opener - 1].kind is Kind.WORD and tokens[opener - 2].text == "@":
                i = opener - 3
            else:
                break
        else:
            break
    return i


def _declaration_start(tokens: list[Token], name_at: int) -> int | None:
    """Index of the first token of the declaration whose name is ``tokens[name_at]``, or None
    when the tokens before the name cannot begin a declaration (``new Foo(..) {``, ``x.foo(..)``)."""
    i = name_at - 1
    if i < 0 or tokens[i].text in (";", "{", "}"):
        return name_at  # a constructor without modifiers
    is_annotation = tokens[i].kind is Kind.WORD and i >= 1 and tokens[i - 1].text == "@"
    if tokens[i].text not in MODIFIERS and tokens[i].text != ")" and not is_annotation:
        i = _skip_type_back(tokens, i)
        if i == -2:
            return None
        if i >= 0 and tokens[i].text in (">", ">>", ">>>"):
            i = _skip_back_brackets(tokens, i, ">", "<") - 1
    i = _skip_modifiers_back(tokens, i)
    if i >= 0 and tokens[i].text in ("new", ".", "::", "=", "(", ","):
        return None
    return i + 1


def _arity(params: list[Token]) -> int:
    if not params:
        return 0
    depth, commas = 0, 0
    for t in params:
        if t.text == "<":
            depth += 1
        elif t.text in (">", ">>", ">>>"):
            depth -= len(t.text)
        elif t.text == "," and depth <= 0:
            commas += 1
    return commas + 1


def find_methods(text: str) -> list[MethodSpan]:
    """Every method or constructor declaration in ``text`` that is not inside another one, in text order."""
    tokens = code_tokens(text)
    found: list[MethodSpan] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not (tok.text == "(" and i >= 1 and tokens[i - 1].kind is Kind.WORD and tokens[i - 1].text not in KEYWORDS):
            i += 1
            continue
        close = matching_close(tokens, i)
        if close is None:
            break
        j = close + 1
        if j < len(tokens) and tokens[j].text == "throws":
            j += 1
            while j < len(tokens) and (tokens[j].kind is Kind.WORD or tokens[j].text in (",", ".", "<", ">")):
                j += 1
        start = _declaration_start(tokens, i - 1) if j < len(tokens) and tokens[j].text == "{" else None
        if start is None:
            i += 1
            continue
        body_close = matching_close(tokens, j)
        params = " ".join(t.text for t in tokens[i + 1 : close])
        found.append(
            MethodSpan(
                name=tokens[i - 1].text,
                start=tokens[start].start,
                header_end=tokens[j].end,
                end=tokens[body_close].end if body_close is not None else -1,
                params=params,
                arity=_arity(tokens[i + 1 : close]),
            )
        )
        if body_close is None:
            break
        i = body_close + 1  # methods of anonymous classes inside the body are not candidates
    return found


def main_method(text: str) -> MethodSpan | None:
    """The first top-level declaration of a text that holds one method (a dataset entry)."""
    methods = find_methods(text)
    return methods[0] if methods else None


def header(method: str) -> str:
    """The declaration up to and including the body's ``{``: what a completion prompt ends with."""
    span = main_method(method)
    if span is None:
        raise ValueError("no method declaration found")
    return method[span.start : span.header_end]
