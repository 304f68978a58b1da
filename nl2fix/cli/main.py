"""The `nl2fix` command group: every subcommand, and user-facing errors printed without a traceback.

Ctrl-C: the first one interrupts the command, which keeps what it stored and says how to resume; a
second one, while the first is still winding down (threads waiting on a model server or a JVM), ends
the process at once."""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading

import click

from nl2fix import __version__
from nl2fix.cli import commands
from nl2fix.cli.terminal import LOG_LEVELS, configure_logging, say, verbosity
from nl2fix.core.errors import Nl2FixError

INTERRUPTED = 130
"""The exit code of a command ended by Ctrl-C (a shell's 128 + SIGINT)."""


def _second_interrupt(signum, frame) -> None:
    os.write(2, b"interrupted again: exiting now\n")
    os._exit(INTERRUPTED)


def _first_interrupt(signum, frame) -> None:
    signal.signal(signal.SIGINT, _second_interrupt)
    raise KeyboardInterrupt


def _fail(error: Nl2FixError) -> None:
    say(f"error: {error.message}", err=True)
    if error.hint:
        say(f"  hint: {error.hint}", err=True)
    sys.exit(2)


class _Group(click.Group):
    """Prints Nl2FixError as ``error: ...`` without a traceback, exit code 2."""

    def invoke(self, ctx):
        # a SIGINT ignored on purpose (a background job's) stays ignored; `view` makes its own choice
        handling = (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        )
        if handling:
            signal.signal(signal.SIGINT, _first_interrupt)
        interrupted = False
        try:
            return super().invoke(ctx)
        except Nl2FixError as exc:
            _fail(exc)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            _fail(
                Nl2FixError(
                    f"no space left on the device holding {exc.filename or 'the run'}",
                    "everything stored before is kept; free space there, then re-run the same command to resume",
                )
            )
        except KeyboardInterrupt:
            interrupted = True
            say("interrupted: everything received so far is in the run store; re-run to resume", err=True)
            sys.exit(INTERRUPTED)
        finally:
            if handling:
                # threads still waiting (on a model server, a JVM) may hold the exit up: a second Ctrl-C ends it
                signal.signal(signal.SIGINT, _second_interrupt if interrupted else signal.default_int_handler)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="nl2fix")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Say what is done on standard error: -v what each step did (info), -vv everything (debug).",
)
@click.option(
    "--log-level",
    type=click.Choice(LOG_LEVELS, case_sensitive=False),
    default=None,
    help="The level of what is logged on standard error (overrides -v)  [default: warning]",
)
def cli(verbose: int, log_level: str | None) -> None:
    """From a natural-language bug report and the buggy Java method to ranked, test-validated fixes."""
    configure_logging(verbosity(verbose, log_level))


for command in commands.ALL:
    cli.add_command(command)


def main() -> None:
    configure_logging()  # before the group's options are read: a warning while parsing them shows too
    cli(prog_name="nl2fix")
