"""What reaches the terminal from a line nl2fix prints: hidden characters escaped (marked in reverse video
when colours are on) before nl2fix's own colours, and text after a newline inside a line indented under
it, so a failure message can never start a line where nl2fix's own lines start."""

from __future__ import annotations

import logging

import click
import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.cli.terminal import echo_lines, louder, one_line, verbosity
from ranking.display import Line, Style


def test_a_multi_line_message_cannot_forge_nl2fix_lines():
    # a failure message that mimics `nl2fix show`'s own candidate lines (the attack: its second line
    # would have started at column 0, like a real `#2 ...` line)
    message = "boom\n\n#1  score 0.9  1 sample  0123456789abcdef  plausible, same-behaviour\n+ return x;"
    shown = one_line(f"    {message}").split("\n")
    assert shown[0] == "    boom"
    assert all(line.startswith("      | ") for line in shown[1:])


def test_escapes_are_marked_inside_the_lines_colour_when_colours_are_on():
    @click.command()
    def show():
        echo_lines([Line("#1  wrong \x1b[2K\u202e", Style.BAD)])

    coloured = CliRunner().invoke(show, color=True).output
    assert "\x1b[2K" not in coloured and "\u202e" not in coloured
    assert "\x1b[7m\\x1b\x1b[27m[2K\x1b[7m\\u202e\x1b[27m" in coloured
    assert CliRunner().invoke(show).output == "#1  wrong \\x1b[2K\\u202e\n"


@pytest.fixture
def root_logging():
    """The root logger as it was before the test, put back after it (the group configures it)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    root.handlers[:], root.level = handlers, level


@pytest.mark.parametrize(
    "options,shown,hidden",
    [
        ([], ["warned"], ["told", "detail"]),
        (["-v"], ["warned", "INFO defects4j_adapter.engines.fast: told"], ["detail"]),
        (["-vv"], ["warned", "told", "DEBUG nl2fix.validation.stage: detail"], []),
        (["-vv", "--log-level", "warning"], ["warned"], ["told", "detail"]),
        (["--log-level", "INFO"], ["told"], ["detail"]),
    ],
)
def test_the_group_s_verbosity_decides_what_the_library_s_logs_show(root_logging, capsys, options, shown, hidden):
    result = CliRunner().invoke(cli, [*options, "validate", "--help"])
    assert result.exit_code == 0, result.output
    logging.getLogger("defects4j_adapter.sandbox.unconfined").warning("warned \x1b[2K")
    logging.getLogger("defects4j_adapter.engines.fast").info("told")
    logging.getLogger("nl2fix.validation.stage").debug("detail")
    err = capsys.readouterr().err
    assert all(text in err for text in shown) and not any(text in err for text in hidden), err
    assert "\x1b" not in err  # what a log line quotes is shown escaped


def test_a_command_s_own_v_is_louder_too(root_logging):
    assert verbosity(0, None) == logging.WARNING and verbosity(3, None) == logging.DEBUG
    assert louder(0) == 0 and louder(1) == 1
    handler = next(h for h in root_logging.handlers if h.level == logging.INFO)
    assert handler.formatter is not None and "%(levelname)s" in handler.formatter._fmt
