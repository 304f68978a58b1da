"""`nl2fix dataset check`: do the selected bugs' ground truths validate? (the benchmark's ceiling)"""

from __future__ import annotations

import collections
import hashlib
from pathlib import Path

import click

from defects4j_adapter import cache
from defects4j_adapter.jvm import reference_java
from nl2fix.cli.options import dataset_options, load_selection, selection_options
from nl2fix.cli.terminal import say
from nl2fix.cli.validate_cmd import validation_options
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import problem_lines
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.stage import check_baselines


@click.command("check")
@dataset_options
@selection_options
@validation_options
@click.option(
    "--store",
    "store_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the baselines are kept (default: a folder in the nl2fix cache, reused next time).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def check(dataset, metadata_dir, bug_ids, projects, all_bugs, validation: ValidationOptions, store_dir, quiet):
    """Run the buggy and fixed baselines of the selected bugs and list the bugs whose ground truth
    does not validate (or whose buggy version does not fail its trigger tests). Exit status 1 when
    some ground truth does not validate."""

    ds, bugs = load_selection(dataset, metadata_dir, bug_ids, projects, all_bugs)
    engine = validation.engine.value
    if store_dir is None:
        key = hashlib.sha256(f"{ds.source}\n{engine}".encode()).hexdigest()[:12]
        store_dir = cache.cache_dir() / "checks" / key
    projects_dir = Path(ds.source).parent / "projects"
    checks = check_baselines(
        bugs,
        validation,
        store_dir=store_dir,
        projects_dir=projects_dir if projects_dir.is_dir() else None,
        progress=not quiet,
    )
    failing = [c for c in checks if not c.ground_truth_ok]
    # a cause several bugs share (no Defects4J, say, with its long hint) is said once, below them
    shared = {p for p, n in collections.Counter(p for c in checks for p in c.problems).items() if n > 1}
    for c in checks:
        status = "ok" if not c.problems else ("WARN" if c.ground_truth_ok else "FAIL")
        own = [p for p in c.problems if p not in shared] + (["see below"] if shared & set(c.problems) else [])
        say(f"{status:4} {c.bug.id}" + (f": {'; '.join(own)}" if own else ""))
    for line in problem_lines(checks, only=shared):
        say(line)
    say(
        f"{len(checks) - len(failing)} of {len(checks)} ground truths validate with the {engine} engine "
        f"(baselines kept in {store_dir})"
    )
    with RunStore(store_dir, read_only=True) as store:  # where the tests ran: a Ray node's, with --executor ray
        environment = store.get_meta_json(reference_java.environment_key(engine))
    say(f"validation environment: {(environment or reference_java.environment(validation.engine))['summary']}")
    if failing:
        raise SystemExit(1)
