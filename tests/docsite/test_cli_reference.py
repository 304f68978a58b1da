"""The generated CLI reference says what ``--help`` says: for every command, the same usage line and the
same options, each with the same help text."""

from __future__ import annotations

import html
import re

import click
import pytest
from click.testing import CliRunner

from docsite import cli_reference
from nl2fix.cli.main import cli

PAGE = cli_reference.page(cli)
EVERY = [ctx.command_path.split()[1:] for _, ctx in cli_reference.commands(cli, click.Context(cli, info_name="nl2fix"))]


def squeezed(text: str) -> str:
    """``text`` without white space: ``--help`` wraps its lines where it likes (a hyphen too)."""
    return "".join(text.split())


def help_options(text: str) -> dict[str, str]:
    """``--help``'s Options section: each option's names and metavar, and its help text on one line."""
    options: dict[str, str] = {}
    name = None
    for line in text.split("Options:\n", 1)[1].split("\n"):
        entry = re.match(r"^  (-\S.*?)(?:\s{2,}(.*))?$", line)
        if entry:
            name = entry.group(1)
            options[name] = entry.group(2) or ""
        elif name and line.strip() and line.startswith("   "):
            options[name] += " " + line.strip()
        elif not line.strip().startswith("-") and not line.startswith(" "):
            name = None
    return {n: squeezed(h) for n, h in options.items()}


def section_of(path: list[str]) -> str:
    heading = re.compile(rf"^#+ {re.escape(' '.join(['nl2fix', *path]))}$", re.M)
    start = heading.search(PAGE)
    assert start, f"no section for nl2fix {' '.join(path)}"
    following = re.compile(r"^#+ nl2fix\b", re.M).search(PAGE, start.end())
    return PAGE[start.end() : following.start() if following else len(PAGE)]


def page_options(section: str) -> dict[str, str]:
    rows = re.findall(r"^\| `(-[^`]+)` \| (.*) \|$", section, re.M)
    return {name: squeezed(html.unescape(text.replace("\\|", "|"))) for name, text in rows}


@pytest.mark.parametrize("path", EVERY, ids=lambda path: " ".join(["nl2fix", *path]))
def test_each_command_is_documented_as_help_prints_it(path):
    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="nl2fix", terminal_width=80)
    assert result.exit_code == 0, result.output
    section = section_of(path)
    usage = result.output.split("\n", 1)[0].removeprefix("Usage: ")
    assert f"```text\n{usage}\n```" in section
    assert page_options(section) == help_options(result.output)


def test_every_subcommand_of_the_cli_has_a_section():
    names = {" ".join(path) for path in EVERY}
    assert {"", "validate", "run", "fix", "dataset", "dataset build", "image build"} <= names
    assert len(re.findall(r"^#+ nl2fix", PAGE, re.M)) == len(EVERY)


def test_an_option_added_to_a_command_appears_in_its_section():
    @click.command()
    @click.option("--depth", type=int, default=3, show_default=True, help="How deep | how far <N> goes.")
    def probe() -> None:
        """Probe things."""

    page = cli_reference.page(probe, name="probe")
    assert "| `--depth INTEGER` | How deep \\| how far &lt;N&gt; goes. [default: 3] |" in page
