"""`nl2fix dataset`: download the dataset, summarise it, show one bug."""

from __future__ import annotations

import difflib

import click

from nl2fix.cli.options import dataset_options
from nl2fix.dataset import DATASET_SHA256, DATASET_URL, open_dataset
from nl2fix.java_text import remove_comments


@click.group("dataset")
def dataset() -> None:
    """The Defects4J-NL2Fix dataset (or the bundled example benchmark with --dataset example)."""


@dataset.command("pull")
@click.option("--url", default=DATASET_URL, show_default=True, help="Where to fetch it from (file:// works for a copy).")
@click.option("--sha256", default=DATASET_SHA256, show_default=True, help="The checksum the file must have.")
@click.option("--force", is_flag=True, help="Download again even if a good copy is in place.")
def pull_cmd(url: str, sha256: str, force: bool) -> None:
    """Download the published dataset to the data directory ($NL2FIX_DATA_DIR) and verify it."""
    from nl2fix.download import pull

    path, fetched = pull(url, sha256, force=force)
    click.echo(f"{'downloaded' if fetched else 'already in place'}: {path} (sha256 verified)")


@dataset.command("stats")
@dataset_options
def stats_cmd(dataset: str | None, metadata_dir) -> None:
    """Per-project counts, average method size, changed lines/tokens and issue lengths."""
    from nl2fix.dataset_stats import format_table, project_stats

    ds = open_dataset(dataset, str(metadata_dir) if metadata_dir else None)
    click.echo(format_table(project_stats(list(ds.bugs.values()))))
    if ds.problems:
        click.echo(f"\n{len(ds.problems)} problems in {ds.source}:", err=True)
        for problem in ds.problems:
            click.echo(f"  {problem}", err=True)


@dataset.command("show")
@dataset_options
@click.argument("bug_id")
@click.option("--original", is_flag=True, help="Show the buggy method with its comments (models get it without).")
def show_cmd(dataset: str | None, metadata_dir, bug_id: str, original: bool) -> None:
    """Print one bug: issue, location, tests, buggy and fixed method, and their diff."""
    ds = open_dataset(dataset, str(metadata_dir) if metadata_dir else None)
    bug = ds.resolve(bug_id)
    buggy = bug.buggy_method if original else bug.buggy_method_no_comments
    fixed = bug.fixed_method if original else remove_comments(bug.fixed_method)
    diff = difflib.unified_diff(buggy.splitlines(), fixed.splitlines(), "buggy", "fixed", lineterm="")
    fields = [
        ("bug", bug.id),
        ("file", f"{bug.path}:{bug.start_line}-{bug.end_line}"),
        ("issue", bug.issue_url or "-"),
        ("revisions", f"{bug.buggy_revision or '-'} (buggy) {bug.fixed_revision or '-'} (fixed)"),
        ("trigger tests", ", ".join(bug.trigger_tests) or "-"),
        ("relevant tests", f"{len(bug.relevant_tests)} classes"),
        ("comments", str(len(bug.comments))),
    ]
    for name, value in fields:
        click.echo(f"{name + ':':16}{value}")
    click.echo(f"\n# {bug.title}\n\n{bug.description or '(no description)'}")
    click.echo(f"\n--- buggy method{'' if original else ' (comments removed)'}\n{buggy}")
    click.echo(f"\n--- fixed method\n{fixed}\n\n--- diff\n" + "\n".join(diff))
