"""The `nl2fix` command group: every subcommand, and user-facing errors printed without a traceback."""

from __future__ import annotations

import sys

import click

from nl2fix import __version__
from nl2fix.cli import commands
from nl2fix.cli.terminal import guard_logging, say
from nl2fix.core.errors import Nl2FixError


class _Group(click.Group):
    """Prints Nl2FixError as ``error: ...`` without a traceback, exit code 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Nl2FixError as exc:
            say(f"error: {exc.message}", err=True)
            if exc.hint:
                say(f"  hint: {exc.hint}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            say("interrupted: everything received so far is in the run store; re-run to resume", err=True)
            sys.exit(130)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="nl2fix")
def cli() -> None:
    """From a natural-language bug report and the buggy Java method to ranked, test-validated fixes."""


for command in commands.ALL:
    cli.add_command(command)


def main() -> None:
    guard_logging()
    cli(prog_name="nl2fix")
