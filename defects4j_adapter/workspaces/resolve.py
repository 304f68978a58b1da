"""Which workspace a bug gets: a bundled-style benchmark's own project, built with javac, or a
Defects4J checkout (the d4j helper's :mod:`defects4j_adapter.workspaces.defects4j`)."""

from __future__ import annotations

from defects4j_adapter.contract import EngineOptions, Workspace
from defects4j_adapter.d4j.cli import Defects4J
from defects4j_adapter.workspaces import confined_defects4j
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from defects4j_adapter.workspaces import local as local_workspace
from nl2fix.core.domain import USER_BENCHMARK, Bug
from nl2fix.core.errors import Nl2FixError


def prepare_workspace(bug: Bug, options: EngineOptions) -> Workspace:
    if bug.benchmark == USER_BENCHMARK:
        raise Nl2FixError(
            f"{bug.id} is a bug of your own project: its workspace is built by `nl2fix fix`",
            "re-run the same `nl2fix fix` command: it validates what is not validated yet",
        )
    project = local_workspace.benchmark_project(bug, options.projects_dir)
    if project is not None:
        return local_workspace.prepare_benchmark_bug(bug, project, options.cache_dir)
    d4j = confined_defects4j.confined(Defects4J.find(), options.sandbox)
    return d4j_workspace.prepare_workspace(d4j, bug, options.cache_dir)
