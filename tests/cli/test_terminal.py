"""What reaches the terminal from a line nl2fix prints: hidden characters escaped (marked in reverse video
when colours are on) before nl2fix's own colours, and text after a newline inside a line indented under
it, so a failure message can never start a line where nl2fix's own lines start."""

from __future__ import annotations

import click
from click.testing import CliRunner

from nl2fix.cli.terminal import echo_lines, one_line
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
