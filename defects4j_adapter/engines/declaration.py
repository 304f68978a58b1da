"""Whether a candidate's change to the method's declaration can matter to other classes. Pure.

The fast engine compiles only the candidate's file; the classes compiled against the old
declaration stay as they are. That is sound unless they would now compile differently or no
longer link: a new name, parameter types, return type or type parameters, ``static`` (or
``abstract``/``native``/``default``) added or removed, or less visibility. Those candidates are
rebuilt whole. More visibility (``private`` -> ``protected``), ``final``, ``synchronized``,
``strictfp``, annotations, parameter names and ``throws`` clauses (checked exceptions are a
compile-time matter of the callers, and callers of the old method compiled) change nothing for
other classes that already compiled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2fix.java_source.lexer import Kind, Token, code_tokens, matching_close
from nl2fix.java_source.methods import MODIFIERS
from nl2fix.java_source.text import strip_comments
from nl2fix.java_source.unicode_escapes import UnreadableEscape, translate_unicode_escapes

VISIBILITY = {"private": 0, "": 1, "protected": 2, "public": 3}
"""Package access (no keyword) sits between private and protected."""
SHAPE_MODIFIERS = frozenset({"static", "abstract", "native", "default"})
"""Modifiers that change how other classes call the method, or whether it has a body."""
_ARRAY = re.compile(r"\s*\[\s*\]")


@dataclass(frozen=True)
class Declaration:
    modifiers: frozenset[str]
    result: str
    """Type parameters, return type and name, e.g. ``<T> List<T> copy``."""
    parameters: tuple[str, ...]
    """Parameter types without names, annotations or ``final``; varargs as arrays."""

    @property
    def visibility(self) -> int:
        return max((VISIBILITY[m] for m in self.modifiers if m in VISIBILITY), default=VISIBILITY[""])


def _skip_annotation(tokens: list[Token], i: int) -> int:
    """From an ``@`` at ``i``, the index after the annotation (name and arguments)."""
    i += 2  # ``@`` and the name's first word, then ``.word`` pairs
    while i + 1 < len(tokens) and tokens[i].text == "." and tokens[i + 1].kind is Kind.WORD:
        i += 2
    if i < len(tokens) and tokens[i].text == "(":
        close = matching_close(tokens, i)
        return len(tokens) if close is None else close + 1
    return i


def _parameter_type(tokens: list[Token]) -> str:
    words: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i].text == "@":
            i = _skip_annotation(tokens, i)
            continue
        if tokens[i].text != "final":
            words.append("[ ]" if tokens[i].text == "..." else tokens[i].text)
        i += 1
    # the last word is the name; brackets after it (``int a[]``) belong to the type
    name_at = max((k for k, w in enumerate(words) if w not in ("[", "]", "[ ]")), default=0)
    return _ARRAY.sub("[]", " ".join(words[:name_at] + words[name_at + 1:]))


def _split_parameters(tokens: list[Token]) -> list[list[Token]]:
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


def parse(method: str) -> Declaration | None:
    """The declaration of the method ``method`` starts with, as javac reads it (Unicode escapes
    translated: ``publ\\u0069c`` is ``public``); None when it has none or javac could not read it."""
    try:
        code = translate_unicode_escapes(method)
    except UnreadableEscape:
        return None
    tokens = code_tokens(strip_comments(code))
    modifiers: set[str] = set()
    rest: list[str] = []
    i = 0
    while i < len(tokens) and tokens[i].text not in ("(", "{", ";"):
        if tokens[i].text == "@":
            i = _skip_annotation(tokens, i)
            continue
        if tokens[i].text in MODIFIERS and not rest:
            modifiers.add(tokens[i].text)
        else:
            rest.append(tokens[i].text)
        i += 1
    if i >= len(tokens) or tokens[i].text != "(" or not rest:
        return None
    close = matching_close(tokens, i)
    if close is None:
        return None
    dims = ""  # ``int values()[]``: old-style brackets after the parameters belong to the result
    j = close + 1
    while j + 1 < len(tokens) and tokens[j].text == "[" and tokens[j + 1].text == "]":
        dims, j = dims + "[]", j + 2
    parameters = tuple(_parameter_type(p) for p in _split_parameters(tokens[i + 1:close]))
    return Declaration(frozenset(modifiers), _ARRAY.sub("[]", " ".join(rest)) + dims, parameters)


def affects_other_classes(old_method: str, new_method: str) -> bool:
    """Whether replacing ``old_method`` by ``new_method`` can change how other, already compiled
    classes compile or link (then the whole project must be rebuilt)."""
    old, new = parse(old_method), parse(new_method)
    if old is None or new is None:
        return True
    return (
        old.result != new.result
        or old.parameters != new.parameters
        or old.modifiers & SHAPE_MODIFIERS != new.modifiers & SHAPE_MODIFIERS
        or new.visibility < old.visibility
    )
