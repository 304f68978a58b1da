"""Options shared by several commands."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from nl2fix.dataset import Dataset, open_dataset
from nl2fix.models import Bug


def dataset_options(fn):
    """``--dataset`` and ``--defects4j-meta``: which benchmark the bugs come from."""

    @click.option(
        "--dataset",
        "dataset",
        default=None,
        help="`example` for the bundled benchmark, a path to an NL2Fix JSON, or (default) the pulled dataset.",
    )
    @click.option(
        "--defects4j-meta",
        "metadata_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder laid out like Defects4J's framework/projects (trigger/relevant tests, revisions).",
    )
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def selection_options(fn):
    """``--bug`` (repeatable), ``--project`` (repeatable), ``--all``."""

    @click.option("--bug", "bug_ids", multiple=True, help="Bug id, e.g. JxPath-20 (repeatable; forgiving spelling).")
    @click.option("--project", "projects", multiple=True, help="Every bug of a project (repeatable).")
    @click.option("--all", "all_bugs", is_flag=True, help="Every bug of the dataset.")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def load_selection(dataset: str | None, metadata_dir: Path | None, bug_ids, projects, all_bugs) -> tuple[Dataset, list[Bug]]:
    ds = open_dataset(dataset, str(metadata_dir) if metadata_dir else None)
    for problem in ds.problems:
        click.echo(f"warning: {problem}", err=True)
    return ds, ds.select(bug_ids, projects, all_bugs)


def latest_run_dir(run_dir: Path | None) -> Path:
    """``run_dir``, or else the most recently written run under ``runs/`` (said on standard error)."""
    if run_dir is not None:
        return run_dir
    from nl2fix.run_dirs import latest_run

    latest, others = latest_run()
    more = f"; others: {', '.join(map(str, others))}" if others else ""
    click.echo(f"run: {latest} (the latest under {latest.parent}/{more})", err=True)
    return latest


run_option = click.option(
    "--run",
    "run_dir",
    default=None,
    callback=lambda ctx, param, value: latest_run_dir(value),
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (holds run.sqlite and artifacts); default: the latest under runs/.",
)

new_run_option = click.option(
    "--run",
    "run_dir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (holds run.sqlite and artifacts); default: runs/<dataset>-<strategy>-<model>-<temperature>.",
)
