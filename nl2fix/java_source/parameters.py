"""A method declaration's parameter list read from its tokens (:mod:`nl2fix.java_source.lexer`):
each parameter's type as Java text and its name, annotations and ``final`` left out. Pure.

One reader for the two places that need it: whether a candidate's declaration changed for other
classes (``defects4j_adapter/engines/declaration.py``), and the behaviour probe's wrapper, which
passes every argument on with a cast to its type (``defects4j_adapter/behaviour/probe_source.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nl2fix.java_source.lexer import Kind, Token, matching_close


@dataclass(frozen=True)
class Parameter:
    type: str
    """As Java text (:func:`joined`: ``Map<String,List<? extends T>>``); a varargs
    parameter and brackets after the name (``int a[]``) as an array type (``int[]``)."""
    name: str


def joined(tokens: list[Token]) -> str:
    """Tokens of a type as one string: a space only before a word that follows a word or ``?``
    (``? extends T``)."""
    out = ""
    for i, t in enumerate(tokens):
        if i and t.kind is Kind.WORD and (tokens[i - 1].kind is Kind.WORD or tokens[i - 1].text == "?"):
            out += " "
        out += t.text
    return out


def skip_annotation(tokens: list[Token], i: int) -> int:
    """From ``@`` at ``i``, the index after the annotation (its name and arguments)."""
    i += 1  # the name: a word, then `.word` while it is qualified
    if i < len(tokens) and tokens[i].kind is Kind.WORD:
        i += 1
    while i + 1 < len(tokens) and tokens[i].text == "." and tokens[i + 1].kind is Kind.WORD:
        i += 2
    if i < len(tokens) and tokens[i].text == "(":
        close = matching_close(tokens, i)
        i = (close if close is not None else len(tokens) - 1) + 1
    return i


def split(tokens: list[Token]) -> list[list[Token]]:
    """The tokens between a parameter list's parentheses, one list per parameter (commas inside type
    arguments, annotation arguments or brackets do not split)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        if t.text in ("<", "(", "["):
            depth += 1
        elif t.text in (">", ")", "]", ">>", ">>>"):
            depth -= len(t.text) if t.text.startswith(">") else 1
        if t.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def parameter(tokens: list[Token]) -> Parameter | None:
    """One parameter's tokens read; None when they are not a type followed by a name."""
    kept: list[Token] = []
    i = 0
    while i < len(tokens):
        if tokens[i].text == "@":
            i = skip_annotation(tokens, i)
            continue
        if tokens[i].text != "final":
            kept.append(tokens[i])
        i += 1
    dims = ""
    while len(kept) >= 2 and kept[-1].text == "]" and kept[-2].text == "[":  # `int x[]`
        kept, dims = kept[:-2], dims + "[]"
    if len(kept) < 2 or kept[-1].kind is not Kind.WORD:
        return None
    return Parameter(joined(kept[:-1]).replace("...", "[]") + dims, kept[-1].text)


def parameters(tokens: list[Token]) -> tuple[Parameter, ...] | None:
    """The parameters of the tokens between a parameter list's parentheses; None when one of them
    cannot be read."""
    out = tuple(parameter(p) for p in split(tokens))
    return None if any(p is None for p in out) else tuple(p for p in out if p is not None)
