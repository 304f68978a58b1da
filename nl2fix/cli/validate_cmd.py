"""`nl2fix validate`: give every unique candidate of a run its verdict."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from defects4j_adapter.contract import (
    DEFAULT_CANDIDATE_TIMEOUT,
    DEFAULT_TEST_TIMEOUT,
    DEFAULT_TIMEOUT_PACE,
    EngineSettings,
)
from defects4j_adapter.sandbox.base import SandboxKind, SandboxSpec
from nl2fix.cli.options import option_group, run_option
from nl2fix.cli.terminal import louder, say
from nl2fix.core.domain import Engine, Verdict
from nl2fix.report.data import unexplained_candidates
from nl2fix.report.published import REJUDGE_ENGINE
from nl2fix.validation.options import ExecutorKind, ExecutorSpec, ValidationOptions
from nl2fix.validation.stage import stories, validate


def validation_value(fn):
    """Calls ``fn`` with ``validation``, the one :class:`ValidationOptions` of the validation options
    (:func:`validation_options`, and ``--all-tests`` where the command has it), instead of each."""

    @functools.wraps(fn)
    def wrapper(
        *args,
        engine: str,
        workers: int,
        sandbox: str,
        no_sandbox: bool,
        test_timeout: float,
        timeout_pace: float,
        candidate_timeout: float,
        executor: str,
        ray_address: str | None,
        **kwargs,
    ):
        if no_sandbox and sandbox not in (SandboxKind.BWRAP.value, SandboxKind.NONE.value):
            raise click.UsageError(f"--no-sandbox contradicts --sandbox {sandbox}")
        validation = ValidationOptions(
            engine=Engine(engine),
            sandbox=SandboxSpec(SandboxKind.NONE if no_sandbox else SandboxKind(sandbox)),
            executor=ExecutorSpec(ExecutorKind(executor), ray_address),
            settings=EngineSettings(
                workers=workers,
                test_timeout=test_timeout,
                timeout_pace=timeout_pace,
                candidate_timeout=candidate_timeout,
            ),
            all_tests=kwargs.pop("all_tests", False),
        )
        return fn(*args, validation=validation, **kwargs)

    return wrapper


_VALIDATION_OPTIONS = option_group(
    click.option(
        "--engine",
        type=click.Choice([e.value for e in Engine]),
        default=Engine.FAST.value,
        show_default=True,
        help="fast: one-file compile + warm JVM; rebuild: recompile everything per candidate; "
        "defects4j: the Defects4J command line (needs Defects4J).",
    ),
    click.option(
        "--workers",
        type=click.IntRange(1, 64),
        default=2,
        show_default=True,
        help="Candidates (and bugs) validated in parallel.",
    ),
    click.option(
        "--sandbox",
        type=click.Choice([k.value for k in SandboxKind]),
        default=SandboxKind.BWRAP.value,
        show_default=True,
        envvar="NL2FIX_SANDBOX",
        help="What confines candidate code: bwrap (bubblewrap on the host), docker (a container of "
        "the JVM image, see `nl2fix image build`), none (only limits apply).",
    ),
    click.option(
        "--no-sandbox",
        "no_sandbox",
        is_flag=True,
        help="The same as --sandbox none: candidate code runs UNCONFINED (only limits apply).",
    ),
    click.option(
        "--test-timeout",
        type=click.FloatRange(0.1),
        default=DEFAULT_TEST_TIMEOUT,
        show_default=True,
        help="CPU seconds one test may use (one that waits: 6 times as many of wall-clock time).",
    ),
    click.option(
        "--timeout-pace",
        type=click.FloatRange(0),
        default=DEFAULT_TIMEOUT_PACE,
        show_default=True,
        help="The fast engine gives a test 2 CPU-s plus this many times the longest the developer's fix took on "
        "a test, at most --test-timeout, so a loop ends sooner; 0: --test-timeout always.",
    ),
    click.option(
        "--candidate-timeout",
        type=click.FloatRange(1),
        default=DEFAULT_CANDIDATE_TIMEOUT,
        show_default=True,
        help="Seconds one candidate's compile and tests may take.",
    ),
    click.option(
        "--executor",
        type=click.Choice([e.value for e in ExecutorKind]),
        default=ExecutorKind.LOCAL.value,
        show_default=True,
        help="local: worker threads here; ray: a task per bug on a Ray cluster (pip install "
        "'nl2fix[ray]'), --workers CPUs each, the run store written here.",
    ),
    click.option(
        "--ray-address",
        default=None,
        help="The Ray cluster for --executor ray (default $RAY_ADDRESS, else auto: the cluster "
        "this machine belongs to).",
    ),
)


def validation_options(fn):
    """``--engine``, ``--workers``, ``--sandbox`` (``--no-sandbox``), ``--test-timeout``, ``--timeout-pace``,
    ``--candidate-timeout``, ``--executor``, ``--ray-address``; the command gets them as one
    ``validation`` (:func:`validation_value`)."""
    return _VALIDATION_OPTIONS(validation_value(fn))


all_tests_option = click.option(
    "--all-tests",
    is_flag=True,
    help="Run every trigger and relevant test instead of stopping at the first failure (slower; gives "
    "Table 2's regression-pass rate; re-runs wrong verdicts that stopped early).",
)


@click.command("validate")
@run_option
@validation_options
@all_tests_option
@click.option("--bug", "bug_ids", multiple=True, help="Only this bug (repeatable).")
@click.option(
    "--rejudge-unexplained",
    is_flag=True,
    help="Only the imported candidates whose published verdict differs from nl2fix's for no known "
    "reason (see `nl2fix report`), re-judged with --engine defects4j.",
)
@click.option(
    "--candidate",
    "candidates",
    multiple=True,
    metavar="HASH",
    help="Judge this candidate again, and no other (repeatable; a unique start of its hash will do): "
    "its stored verdict is replaced. With -v its story is printed.",
)
@click.option(
    "-v",
    "--verbose",
    count=True,
    callback=lambda ctx, param, value: louder(value),
    help="Say what is done to each candidate as it happens (-vv: everything); with --candidate, print "
    "each one's story (its validation.log) at the end.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def validate_cmd(
    run_dir: Path,
    validation: ValidationOptions,
    bug_ids: tuple[str, ...],
    rejudge_unexplained: bool,
    candidates: tuple[str, ...],
    verbose: int,
    quiet: bool,
):
    """Compile and test every unique candidate not yet validated by ENGINE (baselines first).

    Resumable: verdicts already in the run are kept; `error` verdicts (harness failures) are retried.
    Each validation's artifact folder (RUN/artifacts/BUG/HASH) holds validation.log, the story of what
    was done to it and its verdict. Exits with status 1 while any candidate's verdict is `error`."""

    only = None
    if rejudge_unexplained:
        if validation.engine.value != REJUDGE_ENGINE:
            raise click.UsageError(f"--rejudge-unexplained re-judges with --engine {REJUDGE_ENGINE}")
        if candidates:
            raise click.UsageError("--rejudge-unexplained chooses its candidates itself: drop --candidate")
        only = unexplained_candidates(run_dir)
        say(
            f"re-judging {sum(map(len, only.values()))} candidate(s) of {len(only)} bug(s) whose published verdict "
            "differs from nl2fix's for no known reason"
        )
        if not only:
            return
        bug_ids = tuple(b for b in bug_ids if b in only) if bug_ids else tuple(only)
    summary = validate(
        run_dir, validation, bug_ids=list(bug_ids) or None, progress=not quiet, again=candidates, only=only
    )
    say(str(summary))
    if verbose and candidates:
        for story in stories(run_dir, validation.engine, list(bug_ids) or None, candidates):
            say(story)
    errors = summary.by_verdict.get(Verdict.ERROR, 0)
    if errors:
        say(
            f"{errors} candidate(s) ended in `error`: the harness or environment failed, not the candidate "
            "(see above); fix the cause and re-run to retry them",
            err=True,
        )
        raise SystemExit(1)
