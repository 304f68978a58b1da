"""`nl2fix import`: a published patch set's answers into a run, as samples with their models and verdicts."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from defects4j_adapter import cache
from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.workspaces.resolve import prepare_workspace
from nl2fix.cli.options import dataset_options, load_selection
from nl2fix.cli.terminal import say
from nl2fix.core.domain import Bug
from nl2fix.dataset.load import DATASET_FILE, data_dir
from nl2fix.sampling import published_sets
from nl2fix.sampling.importing import import_answers, import_config


@click.command("import")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--run",
    "run_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory to import into (created, or added to when it holds imports already).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in published_sets.Format]),
    default=None,
    help="repairbench (RepairBench's results folders), diff ([MODEL/]BUG/NAME.diff of the buggy file), "
    "methods (JSON lines of {bug, model, text[, verdict]}); default: found from PATH.",
)
@click.option("--model", default=None, help="The model of answers whose set does not name it.")
@dataset_options
def import_cmd(
    path: Path, run_dir: Path, fmt: str | None, model: str | None, dataset: str | None, metadata_dir: Path | None
) -> None:
    """Import a published set of answers into a run: each answer becomes a sample that keeps its model
    and the publisher's verdict; then `validate`, `rank`, `report`, `compare` and `view` work on it.
    A bug's n is what the set holds for it. Importing again adds only what is new."""
    chosen = published_sets.Format(fmt) if fmt else published_sets.detect(path)
    answers = published_sets.read(path, chosen, model)
    say(f"{path}: {len(answers)} answer(s) in the {chosen.value} format")
    ds, bugs = load_selection(dataset, metadata_dir, (), (), True)
    projects_dir = Path(ds.source).parent / "projects"
    options = EngineOptions(
        sandbox=None, cache_dir=cache.cache_dir(), projects_dir=projects_dir if projects_dir.is_dir() else None
    )
    dataset_path = "example" if dataset == "example" else str(Path(dataset or data_dir() / DATASET_FILE).resolve())
    config = import_config(dataset_path, str(metadata_dir) if metadata_dir else None)
    summary = import_answers(
        run_dir,
        config,
        bugs,
        answers,
        buggy_file=functools.partial(_buggy_file, options),
        costs=published_sets.costs(path, chosen, model),
    )
    say(str(summary))


def _buggy_file(options: EngineOptions, bug: Bug) -> str:
    """The bug's buggy source file, from its prepared workspace (what a file diff applies to)."""
    workspace = prepare_workspace(bug, options)
    return workspace.buggy_file().read_text(encoding=workspace.encoding)
