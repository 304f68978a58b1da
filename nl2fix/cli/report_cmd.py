"""`nl2fix report`: one run's pass@k, tables and figures as text, Markdown, HTML or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from nl2fix.cli.options import latest_run_dir
from nl2fix.cli.terminal import say
from nl2fix.dataset.filters import parse_day
from nl2fix.report.data import ReportData
from nl2fix.report.render import ReportFormat, write_report


def format_option(default: ReportFormat = ReportFormat.TEXT):
    return click.option(
        "--format",
        "fmt",
        type=click.Choice([f.value for f in ReportFormat]),
        default=default.value,
        show_default=True,
        help="html is one self-contained file with its figures; json is the documented data.",
    )


out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to this file instead of standard output.",
)


def echo_result(result: Path | str) -> None:
    if isinstance(result, Path):
        say(f"report: {result}")
    else:
        say(result, nl=False)


@click.command("report")
@click.option(
    "--run",
    "run_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run directory (holds run.sqlite); default: the latest under runs/.",
)
@format_option()
@out_option
@click.option(
    "--no-codebleu",
    is_flag=True,
    help="Leave out CodeBLEU (Figure 4); it costs ~20 ms per new candidate and is cached in the run.",
)
@click.option(
    "--cutoff",
    default=None,
    metavar="DATE",
    help="A model's training cut-off (YYYY-MM-DD): split pass@k into bugs whose issue is older and newer.",
)
@click.option("--schema", is_flag=True, help="Print the JSON Schema of --format json (its documentation) and exit.")
def report_cmd(run_dir: Path | None, fmt: str, out: Path | None, no_codebleu: bool, cutoff: str | None, schema: bool):
    """Report a run: pass@k, ranked pass@k, the paper's tables and figures (html: RUN/report.html unless --out)."""
    if schema:
        if run_dir is not None:
            raise click.UsageError("--schema describes every report; it takes no --run")
        say(json.dumps(ReportData.model_json_schema(), indent=2))
        return
    run_dir = latest_run_dir(run_dir)

    day = parse_day(cutoff, "--cutoff") if cutoff else None
    echo_result(write_report(run_dir, fmt, out, codebleu=not no_codebleu, progress=True, cutoff=day))
