"""`nl2fix dataset`: download the dataset, summarise it, show one bug."""

from __future__ import annotations

import difflib
import json
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import click

from defects4j_adapter.cache import cache_dir
from defects4j_adapter.d4j.cli import Defects4J
from nl2fix.cli.options import dataset_options, defects4j_meta_option, option_group
from nl2fix.cli.terminal import say
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import write_text
from nl2fix.dataset.build import (
    BENCHMARK_SETS,
    NL2FIX_SET,
    Defects4JSources,
    PatchedTreeSources,
    Sources,
    add_test_sources,
    all_projects,
    bug_ids_of,
    build_dataset,
    parse_bug_numbers,
    write_dataset,
)
from nl2fix.dataset.diff import diff_datasets
from nl2fix.dataset.download import pull
from nl2fix.dataset.hard_bugs import HardFlag, bug_flags
from nl2fix.dataset.load import DATASET_SHA256, DATASET_URL, default_metadata_dir, open_dataset
from nl2fix.dataset.stats import format_table, project_stats
from nl2fix.dataset.trackers import ENDPOINT_ENVS, IssueFetcher, endpoints_from_env
from nl2fix.java_source.text import remove_comments


@click.group("dataset")
def dataset() -> None:
    """The Defects4J-NL2Fix dataset (or the bundled example benchmark with --dataset example)."""


@dataset.command("pull")
@click.option(
    "--url", default=DATASET_URL, show_default=True, help="Where to fetch it from (file:// works for a copy)."
)
@click.option("--sha256", default=DATASET_SHA256, show_default=True, help="The checksum the file must have.")
@click.option("--force", is_flag=True, help="Download again even if a good copy is in place.")
def pull_cmd(url: str, sha256: str, force: bool) -> None:
    """Download the published dataset to the data directory ($NL2FIX_DATA_DIR) and verify it."""

    path, fetched = pull(url, sha256, force=force)
    say(f"{'downloaded' if fetched else 'already in place'}: {path} (sha256 verified)")


@dataset.command("stats")
@dataset_options
@click.option("--flags", "with_flags", is_flag=True, help="Also count the difficulty flags and the known issue dates.")
def stats_cmd(dataset: str | None, metadata_dir, with_flags: bool) -> None:
    """Per-project counts, average method size, changed lines/tokens and issue lengths."""

    ds = open_dataset(dataset, str(metadata_dir) if metadata_dir else None)
    say(format_table(project_stats(list(ds.bugs.values()))))
    if with_flags:
        flags = Counter(flag.value for bug in ds.bugs.values() for flag in bug_flags(bug))
        dated = sum(bool(bug.issue_created) for bug in ds.bugs.values())
        say(
            "\ndifficulty flags: "
            + ", ".join(f"{f.value} {flags[f.value]}" for f in HardFlag)
            + f" (of {len(ds.bugs)} bugs); issue dates known for {dated}"
        )
    if ds.problems:
        say(f"\n{len(ds.problems)} problems in {ds.source}:", err=True)
        for problem in ds.problems:
            say(f"  {problem}", err=True)


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
        ("issue opened", bug.issue_created or "-"),
        ("flags", ", ".join(f.value for f in bug_flags(bug)) or "-"),
    ]
    for name, value in fields:
        say(f"{name + ':':16}{value}")
    say(f"\n# {bug.title}\n\n{bug.description or '(no description)'}")
    say(f"\n--- buggy method{'' if original else ' (comments removed)'}\n{buggy}")
    say(f"\n--- fixed method\n{fixed}\n\n--- diff\n" + "\n".join(diff))


def _tracker_urls(values: tuple[str, ...]) -> dict:
    endpoints = endpoints_from_env()
    names = {t.value: t for t in ENDPOINT_ENVS}
    for value in values:
        name, sep, url = value.partition("=")
        if not sep or name not in names or not url:
            raise click.BadParameter(
                f"{value!r}: write TRACKER=URL with TRACKER one of {', '.join(names)}", param_hint="--tracker-url"
            )
        endpoints[names[name]] = url.rstrip("/")
    return endpoints


source_options = option_group(
    defects4j_meta_option("Folder laid out like Defects4J's framework/projects (default: the installed Defects4J's)."),
    click.option(
        "--projects-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Read sources from a bundled-benchmark layout (<P>/fixed and <P>/patches) instead of Defects4J.",
    ),
)
"""``--defects4j-meta`` and ``--projects-dir``: where `dataset build` and `dataset add-tests` read the
bugs' metadata and sources (:func:`_metadata`, :func:`_sources`)."""


def _out_option(help: str):
    """``--out FILE`` (required), the dataset JSON a command writes, with the command's own ``help``."""
    return click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help=help)


def _metadata(metadata_dir: Path | None) -> Path:
    """``--defects4j-meta``, else the installed Defects4J's metadata."""
    meta = metadata_dir or default_metadata_dir()
    if meta is None:
        raise Nl2FixError(
            "no Defects4J metadata: Defects4J is not installed here",
            "install Defects4J, or pass --defects4j-meta DIR (and --projects-dir for bundled sources)",
        )
    return meta


def _sources(projects_dir: Path | None, work: Path) -> Sources:
    """The bugs' sources: a bundled-benchmark layout (``--projects-dir``, patched under ``work``), else
    Defects4J's checkouts."""
    if projects_dir is not None:
        return PatchedTreeSources(projects_dir, work)
    return Defects4JSources(Defects4J.find(), cache_dir())


def _progress(quiet: bool) -> Callable[[str], None] | None:
    """A line per bug on standard error, unless ``--quiet``."""
    return None if quiet else (lambda line: say(line, err=True))


@dataset.command("build")
@click.option(
    "--projects",
    "projects",
    multiple=True,
    required=True,
    help="Defects4J project(s) to build, e.g. Cli (repeatable or comma-separated); `all`: every "
    "project of the metadata folder.",
)
@click.option(
    "--benchmark",
    type=click.Choice(BENCHMARK_SETS),
    default=NL2FIX_SET,
    show_default=True,
    help="nl2fix: the single-method bugs with an issue report (the paper's set); single-function: "
    "every bug whose fix changes one method (RepairBench's), issue text where a tracker has one.",
)
@click.option("--bugs", "bugs", default=None, help="Only these bug numbers, e.g. 1-5,7 (default: every active bug).")
@click.option(
    "--bugs-of",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Only the bugs of this dataset file (e.g. the published one, to rebuild it).",
)
@_out_option("Dataset JSON to write (a summary goes beside it as FILE.summary.json).")
@click.option("--offline", is_flag=True, help="Read issue texts from the cache only; nothing is fetched.")
@click.option(
    "--cache",
    "issue_cache",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Issue-tracker answers cache (default: $NL2FIX_CACHE_DIR/issues).",
)
@source_options
@click.option(
    "--keep-outside-changes",
    is_flag=True,
    help="Also keep one-method fixes that change imports, fields or add methods (flagged fix_outside_method).",
)
@click.option(
    "--tracker-url",
    multiple=True,
    metavar="TRACKER=URL",
    help="API root of a tracker (jira, github, sourceforge, google-code), e.g. a mirror; "
    "also $NL2FIX_JIRA_URL, $NL2FIX_GITHUB_API_URL ...",
)
@click.option(
    "--request-interval",
    type=float,
    default=1.0,
    show_default=True,
    help="Seconds between two requests to one tracker host.",
)
@click.option("--quiet", is_flag=True, help="No line per bug.")
def build_cmd(
    projects,
    benchmark,
    bugs,
    bugs_of,
    out,
    offline,
    issue_cache,
    metadata_dir,
    projects_dir,
    keep_outside_changes,
    tracker_url,
    request_interval,
    quiet,
) -> None:
    """Build a dataset: single-method bugs of Defects4J projects with their issue text and their trigger
    tests' source."""
    names = [p.strip() for value in projects for p in value.split(",") if p.strip()]
    numbers = parse_bug_numbers(bugs)
    meta = _metadata(metadata_dir)
    if [n.lower() for n in names] == ["all"]:
        names = all_projects(meta)
    fetcher = IssueFetcher(
        issue_cache or cache_dir() / "issues",
        endpoints=_tracker_urls(tracker_url),
        offline=offline,
        min_interval=request_interval,
    )
    heard = _progress(quiet)
    with tempfile.TemporaryDirectory(prefix="nl2fix-build-") as work:
        records, summary = build_dataset(
            meta,
            names,
            _sources(projects_dir, Path(work)),
            fetcher,
            numbers=numbers,
            ids=bug_ids_of(bugs_of) if bugs_of else None,
            keep_outside=keep_outside_changes,
            benchmark=benchmark,
            progress=heard,
        )
    write_dataset(records, out)
    summary_file = out.with_name(out.name + ".summary.json")
    write_text(summary_file, json.dumps(summary.to_json(), indent=1) + "\n")
    for line in summary.lines():
        say(line)
    say(f"wrote {len(records)} record(s) to {out} (summary: {summary_file})")


@dataset.command("add-tests")
@click.argument("dataset_file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@_out_option("Dataset JSON to write: the same records with their trigger tests' source added.")
@source_options
@click.option("--quiet", is_flag=True, help="No line per bug.")
def add_tests_cmd(dataset_file: Path, out: Path, metadata_dir, projects_dir, quiet: bool) -> None:
    """Add the trigger tests' source (what --strategy test-driven shows) to an existing dataset, e.g.
    the published one, from the buggy versions' test folders; every other field is kept as it is."""
    meta = _metadata(metadata_dir)
    records = json.loads(dataset_file.read_text(encoding="utf-8"))
    heard = _progress(quiet)
    with tempfile.TemporaryDirectory(prefix="nl2fix-add-tests-") as work:
        missing = add_test_sources(records, meta, _sources(projects_dir, Path(work)), progress=heard)
    write_dataset(records, out)
    say(
        f"wrote {len(records)} record(s) to {out}; trigger tests' source found for "
        f"{len(records) - len(missing)} bug(s) whole"
    )
    for bug_id, tests in missing.items():
        say(f"  {bug_id}: not found: {', '.join(tests)} (shown by name and failure alone)")


@dataset.command("diff")
@click.argument("a", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("b", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--projects", "projects", multiple=True, help="Compare only these projects (repeatable or comma-separated)."
)
@click.option("--only-common", is_flag=True, help="Leave out bugs found in one file only (e.g. B is a partial build).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON, one entry per bug.")
@click.option("--brief", is_flag=True, help="Counts only, no line per differing bug.")
def diff_cmd(a: Path, b: Path, projects, only_common: bool, as_json: bool, brief: bool) -> None:
    """Compare two dataset files bug by bug: ranges, methods and issue texts."""
    names = {p.strip() for value in projects for p in value.split(",") if p.strip()}
    result = diff_datasets(a, b, names or None)
    if only_common:
        result.only_a, result.only_b = [], []
    if as_json:
        say(json.dumps(result.to_json(), indent=1))
        return
    say(f"A: {a}\nB: {b}")
    for line in result.lines(details=not brief):
        say(line)
