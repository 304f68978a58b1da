"""AST match: a candidate whose syntax tree is the developer fix's, formatting and comments aside
(RepairBench's AST match, beside the paper's exact match).

Both methods are parsed by tree-sitter-java (the grammar CodeBLEU loads: codebleu 0.7 with
tree-sitter<0.23 and tree-sitter-java 0.21) inside a class body, and compared as the sequence of
their nodes' types with the text of every leaf, comments left out. Unlike exact match, this sees
through line breaks and spacing inside tokens' neighbourhood, redundant blank lines and comment
placement, but not through renamed variables or extra parentheses (they are different trees).
A method tree-sitter cannot parse without errors never matches.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_WRAP = ("class _Nl2FixAst {\n", "\n}\n")


@functools.cache
def _parser():
    from codebleu.utils import get_tree_sitter_language
    from tree_sitter import Parser

    return Parser(get_tree_sitter_language("java"))


def unavailable_reason() -> str | None:
    """None when the Java grammar loads here, else why AST match cannot be computed."""
    try:
        _parser()
    except Exception as exc:  # any import/ABI failure of the grammar means the same thing to the user
        return f"AST match is unavailable ({type(exc).__name__}: {exc}); it needs tree-sitter-java 0.21"
    return None


@functools.lru_cache(maxsize=4096)
def ast_key(method: str) -> tuple[str, ...] | None:
    """The method's syntax tree as a flat sequence (node types, leaves with their text), or None when
    it does not parse cleanly."""
    tree = _parser().parse((_WRAP[0] + method + _WRAP[1]).encode("utf-8"))
    if tree.root_node.has_error:
        return None
    out: list[str] = []
    stack = [tree.root_node]  # None closes a node's children (a walk without recursion: deep trees)
    while stack:
        node = stack.pop()
        if node is None:
            out.append(")")
        elif node.child_count == 0:
            if node.type not in _COMMENTS:
                out.append(f"{node.type}:{node.text.decode('utf-8', errors='replace')}")
        elif node.type not in _COMMENTS:
            out.append(f"({node.type}")
            stack.append(None)
            stack.extend(reversed(node.children))
    return tuple(out)


def ast_matches(candidates: Iterable[str], reference: str) -> list[bool]:
    """Per candidate: the same syntax tree as ``reference`` (comments and formatting aside)."""
    target = ast_key(reference)
    return [target is not None and ast_key(c) == target for c in candidates]
