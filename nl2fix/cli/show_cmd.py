"""`nl2fix show`: a bug's top-ranked candidates, with verdicts, as diffs against the buggy method."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.options import run_option
from nl2fix.cli.terminal import echo_lines
from nl2fix.core.domain import USER_BENCHMARK
from nl2fix.fix.patches import fix_view
from nl2fix.store.run_store import RunStore
from ranking.display import bug_view, choose_ranker


@click.command("show")
@run_option
@click.option("--bug", "bug_id", required=True, help="Bug id, e.g. JxPath-20 (forgiving spelling).")
@click.option("--ranker", default=None, help="Ranker key (default paper:tfidf:median, or the run's only one).")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many candidates.")
def show_cmd(run_dir: Path, bug_id: str, ranker: str | None, k: int):
    """Print a bug's top-k ranked candidates: score, duplicates, verdict, failing tests and a diff.

    Before `nl2fix rank` has run, its first k candidates by samples, unranked."""
    with RunStore(run_dir, read_only=True) as store:
        bug = store.bug(bug_id)
        key = choose_ranker(store, ranker)
        # a fix run is shown as `nl2fix fix` showed it: plausible candidates first
        lines = fix_view(store, bug, key, k) if bug.benchmark == USER_BENCHMARK else bug_view(store, bug_id, key, k)
    echo_lines(lines)
