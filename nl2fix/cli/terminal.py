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
import sys
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


LOG_LEVELS = ("debug", "info", "warning", "error")


class _StandardError(logging.StreamHandler):
    """Writes to the standard error of the moment (click's test runner puts its own in place)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def configure_logging(level: int = logging.WARNING) -> None:
    """What the library logs, on standard error from ``level`` up (``--log-level``, ``-v``: info,
    ``-vv``: debug), its hidden characters escaped: a log line may quote a tool's, a test's or a
    candidate's output. Warnings alone read as the messages they are; a more verbose level names
    each line's level and module."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, _StandardError)), None)
    if handler is None:
        handler = _StandardError()
        root.addHandler(handler)
    handler.setFormatter(
        _VisibleFormatter("%(message)s" if level >= logging.WARNING else "%(levelname)s %(name)s: %(message)s")
    )
    handler.setLevel(level)
    root.setLevel(min(level, logging.WARNING))


def louder(verbose: int) -> int:
    """A command's own ``-v`` (given ``verbose`` times): the logging level it asks for, from now on."""
    if verbose:
        configure_logging(verbosity(verbose, None))
    return verbose


def verbosity(verbose: int, log_level: str | None) -> int:
    """The logging level of ``-v`` given ``verbose`` times, or of ``--log-level`` (which wins)."""
    if log_level is not None:
        return int(getattr(logging, log_level.upper()))
    return {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
