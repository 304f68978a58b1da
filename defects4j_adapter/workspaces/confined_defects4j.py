"""Defects4J's builds and test runs, confined: every call that runs a project's build files or
tests (``defects4j compile``, ``test``, ``export``, the preparation's Ant run) goes through a
sandbox, for every engine.

What the job sees (bubblewrap): the system read-only; Defects4J's installation, its JDK and the
folders its tools (``java``, ``javac``, ``ant``, ``perl``, ``git``) are found in read-only; the
one working copy it builds read-write, and nothing else of nl2fix's cache (no pristine checkout,
no other candidate's copy); a private ``/tmp`` (also ``$HOME``); no network; as root, a uid of its
own. Measured on a real run: Defects4J writes only its working directory (``failing_tests``,
``all_tests``, build folders) -- nothing under its installation or ``$HOME``. The environment is
Defects4J's own variables only (no API keys). What of the installation holds the developers' fixes
(:func:`fix_sources`) is shown empty: no job here reads it (only ``checkout`` does, unconfined,
before any candidate).

Inside nl2fix's docker image the container confines
(:class:`~defects4j_adapter.sandbox.unconfined.ContainerSandbox`: run as the container's root, each job as a uid
of its own, to which Defects4J's installation and its copies of the fixes are closed), and with
``--no-sandbox`` nothing does (as asked); ``--sandbox docker``'s JVM image has no Defects4J, so its builds run
under bubblewrap on the host.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j.cli import Defects4J
from defects4j_adapter.sandbox.base import Limits, Mounts, Sandbox, SandboxKind, SandboxSpec, chown_tree
from defects4j_adapter.sandbox.bwrap import make_bwrap
from nl2fix.core.processes import ExecResult

TOOLS = ("defects4j", "java", "javac", "ant", "perl", "git")
"""What Defects4J runs from ``PATH``: the folders they are found in are shown read-only."""
ENV_NAMES = frozenset(
    (
        "PATH",
        "JAVA_HOME",
        "JAVA_TOOL_OPTIONS",
        "TZ",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "ANT_HOME",
        "ANT_OPTS",
        "ANT_ARGS",
        "PERL5LIB",
        "BASE_DIR",
        "SCRIPT_DIR",
        "PROJECTS_DIR",
        "MAJOR_ROOT",
        "GRADLE_LOCAL_HOME_DIR",
        "GRADLE_USER_HOME",
    )
)
ENV_PREFIXES = ("D4J_", "DEFECTS4J_", "GIT_")
"""Defects4J's own variables (``core/Constants.pm``, its Ant, Java and Perl) pass into a job;
nothing else of nl2fix's environment does."""
LIMITS = Limits(wall_seconds=0, processes=2048, file_size_mb=1024, scratch_mb=1024)
"""Perl, Ant and javac's JVMs and their threads; a build's largest files; ``/tmp``. The wall-clock
limit is each call's timeout."""


def job_environment(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}


def _home(executable: Path, env: Mapping[str, str]) -> Path:
    layout = d4j_cli.layout_of(executable, env)
    return layout.home if layout else Path(executable).resolve().parent.parent.parent


def installation(executable: Path, env: Mapping[str, str]) -> list[Path]:
    """The folders of the installation a job reads: Defects4J's home, its JDK, the folders of
    its tools on ``PATH`` (and where their links lead) and ``PERL5LIB``'s."""
    found = [_home(executable, env)]
    if env.get("JAVA_HOME"):
        found.append(Path(env["JAVA_HOME"]))
    path = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if p]
    for tool in TOOLS:
        hit = next((d / tool for d in path if (d / tool).is_file() and os.access(d / tool, os.X_OK)), None)
        if hit is not None:
            found += [hit.parent, hit.resolve().parent]
    found += [Path(p) for p in env.get("PERL5LIB", "").split(os.pathsep) if p]
    # each at its own path and where it leads, as a job may name either
    both = (p for f in found for p in (Path(os.path.abspath(f)), Path(os.path.realpath(f))))
    return list(dict.fromkeys(f for f in both if f.is_dir() and f != Path("/")))


def fix_sources(executable: Path, env: Mapping[str, str]) -> list[Path]:
    """What of Defects4J's installation holds the developers' fixes: every project's ``patches``
    folder (``<N>.src.patch`` turns the fixed version into the buggy one; ``<N>.test.patch`` only
    the tests, which the working copy holds anyway) and what ``project_repos`` holds, every fixed
    commit, but its ``README``, which every ``defects4j`` call reads (``Constants.pm``'s
    ``_repos_available``). The rest holds names, not code: ``modified_classes``,
    ``relevant_tests``, ``loaded_classes``, ``trigger_tests`` and ``failing_tests`` (test names and
    the buggy version's stack traces, which the failing run prints anyway), ``commit-db`` (commit
    ids, nothing without the repositories), ``build_files`` (each revision's build files). The
    round 10 red team read the fix from the patches (``found10/d4j_patch_reader``)."""
    home = _home(executable, env)
    projects = Path(env.get("PROJECTS_DIR") or home / "framework" / "projects")
    found = [p / "patches" for p in _entries(projects)]
    found += [p for p in _entries(home / "project_repos") if p.name != "README"]
    return found


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.iterdir()) if folder.is_dir() else []


@dataclass(frozen=True)
class SandboxRunner:
    """A :class:`~defects4j_adapter.d4j.cli.JobRunner` through a sandbox."""

    sandbox: Sandbox
    read_only: tuple[Path, ...]

    def mounts(self, work_dir: Path, env: Mapping[str, str], outputs: Sequence[Path] = ()) -> Mounts:
        return Mounts(read_only=self.read_only, writable=(Path(work_dir), *outputs), env=job_environment(env))

    def __call__(
        self,
        args: Sequence[str],
        *,
        work_dir: Path,
        env: Mapping[str, str],
        timeout: float,
        outputs: Sequence[Path] = (),
    ) -> ExecResult:
        mounts = self.mounts(work_dir, env, outputs)
        try:
            # in the working copy, as Defects4J's Perl runs it: exports of folders are relative to it
            return self.sandbox.run(
                ["env", f"--chdir={work_dir}", "--", *args], mounts, dataclasses.replace(LIMITS, wall_seconds=timeout)
            )
        finally:
            if os.geteuid() == 0:
                # the job's uid owned what it wrote; nothing of it stays writable to a later job
                for folder in (Path(work_dir), *outputs):
                    chown_tree(folder, 0)


def build_sandbox(sandbox: Sandbox | None, fixes: Sequence[Path] = ()) -> Sandbox | None:
    """Where Defects4J's builds and tests run for a validation confined by ``sandbox``: bubblewrap
    on the host (for ``--sandbox docker`` too: its JVM image has no Defects4J) with ``fixes``
    private beside the run's own, nowhere for None (the caller runs no candidate: ``nl2fix
    prepare``)."""
    if sandbox is not None and sandbox.spec.kind in (SandboxKind.BWRAP, SandboxKind.DOCKER):
        private = tuple(dict.fromkeys((*sandbox.spec.private, *map(str, fixes))))
        return make_bwrap(SandboxSpec(SandboxKind.BWRAP, private=private), True)
    return sandbox


def confined(d4j: Defects4J, sandbox: Sandbox | None) -> Defects4J:
    """``d4j`` with its builds and tests run in :func:`build_sandbox` of ``sandbox``, Defects4J's
    :func:`fix_sources` shown empty."""
    target = build_sandbox(sandbox, fix_sources(d4j.executable, d4j.env))
    if target is None or not target.confined:
        return d4j  # nothing asked to confine it (--no-sandbox, said loudly)
    return d4j.with_runner(SandboxRunner(target, tuple(installation(d4j.executable, d4j.env))))
