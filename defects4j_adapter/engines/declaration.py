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

from nl2fix.java_source.lexer import code_tokens, matching_close
from nl2fix.java_source.methods import MODIFIERS
from nl2fix.java_source.parameters import parameters, skip_annotation
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
    """Parameter types without names, annotations or ``final``; varargs as arrays (see
    :class:`nl2fix.java_source.parameters.Parameter`)."""

    @property
    def visibility(self) -> int:
        return max((VISIBILITY[m] for m in self.modifiers if m in VISIBILITY), default=VISIBILITY[""])


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
            i = skip_annotation(tokens, i)
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
    params = parameters(tokens[i + 1 : close])
    if params is None:
        return None
    return Declaration(frozenset(modifiers), _ARRAY.sub("[]", " ".join(rest)) + dims, tuple(p.type for p in params))


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
