"""`nl2fix export`: a run's samples as JSON lines or in the NL2Fix patch format."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.options import run_option
from nl2fix.cli.terminal import say
from nl2fix.report.export import export_run


@click.command("export")
@run_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "nl2fix"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one object per sample (with verdict and ranks when stored); nl2fix: {key: {prompt, patches}}.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here instead of stdout."
)
def export_cmd(run_dir: Path, fmt: str, out: Path | None) -> None:
    """Export every sample of a run."""

    result = export_run(run_dir, fmt, out)
    if out is None:
        say(str(result), nl=False)
    else:
        say(f"wrote {result}", err=True)
