"""Text from code made safe inside Markdown: docstrings and help texts hold ``<RUN>``-like words, ``|`` and
RST's double backticks, which Markdown would read as HTML, table cells and empty code."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

_CODE = re.compile(r"(``?)(.+?)\1")


def prose(text: str, *, in_table: bool = False) -> str:
    """``text`` with its code spans kept (RST's ````x```` made Markdown's ```x```) and everything
    outside them escaped for HTML (and ``|`` for a table: Python-Markdown's tables already leave the
    ``|`` of code spans alone)."""

    def escaped(plain: str) -> str:
        plain = html.escape(plain, quote=False)
        return plain.replace("|", "\\|") if in_table else plain

    out, at = [], 0
    for match in _CODE.finditer(text):
        out.append(escaped(text[at : match.start()]))
        out.append(f"`{match.group(2)}`")
        at = match.end()
    out.append(escaped(text[at:]))
    return "".join(out)


def cell(text: str) -> str:
    """``text`` as one table cell: one line."""
    return prose(" ".join(text.split()), in_table=True)


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def docstring(text: str) -> str:
    """A script's docstring as Markdown: its prose paragraphs escaped as :func:`prose`, its indented ones
    (the command lines) kept as they are, which Markdown shows as code."""

    def indented(paragraph: str) -> bool:
        return all(line.startswith("    ") for line in paragraph.splitlines())

    return "\n\n".join(p if indented(p) else prose(p) for p in text.split("\n\n"))
