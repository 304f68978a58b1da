"""`nl2fix show`: a bug's top-ranked candidates, with verdicts, as diffs against the buggy method."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from nl2fix.cli.options import run_option
from nl2fix.core.domain import USER_BENCHMARK
from nl2fix.fix.patches import fix_view
from nl2fix.store.run_store import RunStore
from ranking.display import Style, bug_view, choose_ranker

# click.echo drops these codes when stdout is not a terminal.
COLOURS: dict[Style, dict[str, Any]] = {
    Style.PLAIN: {},
    Style.TITLE: {"bold": True},
    Style.ADDED: {"fg": "green"},
    Style.REMOVED: {"fg": "red"},
    Style.HUNK: {"fg": "cyan"},
    Style.GOOD: {"fg": "green", "bold": True},
    Style.BAD: {"fg": "red", "bold": True},
    Style.UNKNOWN: {"fg": "yellow"},
}


@click.command("show")
@run_option
@click.option("--bug", "bug_id", required=True, help="Bug id, e.g. JxPath-20 (forgiving spelling).")
@click.option("--ranker", default=None, help="Ranker key (default paper:tfidf:median, or the run's only one).")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many candidates.")
def show_cmd(run_dir: Path, bug_id: str, ranker: str | None, k: int):
    """Print a bug's top-k ranked candidates: score, duplicates, verdict, failing tests and a diff."""
    with RunStore(run_dir, read_only=True) as store:
        bug = store.bug(bug_id)
        key = choose_ranker(store, ranker)
        # a fix run is shown as `nl2fix fix` showed it: plausible candidates first
        lines = fix_view(store, bug, key, k) if bug.benchmark == USER_BENCHMARK else bug_view(store, bug_id, key, k)
    echo_lines(lines)


def echo_lines(lines) -> None:
    """Print :class:`ranking.display.Line` s in their styles."""
    for line in lines:
        click.echo(click.style(line.text, **COLOURS[line.style]))
