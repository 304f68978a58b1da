"""`nl2fix fix`: an issue and a Java project in, ranked test-proven fixes of the working tree out."""

from __future__ import annotations

from pathlib import Path

import click

from nl2fix.cli.sample_cmd import default_model
from nl2fix.cli.sample_options import conversation_config, conversation_options, prompt_options
from nl2fix.cli.terminal import echo_lines, say
from nl2fix.cli.validate_cmd import validation_options
from nl2fix.core import bug_ids
from nl2fix.core.domain import Engine
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.openai_client import check_reachable, endpoint
from nl2fix.fix import patches as fix_patches
from nl2fix.fix import pipeline as fix
from nl2fix.fix.project_build import BuildOptions, BuildSystem
from nl2fix.prompting.prompt import context_window_for
from nl2fix.sampling import replay_format
from nl2fix.sampling.backends.providers import NAMES, create
from nl2fix.sampling.stage import MAX_SAMPLES
from nl2fix.store.records import RunConfig
from nl2fix.validation.options import ExecutorKind, ValidationOptions

NO_PLAUSIBLE_EXIT = 1
"""The exit status when the run worked and no candidate is plausible (errors exit with 2)."""


@click.command("fix")
@click.option(
    "--project",
    "project",
    required=True,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The project's folder (its working tree).",
)
@click.option("--issue", required=True, help="The bug report: a file, or the text itself (first line = title).")
@click.option(
    "--method", default=None, help="The method to fix: path/File.java:Class#method[:LINE] (relative to --project)."
)
@click.option(
    "--test",
    default=None,
    help="A test that fails because of the bug: Class::method. Without --method, "
    "its stack trace says which method to fix.",
)
@click.option(
    "--build",
    "build_system",
    type=click.Choice(["maven", "gradle", "ant", "plain"]),
    default=None,
    help="Build system (default: detected from pom.xml, build.gradle, build.xml).",
)
@click.option("--src", "src_dir", default=None, help="plain/ant: main source folder (default src/main/java or src).")
@click.option(
    "--test-src", "test_dir", default=None, help="plain/ant: test source folder (default src/test/java, test or tests)."
)
@click.option(
    "--classpath", default=None, help="plain/ant: dependency jars and folders, ':'-separated (JUnit is added)."
)
@click.option(
    "--maven-repo",
    default=None,
    help="The Maven repository of the build: Maven's local repository (default ~/.m2/repository), "
    "or the one a Gradle build resolves from in place of those it declares (default: Gradle's cache); "
    "`debian`: Debian's packaged one (/usr/share/maven-repo), a version it lacks served by the installed "
    "one.",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Never go online. By default a build that lacks artifacts in Maven's local repository (or "
    "--maven-repo DIR) or Gradle's cache resolves them online once, the project's own way (mvn "
    "dependency:go-offline; gradle without --offline), then builds offline; with --offline it stops, naming "
    "them. (`--maven-repo debian` never goes online.)",
)
@click.option(
    "--id",
    "bug_id",
    default=None,
    help="Bug id NAME-N in the run store (default: project name and the issue file's number).",
)
@click.option(
    "--run",
    "run_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run directory (default runs/fix-<id>-<strategy>-<model>-<temperature>).",
)
@click.option(
    "--backend",
    type=click.Choice(NAMES),
    default="openai",
    show_default=True,
    help="openai (any OpenAI-compatible server), vllm (offline, GPU), mutation (no model), replay "
    "(candidates from a patch file: published or written by hand).",
)
@click.option(
    "--replay-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="For --backend replay: candidates in the NL2Fix format {BUG-ID: {prompt, patches: [{patch}]}}, "
    "the bug's entry under its --id (each patch a whole method, or an answer holding one).",
)
@prompt_options
@conversation_options
@click.option(
    "-n",
    "--samples",
    "n",
    type=click.IntRange(min=1, max=MAX_SAMPLES),
    default=20,
    show_default=True,
    help="Samples to ask for (replay: at most the file's patches of the bug).",
)
@click.option("--temperature", type=click.FloatRange(min=0.0), default=0.8, show_default=True)
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True)
@validation_options
@click.option(
    "--top", "top", type=click.IntRange(min=1), default=3, show_default=True, help="How many candidates to show."
)
@click.option(
    "--apply",
    "apply_n",
    type=click.IntRange(min=1),
    default=None,
    help="Write the N-th candidate shown into the working tree (the file is kept as FILE.nl2fix-backup).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the diff of the --apply N-th candidate (default the first) to this file (of a candidate "
    "with hidden characters: a warning and the diff with them escaped, for reading only).",
)
@click.option(
    fix_patches.ACCEPT_OPTION,
    "accept_hidden",
    is_flag=True,
    help="Let --apply write a candidate that carries hidden characters (control characters, escape "
    "sequences, bidirectional or invisible format characters), which nl2fix otherwise refuses.",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def fix_cmd(
    project,
    issue,
    method,
    test,
    build_system,
    src_dir,
    test_dir,
    classpath,
    maven_repo,
    offline,
    bug_id,
    run_dir,
    backend,
    replay_file,
    strategy,
    model,
    model_style,
    max_tokens,
    context_window,
    rounds,
    samples_per_round,
    first_prompt,
    token_budget,
    n,
    temperature,
    base_url,
    seed,
    concurrency,
    retries,
    validation: ValidationOptions,
    top,
    apply_n,
    out,
    accept_hidden,
    quiet,
):
    """Find, validate and rank fixes of a bug in your own Java project.

    Builds the project offline (once per content; what the build lacks is resolved online once, unless
    --offline), finds the method (given, or from the failing test's
    stack trace), samples candidate fixes with the issue text as the bug report, validates each against
    the project's tests (the failing test first, then the test classes that name the class), ranks them
    and prints the top ones as diffs of the working tree. Re-running resumes.

    With --strategy conversation, each round's candidates are validated in the project before the
    next round, which shows the model its earlier candidates' test results. With --backend replay,
    the candidates are a patch file's (published, or written by hand) instead of a model's."""

    if validation.executor.kind is not ExecutorKind.LOCAL:
        raise click.UsageError("nl2fix fix validates on this machine, where the project was built: drop --executor ray")

    if not method and not test:
        raise click.UsageError(
            "say which test fails (--test Class::method) or which method to fix (--method path/File.java:Class#method)"
        )
    if validation.engine is Engine.DEFECTS4J:
        raise click.UsageError("--engine defects4j is for Defects4J checkouts; use fast or rebuild")
    if backend == "vllm" and not model:
        raise click.UsageError("--backend vllm needs --model NAME_OR_PATH")
    if base_url is not None and backend != "openai":
        raise click.UsageError("--base-url is for --backend openai")
    if (backend == "replay") != (replay_file is not None):
        raise click.UsageError(
            "--backend replay needs --replay-file FILE"
            if backend == "replay"
            else "--replay-file is for --backend replay"
        )
    build = BuildOptions(
        system=BuildSystem(build_system) if build_system else None,
        src_dir=src_dir,
        test_dir=test_dir,
        classpath=tuple(Path(p) for p in classpath.split(":") if p) if classpath else (),
        maven_repo=maven_repo,
        offline=offline,
    )
    located = fix.locate(fix.FixTarget(project, issue, method, test, bug_id), build, say, validation.sandbox)
    bug = located.bug
    model = default_model(model, backend)
    if replay_file is not None:
        n = min(n, _replayed(replay_file, bug.id))
    config = RunConfig(
        dataset=f"project:{project.resolve()}",
        backend=backend,
        model=model,
        model_style=model_style,
        strategy=strategy,
        temperature=temperature,
        n=n,
        max_tokens=max_tokens,
        context_window=context_window or context_window_for(model),
        base_url=base_url,
        replay_file=str(replay_file.resolve()) if replay_file else None,
        seed=seed,
        conversation=conversation_config(strategy, n, rounds, samples_per_round, first_prompt, token_budget),
    )
    if run_dir is None:
        run_dir = fix.fix_run_dir(bug, config, project)
    say(f"run: {run_dir}  (bug {bug.id}; `nl2fix show --run {run_dir} --bug {bug.id}` and `nl2fix report` read it)")
    url = endpoint(base_url)
    if backend == "openai" and fix.samples_missing(run_dir, bug, n):
        if url:
            check_reachable(url)
        say(f"asking {model} at {url or 'OpenAI'} for {n} samples")
    chosen = create(config, concurrency=concurrency, retries=retries)
    try:
        choices = fix.sample_validate_rank(
            located, config, run_dir, backend=chosen, validation=validation, progress=not quiet, echo=say
        )
    finally:
        chosen.close()
    plausible = sum(c.plausible for c in choices)
    flagged = sum(bool(c.hidden) for c in choices)
    echo_lines(fix_patches.cluster_lines(choices))
    say(
        f"\n{plausible} plausible of {len(choices)} unique candidate(s)"
        f"{f' ({flagged} with hidden characters, shown escaped)' if flagged else ''}; the first "
        f"{min(top, len(choices))}, as diffs of {project.resolve()}:"
    )
    for choice in choices[:top]:
        try:
            diff = fix_patches.diff_for(project, bug, choice, located.built.encoding, shown=True)
        except Nl2FixError:
            diff = None
        echo_lines(fix_patches.choice_lines(choice, diff))
    _write(project, located, choices, apply_n, out, accept_hidden)
    if not plausible:
        say(
            f"\nno plausible fix: each of the {len(choices)} candidate(s) fails a test that passes on the tree as it "
            "is, or the failing test, or does not compile (see each one's reason above)",
            err=True,
        )
        raise click.exceptions.Exit(NO_PLAUSIBLE_EXIT)


def _replayed(replay_file: Path, bug_id: str) -> int:
    """How many patches the file holds for the bug; an error naming the file's entries when none."""
    patches = replay_format.by_bug(replay_format.load(replay_file))
    found = patches.get(bug_ids.canonical_key(bug_id) or ("", 0))
    if not found:
        held = ", ".join(sorted(f"{name}-{number}" for name, number in patches)) or "none"
        raise Nl2FixError(
            f"{replay_file} has no patches for {bug_id} (entries: {held})",
            f"key the bug's entry by {bug_id}, or pass the file's key as --id NAME-N",
        )
    return len(found)


def _write(project: Path, located, choices, apply_n: int | None, out: Path | None, accept_hidden: bool) -> None:
    """``--out`` and ``--apply``: the chosen candidate's diff in a file, or in the working tree."""
    bug = located.bug
    if apply_n is None and out is None:
        return
    wanted = apply_n or 1
    if wanted > len(choices):
        raise Nl2FixError(f"there is no candidate #{wanted}: {len(choices)} were found")
    choice = choices[wanted - 1]
    if out is not None:
        out.write_text(fix_patches.diff_file(project, bug, choice, located.built.encoding), encoding="utf-8")
        if choice.hidden:
            say(
                f"\nwrote the diff of #{wanted} to {out}, with its hidden characters escaped and a warning, for "
                "reading only (no tool applies it)"
            )
        else:
            # the diff's paths are the project's: applied from its folder, wherever this runs
            say(
                f"\nwrote the diff of #{wanted} to {out} (apply it with: git -C {project.resolve()} apply "
                f"{out.resolve()})"
            )
    if apply_n is not None:
        if not accept_hidden:
            fix_patches.refuse_hidden(choice, str(project / bug.path))
        elif choice.hidden:
            say(
                f"warning: #{wanted} carries hidden characters: written as validated ({fix_patches.ACCEPT_OPTION})",
                err=True,
            )
        if not choice.plausible:
            say(f"warning: #{wanted} is not plausible", err=True)
        backup = fix_patches.apply(project, bug, choice, located.built.encoding)
        say(f"applied #{wanted} to {project / bug.path} (the file as it was: {backup})")
