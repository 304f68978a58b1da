"""`nl2fix prepare`: check out and compile the selected bugs ahead of validation."""

from __future__ import annotations

import time
from pathlib import Path

import click

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.workspaces.prepare import PrepareStatus, prepare_bugs
from nl2fix.cli.options import dataset_options, load_selection, selection_options
from nl2fix.cli.terminal import say


@click.command("prepare")
@dataset_options
@selection_options
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Bugs prepared in parallel.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def prepare_cmd(dataset, metadata_dir, bug_ids, projects, all_bugs, workers, quiet):
    """Check out, compile and read the tests of the selected bugs' buggy revisions into the nl2fix
    cache ($NL2FIX_CACHE_DIR), where every later validation finds them; and check that each buggy
    method is where splicing looks for it. Bugs already prepared are reused. Exit status 1 when a
    bug cannot be prepared."""

    ds, bugs = load_selection(dataset, metadata_dir, bug_ids, projects, all_bugs)
    projects_dir = Path(ds.source).parent / "projects"
    options = EngineOptions(
        sandbox=None, cache_dir=cache.cache_dir(), projects_dir=projects_dir if projects_dir.is_dir() else None
    )
    start = time.monotonic()
    failed = 0
    for done in prepare_bugs(bugs, options, workers=workers, progress=not quiet):
        failed += done.status is PrepareStatus.FAILED
        say(f"{done.status.value:4} {done.bug.id}" + (f": {done.detail}" if done.detail else ""))
    say(f"{len(bugs) - failed} of {len(bugs)} bugs prepared in {options.cache_dir} ({time.monotonic() - start:.0f} s)")
    if failed:
        raise SystemExit(1)
