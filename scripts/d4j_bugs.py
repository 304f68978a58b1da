"""Which dataset bugs a Defects4J benchmark script runs on, chosen the same way by each:
``--projects`` (default: the projects an offline Defects4J here can build), ``--bugs``,
``--limit`` (the first N bugs of each project); and what to say without a Defects4J."""

from __future__ import annotations

import argparse
from pathlib import Path

import bench_results

from defects4j_adapter.d4j import cli as d4j_cli
from nl2fix.core.domain import Bug
from nl2fix.dataset.load import open_dataset

INSTALLED_PROJECTS = (
    "Cli",
    "JxPath",
    "Codec",
    "Csv",
    "Compress",
    "Math",
    "JacksonCore",
    "Collections",
    "JacksonXml",
    "JacksonDatabind",
)
"""What ../shared/tools/defects4j-offline builds (256 of the dataset's 283 bugs)."""
DEFAULT_DATASET = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "nl2fix_dataset.json"


def add_arguments(
    parser: argparse.ArgumentParser, *, projects: tuple[str, ...] = INSTALLED_PROJECTS, limit: int | None = None
) -> None:
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET), help="NL2Fix JSON (default ../shared/data).")
    parser.add_argument(
        "--projects", default=",".join(projects), help=f"Comma-separated projects (default {','.join(projects)})."
    )
    parser.add_argument("--bugs", default="", help="Comma-separated bug ids instead of --projects.")
    parser.add_argument(
        "--limit",
        type=int,
        default=limit,
        help="Only the first N bugs of each project" + (f" (default {limit})." if limit else "."),
    )


def chosen_bugs(args: argparse.Namespace) -> list[Bug]:
    dataset = open_dataset(args.dataset)
    if args.bugs:
        return [dataset.resolve(b) for b in args.bugs.split(",") if b.strip()]
    bugs = []
    for project in filter(None, (p.strip() for p in args.projects.split(","))):
        of_project = sorted(dataset.select([], [project], False), key=lambda b: b.number)
        bugs += of_project[: args.limit] if args.limit else of_project
    return bugs


def parse(parser: argparse.ArgumentParser) -> tuple[argparse.Namespace, d4j_cli.Defects4J | None, list[Bug]]:
    """The arguments, the installed Defects4J and the chosen bugs; without a Defects4J, says so
    (the script then skips: exit 0) and gives None and no bugs."""
    bench_results.add_option(parser)
    args = parser.parse_args()
    if d4j_cli.locate() is None:
        print("skipped: Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)")
        return args, None, []
    bench_results.start(args.results)  # a skipped run measured nothing: no results file
    return args, d4j_cli.Defects4J.find(), chosen_bugs(args)
