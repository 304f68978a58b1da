"""`nl2fix compare`: runs side by side (the paper's Table 5 and Figure 3)."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.report_cmd import echo_result, format_option, out_option
from nl2fix.report.compare import write_compare


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@format_option()
@out_option
def compare_cmd(runs: tuple[Path, ...], fmt: str, out: Path | None):
    """Compare runs: pass@k per model/strategy/temperature and the overlap of bugs fixed."""
    if len(runs) < 2:
        raise click.UsageError("give at least two run directories")
    if fmt == "html" and out is None:
        raise click.UsageError("--format html writes a file: add --out FILE.html")
    echo_result(write_compare(list(runs), fmt, out))
