"""Which workspace a bug gets: a bundled-style benchmark's own project, built with javac, or a
Defects4J checkout (the d4j helper's :mod:`defects4j_adapter.d4j_workspace`)."""

from __future__ import annotations

from defects4j_adapter import local_workspace
from defects4j_adapter.engine import EngineOptions, Workspace
from nl2fix.models import Bug


def prepare_workspace(bug: Bug, options: EngineOptions) -> Workspace:
    project = local_workspace.benchmark_project(bug, options.projects_dir)
    if project is not None:
        return local_workspace.prepare_benchmark_bug(bug, project, options.cache_dir)
    from defects4j_adapter import d4j_cli, d4j_workspace

    return d4j_workspace.prepare_workspace(d4j_cli.Defects4J.find(), bug, options.cache_dir)
