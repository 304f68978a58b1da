"""``nl2fix fix``: from an issue and a Java project to ranked, test-proven fixes of its working tree.

Build the project once (cached by content, :mod:`project_build`); find the method to fix (given,
or localised from a failing test's stack trace, :mod:`localise`); make it a :class:`Bug` with the
issue text as title and description (:mod:`user_bug`); then the benchmark's own stages on one run
store -- sampling, validation with the fast engine (the failing test first, then the test classes
that cover the method's file; the tree as it is stands in for the unknown fix), the paper's ranking
-- and the candidates as patches of the working tree (:mod:`fix_patches`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import Dataset, open_dataset
from nl2fix.fix import failing_test_run as failing_test
from nl2fix.fix import user_bug
from nl2fix.fix.localise import SourceIndex, ambiguous, rank_suspects, top_class
from nl2fix.fix.patches import FixChoice, ordered
from nl2fix.fix.project_build import BuildOptions, BuiltProject, build_project
from nl2fix.sampling.stage import sample
from nl2fix.store.records import RunConfig
from nl2fix.store.run_dirs import RUNS_DIR, default_run_dir
from nl2fix.store.run_store import STORE_FILE, RunStore
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.stage import validate
from nl2fix.validation.verdict_source import verdict_engine
from ranking.run import rank_run

Echo = Callable[[str], None]
SUSPECTS_SHOWN = 5


@dataclass(frozen=True)
class FixTarget:
    project: Path
    issue: str
    """An issue file, or the issue's text."""
    method: str | None = None
    """``path/File.java:Class#method``."""
    test: str | None = None
    """``Class::method``: a test that fails because of the bug."""
    bug_id: str | None = None
    """``Name-N``; default: the project folder's name and the issue file's number."""


@dataclass(frozen=True)
class Located:
    built: BuiltProject
    bug: Bug


def _test_classes(built: BuiltProject) -> list[str]:
    return [top_class(path, text) for path, text in built.test_sources.items()]


def _test_folders(built: BuiltProject) -> str:
    """The test source folders, relative to the project, for messages."""
    folders = [d.relative_to(built.root) for m in built.modules for d in m.test_dirs if d.is_relative_to(built.root)]
    return ", ".join(str(built.source / f) for f in folders) or f"{built.source} (no test folder)"


def _test_module(built: BuiltProject, test: str):
    cls = test.split("::")[0]
    for path, text in built.test_sources.items():
        if top_class(path, text) == cls:
            return built.module_at(path)
    raise Nl2FixError(f"no test class {cls} in {_test_folders(built)}")


def _localise(built: BuiltProject, test: str, issue_text: str, sandbox: SandboxSpec, echo: Echo):
    module = _test_module(built, test)
    echo(f"running {test} to see where it fails")
    result = failing_test.run_test(module, test, sandbox)
    if not result.failed:
        raise Nl2FixError(
            f"{test} passes on the project as it is, so it shows no bug",
            "give a test that fails because of the bug, or the method with --method",
        )
    suspects = rank_suspects(
        result.trace, SourceIndex(built.main_sources, built.test_sources), test=test, issue=issue_text
    )
    first = result.trace.strip().splitlines()[:1]
    if not suspects:
        raise Nl2FixError(
            f"{test} fails ({first[0] if first else 'no trace'}) but neither its stack trace nor the "
            "test's own code leads to a method of the project's main sources",
            "say which method to fix with --method path/File.java:Class#method",
        )
    echo(f"{test} fails: {first[0] if first else ''}")
    for i, s in enumerate(suspects[:SUSPECTS_SHOWN], start=1):
        echo(f"  {'->' if i == 1 else '  '} {i}. {s.method.label} (score {s.score:.2f}): {'; '.join(s.reasons[:3])}")
    if ambiguous(suspects):
        options = "\n".join(
            f"  --method {s.method.path}:{s.method.cls.rsplit('.', 1)[-1]}#{s.method.name}:{s.method.start_line}"
            for s in suspects[:3]
        )
        raise Nl2FixError(
            f"{test}'s failure does not say clearly which method to fix: the first suspects score "
            f"{', '.join(f'{s.score:.2f}' for s in suspects[:3])}",
            f"choose one with --method (or name it in the issue as Class#method):\n{options}",
        )
    return suspects[0].method


def locate(target: FixTarget, build: BuildOptions, echo: Echo, sandbox: SandboxSpec) -> Located:
    """Build the project and make the bug record of the method to fix (the failing test, run to find
    it, confined in ``sandbox``)."""
    project = target.project.resolve()
    built = build_project(
        project,
        build,
        on_build=lambda system, path: echo(f"building {project} with {system.value} (once; cached in {path})"),
        say=echo,
    )
    test = user_bug.parse_test_spec(target.test, _test_classes(built), _test_folders(built)) if target.test else None
    if test:
        user_bug.check_test_method(test, built.test_sources)
    title, description = user_bug.read_issue(target.issue)
    if target.method:
        spec = user_bug.parse_method_spec(target.method)
        file = built.root / spec.path
        if not file.is_file():
            raise Nl2FixError(f"{project / spec.path} does not exist", "give the path relative to --project")
        ref = user_bug.find_method(spec, file.read_bytes().decode(built.encoding))
        echo(f"method: {ref.label} (given)")
    elif test:
        ref = _localise(built, test, f"{title}\n{description}", sandbox, echo)
    else:
        raise Nl2FixError("say which method to fix (--method) or which test fails (--test)")
    module, src = built.module_of(ref.path)
    triggers = (test,) if test else ()
    if test and _test_module(built, test) != module:
        raise Nl2FixError(
            f"{test} is not in the module of {ref.path}", "give a failing test of the same module, or leave --test out"
        )
    module_tests = {p: t for p, t in built.test_sources.items() if built.module_at(p) == module}
    relevant = user_bug.module_test_classes(module_tests, triggers)
    name, number = (
        user_bug.parse_bug_id(target.bug_id) if target.bug_id else user_bug.bug_id_parts(target.project, target.issue)
    )
    file_text = (built.root / ref.path).read_bytes().decode(built.encoding)
    bug = user_bug.make_bug(
        project=name,
        number=number,
        ref=ref,
        file_text=file_text,
        title=title,
        description=description,
        triggers=triggers,
        relevant=relevant,
        source_dir=str(src.relative_to(built.root)),
        test_dir=str(module.test_dirs[0].relative_to(built.root)) if module.test_dirs else "",
    )
    if not triggers:
        echo("no failing test given: candidates are judged by the tests that execute the method only")
    echo(
        f"tests: {', '.join(triggers) or 'no failing test'} first, then of the module's {len(relevant)} test "
        f"class(es) the tests that execute {ref.name} on the project as it is (recorded once, then cached)"
    )
    return Located(built, bug)


def fix_run_dir(bug: Bug, config: RunConfig, project: Path) -> Path:
    """``runs/fix-<id>-...`` of the working directory, unless that is inside the project (a run there
    would change the project's content, hence its build's key, and show in ``git status``): then
    ``$NL2FIX_CACHE_DIR/runs/``."""
    base = RUNS_DIR.resolve()
    if base.is_relative_to(project.resolve()):
        base = cache.cache_dir() / "runs"
    return default_run_dir(f"fix-{bug.id}", config.strategy.value, config.model, config.temperature, base)


def _check_store(run_dir: Path, bug: Bug) -> None:
    """A run directory holds one version of a bug: sampling the changed method into it would mix them."""
    if not (run_dir / STORE_FILE).is_file():
        return
    with RunStore(run_dir, read_only=True) as store:
        old = {b.id: b for b in store.bugs()}.get(bug.id)
    if old is not None and (old.buggy_method, old.path, old.title, old.description, old.trigger_tests) != (
        bug.buggy_method,
        bug.path,
        bug.title,
        bug.description,
        bug.trigger_tests,
    ):
        raise Nl2FixError(
            f"{run_dir} already holds {bug.id} for another method, issue text or test",
            "pass another --run, or --id NAME-N for a new bug id",
        )


def _no_candidate(run_dir: Path, bug: Bug) -> Nl2FixError:
    """Why no answer gave a candidate: the commonest reasons extraction gave, with a count."""
    with RunStore(run_dir, read_only=True) as store:
        samples = store.samples(bug.id)
    reasons = Counter((s.extraction_error or "no method").splitlines()[0][:200] for s in samples)
    why = "; ".join(f"{reason} ({count}x)" for reason, count in reasons.most_common(3))
    return Nl2FixError(
        f"no candidate fix: none of the {len(samples)} answers held a usable method: {why}",
        "check that the method is the one the issue is about (--method), or ask for more samples (-n)",
    )


def samples_missing(run_dir: Path, bug: Bug, n: int) -> bool:
    """Whether sampling will ask the model for more (a resumed, complete run asks for none)."""
    if not (run_dir / STORE_FILE).is_file():
        return True
    with RunStore(run_dir, read_only=True) as store:
        return len(store.sample_indices(bug.id)) < n


def sample_validate_rank(
    located: Located,
    config: RunConfig,
    run_dir: Path,
    *,
    backend,
    validation: ValidationOptions,
    progress: bool,
    echo: Echo,
) -> list[FixChoice]:
    """The benchmark's stages on one user bug; every candidate in the order shown. Every validation,
    a conversation's between its rounds too, runs in the user's built project."""

    bug = located.bug
    _check_store(run_dir, bug)
    examples = Dataset({bug.id: bug})
    first = config.conversation.first_prompt if config.conversation else config.strategy
    if first is Strategy.ONE_SHOT:
        examples = Dataset({**open_dataset("example").bugs, bug.id: bug})
    workspaces = located.built.workspace
    summary = sample(
        run_dir,
        config,
        [bug],
        dataset=examples,
        progress=progress,
        backend=backend,
        validation=validation,
        workspaces=workspaces,
    )
    echo(str(summary))
    if summary.failed_requests and not summary.unique_candidates:
        raise Nl2FixError("every request to the model failed; nothing to validate", "re-run to ask again")
    if not summary.unique_candidates:
        raise _no_candidate(run_dir, bug)
    checked = validate(run_dir, validation, bug_ids=[bug.id], progress=progress, workspaces=workspaces)
    echo(str(checked))
    with RunStore(run_dir) as store:
        baseline = store.validation(bug.id, "buggy", validation.engine.value)
        has_verdicts = verdict_engine(store) is not None
    if baseline is not None and baseline.verdict is Verdict.ERROR:
        raise Nl2FixError(
            f"the project's tests could not be run: {baseline.detail[:500]}",
            f"the logs are under {run_dir}/artifacts/{bug.id}/buggy",
        )
    if baseline is not None and bug.trigger_tests and not set(bug.trigger_tests) & set(baseline.failing_tests):
        echo(
            f"warning: {', '.join(bug.trigger_tests)} passed on the tree as it is: 'plausible' then only means "
            "the tests still pass"
        )
    keys = rank_run(run_dir, pruned=has_verdicts) if summary.unique_candidates else []
    with RunStore(run_dir) as store:
        return ordered(store, bug, keys[0] if keys else None, verdict_engine(store))
