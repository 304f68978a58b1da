"""Options shared by several commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from nl2fix.cli.terminal import say
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.filters import BugFilter, parse_day, parse_flags
from nl2fix.dataset.hard_bugs import DEFAULT_LONG_FIX_LINES
from nl2fix.dataset.load import Dataset, open_dataset
from nl2fix.store.run_dirs import latest_run

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def option_group(*options: Decorator) -> Decorator:
    """One decorator for several ``click.option`` decorators: a command it decorates gets them in the
    order given, as if they were stacked above it in that order (the way every group of options that
    several commands share is made)."""

    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return apply


def defects4j_meta_option(help: str) -> Decorator:
    """``--defects4j-meta DIR`` (the command's ``metadata_dir``), with the command's own ``help``."""
    return click.option(
        "--defects4j-meta", "metadata_dir", type=click.Path(file_okay=False, path_type=Path), default=None, help=help
    )


dataset_options = option_group(
    click.option(
        "--dataset",
        "dataset",
        default=None,
        help="`example` for the bundled benchmark, a path to an NL2Fix JSON, or (default) the pulled dataset.",
    ),
    defects4j_meta_option("Folder laid out like Defects4J's framework/projects (trigger/relevant tests, revisions)."),
)
"""``--dataset`` and ``--defects4j-meta``: which benchmark the bugs come from."""


_FILTER_KEY = "nl2fix.bug_filter"


def _remember_filter(ctx: click.Context, param: click.Parameter, value):
    """Filter options are not passed to the command (commands that reuse another's parameters,
    like `nl2fix run`, get them too): they are kept in the context for :func:`load_selection`."""
    ctx.meta.setdefault(_FILTER_KEY, {})[param.name] = value
    return value


selection_options = option_group(
    click.option("--bug", "bug_ids", multiple=True, help="Bug id, e.g. JxPath-20 (repeatable; forgiving spelling)."),
    click.option("--project", "projects", multiple=True, help="Every bug of a project (repeatable)."),
    click.option("--all", "all_bugs", is_flag=True, help="Every bug of the dataset."),
    click.option(
        "--created-after",
        default=None,
        metavar="DATE",
        expose_value=False,
        callback=_remember_filter,
        help="Only bugs whose issue was opened on or after DATE (YYYY-MM-DD; needs a built dataset's dates).",
    ),
    click.option(
        "--created-before",
        default=None,
        metavar="DATE",
        expose_value=False,
        callback=_remember_filter,
        help="Only bugs whose issue was opened before DATE.",
    ),
    click.option(
        "--flag",
        "hard_flags",
        multiple=True,
        metavar="[no-]FLAG",
        expose_value=False,
        callback=_remember_filter,
        help="Only bugs with (no-: without) a difficulty flag: multi-hunk, long-fix, outside-method (repeatable).",
    ),
    click.option(
        "--long-fix-lines",
        type=click.IntRange(min=0),
        default=None,
        metavar="N",
        expose_value=False,
        callback=_remember_filter,
        help="A fix is long-fix when it removes plus adds more than N lines [10].",
    ),
)
"""``--bug`` (repeatable), ``--project`` (repeatable), ``--all``; narrowed by
``--created-after/--created-before`` and ``--flag`` (applied in :func:`load_selection`)."""


def _bug_filter():
    ctx = click.get_current_context(silent=True)
    given = ctx.meta.get(_FILTER_KEY, {}) if ctx is not None else {}
    after, before, lines = given.get("created_after"), given.get("created_before"), given.get("long_fix_lines")
    return BugFilter(
        created_after=parse_day(after, "--created-after") if after else None,
        created_before=parse_day(before, "--created-before") if before else None,
        flags=parse_flags(given.get("hard_flags") or ()),
        long_fix_lines=DEFAULT_LONG_FIX_LINES if lines is None else lines,
    )


def load_selection(
    dataset: str | None, metadata_dir: Path | None, bug_ids, projects, all_bugs
) -> tuple[Dataset, list[Bug]]:
    ds = open_dataset(dataset, str(metadata_dir) if metadata_dir else None)
    for problem in ds.problems:
        say(f"warning: {problem}", err=True)
    bugs = ds.select(bug_ids, projects, all_bugs)
    bug_filter = _bug_filter()
    if bug_filter.active:
        bugs, notes = bug_filter.apply(bugs)
        for note in notes:
            say(f"warning: {note}", err=True)
        if not bugs:
            raise Nl2FixError(
                "no bug is left after --created-after/--created-before/--flag",
                "loosen the filters, or check the dates with `nl2fix dataset show BUG`",
            )
    return ds, bugs


def latest_run_dir(run_dir: Path | None) -> Path:
    """``run_dir``, or else the most recently written run under ``runs/`` (said on standard error)."""
    if run_dir is not None:
        return run_dir

    latest, others = latest_run()
    more = f"; others: {', '.join(map(str, others))}" if others else ""
    say(f"run: {latest} (the latest under {latest.parent}/{more})", err=True)
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
