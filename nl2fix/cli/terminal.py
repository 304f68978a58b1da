"""What nl2fix prints to a terminal: styled lines and messages, whatever they quote shown as text.

Candidates' code, tests' failure messages and probes' values reach the terminal in these lines; a
control character or escape sequence among them would act on the terminal (move the cursor, erase,
recolour) instead of showing. Every text is printed through :func:`nl2fix.core.visible_text.visible`
before nl2fix's own colours are added, the escapes in reverse video; and what follows a newline inside
one line is indented like its first line, so quoted text never starts a line where nl2fix's own
lines (a candidate's ``#2  plausible``) start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import click

from nl2fix.core.visible_text import visible
from ranking.display import Line, Style

# click.echo drops these codes when stdout is not a terminal.
COLOURS: dict[Style, dict[str, Any]] = {
    Style.PLAIN: {},
    Style.TITLE: {"bold": True},
    Style.ADDED: {"fg": "green"},
    Style.REMOVED: {"fg": "red"},
    Style.HUNK: {"fg": "cyan"},
    Style.GOOD: {"fg": "green", "bold": True},
    Style.BAD: {"fg": "red", "bold": True},
    Style.UNKNOWN: {"fg": "yellow"},
}
CONTINUATION = "  | "
"""Put before each further line of a line's text, after the first line's indentation."""


def _reverse(escape: str) -> str:
    # reverse video on and off only, so the line's own colour goes on after the escape
    return f"\x1b[7m{escape}\x1b[27m"


def one_line(text: str) -> str:
    """A line's text as printed: hidden characters escaped, further lines indented under the first."""
    first, *rest = visible(text, _reverse).split("\n")
    indent = first[: len(first) - len(first.lstrip(" "))] + CONTINUATION
    return "\n".join([first, *(indent + line for line in rest)])


def say(text: str, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of a message or document that may quote what a candidate, a test or a project
    wrote, its hidden characters escaped."""
    click.echo(visible(text, _reverse), err=err, nl=nl)


def echo_lines(lines: Iterable[Line]) -> None:
    """Print :class:`ranking.display.Line` s in their styles."""
    for line in lines:
        click.echo(click.style(one_line(line.text), **COLOURS[line.style]))


class _VisibleFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))


def guard_logging() -> None:
    """Warnings (a retried step's failure, which may quote a tool's or a test's output) printed as
    Python's last-resort handler prints them, their hidden characters escaped."""
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_VisibleFormatter("%(message)s"))
    logging.getLogger().addHandler(handler)
