"""A classic generate-and-validate baseline: candidates made by small edits of the buggy method.

Operators (each applied at one place of the method body at a time): boundary changes of relational
operators (``<`` to ``<=`` ...), ``==``/``!=``, ``&&``/``||``, ``true``/``false``, binary ``+``/``-`` and ``*``/``/``,
negating an ``if``/``while`` condition, integer literal plus or minus one, swapping two adjacent call
arguments, a null guard around a statement that dereferences a variable, and deleting an expression
statement. Every single edit comes first, in an order shuffled by the seed and the bug; then pairs of
edits, for as many more candidates as are asked. The order of mutant ``i`` never depends on how many
were asked for, so a resumed run gets the same mutant for the same sample index. Pure.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from nl2fix.java_source.lexer import Kind, Token, matching_close, tokenize
from nl2fix.java_source.methods import KEYWORDS, main_method
from nl2fix.java_source.text import candidate_hash

_SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "&&": "||",
    "||": "&&",
    "true": "false",
    "false": "true",
}
_ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*"}
_GENERIC_PARTS = frozenset(", . ? & [ ] < > >> >>> extends super".split())
_STATEMENT_START = frozenset("; { }".split())
_OPERAND_END = (Kind.WORD, Kind.NUMBER, Kind.STRING, Kind.CHAR)
PAIR_ATTEMPTS = 20_000
"""Most pairs of edits tried once single edits run out."""


@dataclass(frozen=True)
class Edit:
    """Replace tokens ``start``..``end`` (exclusive, indices into the full token list) with ``text``."""

    operator: str
    start: int
    end: int
    text: str


def _code_indices(tokens: list[Token]) -> list[int]:
    return [i for i, t in enumerate(tokens) if t.kind not in (Kind.SPACE, Kind.COMMENT)]


def _generic_brackets(tokens: list[Token], code: list[int]) -> set[int]:
    """Token indices of ``<``/``>`` that delimit type arguments rather than compare."""
    generic: set[int] = set()
    for pos, i in enumerate(code):
        if tokens[i].text != "<" or pos == 0:
            continue
        before = tokens[code[pos - 1]]
        if not (before.text == "." or before.kind is Kind.WORD and before.text[:1].isupper()):
            continue
        depth, seen = 0, []
        for j in code[pos:]:
            text = tokens[j].text
            if tokens[j].kind is not Kind.WORD and text not in _GENERIC_PARTS:
                break
            if text in ("<", ">", ">>", ">>>"):
                seen.append(j)
                depth += 1 if text == "<" else -len(text)
                if depth <= 0:
                    generic.update(seen)
                    break
    return generic


def _call_arguments(tokens: list[Token], code: list[int], open_pos: int) -> list[tuple[int, int]]:
    """(first, last) code positions of each top-level argument of the call whose ``(`` is at ``open_pos``."""
    args, depth, first = [], 0, open_pos + 1
    for pos in range(open_pos + 1, len(code)):
        text = tokens[code[pos]].text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            if depth == 0:
                if pos > first:
                    args.append((first, pos - 1))
                return args
            depth -= 1
        elif text == "," and depth == 0:
            args.append((first, pos - 1))
            first = pos + 1
    return []


def _statement_end(tokens: list[Token], code: list[int], pos: int) -> int | None:
    """Code position of the ``;`` ending a simple statement starting at ``pos`` (None if it has a block)."""
    depth = 0
    for p in range(pos, len(code)):
        text = tokens[code[p]].text
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif text in ("{", "}"):
            return None
        elif text == ";" and depth == 0:
            return p
    return None


def single_edits(method: str) -> tuple[list[Token], list[Edit]]:
    """The method's tokens and every single edit of its body, in text order."""
    tokens = tokenize(method)
    code = _code_indices(tokens)
    span = main_method(method)
    body_from = next((p for p, i in enumerate(code) if tokens[i].start >= span.header_end), len(code)) if span else 0
    generic = _generic_brackets(tokens, code)
    edits: list[Edit] = []

    def text_between(first: int, last: int) -> str:
        return "".join(t.text for t in tokens[code[first] : code[last] + 1])

    for pos in range(body_from, len(code)):
        i = code[pos]
        tok = tokens[i]
        prev = tokens[code[pos - 1]] if pos > 0 else None
        if tok.text in _SWAPS and tok.kind in (Kind.OP, Kind.WORD) and i not in generic:
            edits.append(Edit("swap-operator", i, i + 1, _SWAPS[tok.text]))
        elif tok.text in _ARITHMETIC and prev is not None and (prev.kind in _OPERAND_END or prev.text in (")", "]")):
            edits.append(Edit("arithmetic", i, i + 1, _ARITHMETIC[tok.text]))
        elif tok.kind is Kind.NUMBER and tok.text.isdigit():
            value = int(tok.text)
            edits.append(Edit("literal+1", i, i + 1, str(value + 1)))
            if value > 0:
                edits.append(Edit("literal-1", i, i + 1, str(value - 1)))
        elif tok.text in ("if", "while") and pos + 1 < len(code) and tokens[code[pos + 1]].text == "(":
            close = matching_close(tokens, code[pos + 1])
            if close is not None:
                inner = "".join(t.text for t in tokens[code[pos + 1] + 1 : close])
                edits.append(Edit("negate-condition", code[pos + 1], close + 1, f"(!({inner}))"))
        elif tok.text == "(" and prev is not None and prev.kind is Kind.WORD and prev.text not in KEYWORDS:
            args = _call_arguments(tokens, code, pos)
            for (a1, a2), (b1, b2) in zip(args, args[1:]):
                between = "".join(t.text for t in tokens[code[a2] + 1 : code[b1]])
                swapped = text_between(b1, b2) + between + text_between(a1, a2)
                edits.append(Edit("swap-arguments", code[a1], code[b2] + 1, swapped))
        if prev is not None and prev.text in _STATEMENT_START and tok.kind is Kind.WORD and tok.text not in KEYWORDS:
            end = _statement_end(tokens, code, pos)
            if end is not None:
                statement = text_between(pos, end)
                edits.append(Edit("delete-statement", i, code[end] + 1, ""))
                dereferenced = pos + 1 < len(code) and tokens[code[pos + 1]].text == "."
                if dereferenced and tok.text[:1].islower():
                    edits.append(Edit("null-guard", i, code[end] + 1, f"if ({tok.text} != null) {{ {statement} }}"))
    return tokens, edits


def apply(tokens: list[Token], edits: list[Edit]) -> str:
    """The text with non-overlapping ``edits`` applied."""
    out: list[str] = []
    at = 0
    for edit in sorted(edits, key=lambda e: e.start):
        out.extend(t.text for t in tokens[at : edit.start])
        out.append(edit.text)
        at = edit.end
    out.extend(t.text for t in tokens[at:])
    return "".join(out)


def mutants(method: str, seed: int = 0, key: str = "") -> Iterator[str]:
    """Distinct mutants of ``method`` (none equal to it modulo whitespace and comments), in the
    seeded order: all single edits, then pairs of edits at different places."""
    tokens, edits = single_edits(method)
    seen = {candidate_hash(method)}

    def fresh(text: str) -> bool:
        h = candidate_hash(text)
        if h in seen:
            return False
        seen.add(h)
        return True

    rng = random.Random(f"{seed}:{key}")
    order = list(edits)
    rng.shuffle(order)
    for edit in order:
        text = apply(tokens, [edit])
        if fresh(text):
            yield text
    pairs = [(a, b) for a, b in _pairs(edits, rng) if a.end <= b.start or b.end <= a.start]
    for a, b in pairs:
        text = apply(tokens, [a, b])
        if fresh(text):
            yield text


def _pairs(edits: list[Edit], rng: random.Random) -> Iterator[tuple[Edit, Edit]]:
    """Distinct pairs of edits in a seeded order: all of them when there are few, else a sample."""
    count = len(edits) * (len(edits) - 1) // 2
    if count <= PAIR_ATTEMPTS:
        every = [(a, b) for i, a in enumerate(edits) for b in edits[i + 1 :]]
        rng.shuffle(every)
        yield from every
        return
    tried: set[tuple[int, int]] = set()
    while len(tried) < PAIR_ATTEMPTS:
        i, j = sorted(rng.sample(range(len(edits)), 2))
        if (i, j) not in tried:
            tried.add((i, j))
            yield edits[i], edits[j]
