"""``nl2fix`` commands run in the script's own process (click's runner), for the example scripts:
the command's output, or the script ends with it when the command fails."""

from __future__ import annotations

from click.testing import CliRunner

from nl2fix.cli.main import cli


def nl2fix(*args: object) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    if result.exit_code:
        raise SystemExit(result.output)
    return result.output
