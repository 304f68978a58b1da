"""`nl2fix view`: runs in the browser, candidate by candidate (a local, read-only web app), or written as
static pages."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.terminal import say
from nl2fix.store.run_dirs import RUNS_DIR
from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import DEFAULT_PORT, export, serve, start_page


@click.command("view")
@click.option(
    "--run",
    "run_dirs",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (repeatable); default: every run under runs/.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to serve on (0: any free port).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option(
    "--export",
    "export_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write every page to this folder as static files (they open from the file system) and exit.",
)
def view_cmd(run_dirs: tuple[Path, ...], port: int, host: str, export_dir: Path | None):
    """Look at runs in the browser: runs, a run's bugs, a bug's candidates and their failures, runs compared.

    With one run, the viewer opens on that run's page."""
    catalog = Catalog(list(run_dirs)) if run_dirs else Catalog.from_runs_dir(RUNS_DIR)
    if export_dir is None:
        say(f"gathering {len(catalog.runs)} run(s): " + ", ".join(str(r.run_dir) for r in catalog.runs), err=True)
    for run, problem in catalog.gather():
        say(f"warning: {run.run_dir} is left out: {problem.message}", err=True)
    if export_dir is not None:
        pages = export(catalog, export_dir)
        say(f"wrote {pages} pages: {(export_dir / start_page(catalog)).resolve().as_uri()}")
        return
    serve(catalog, host, port, lambda url: say(f"nl2fix view: {url}  (Ctrl-C to stop)"))
