"""Every generated page, by its path under ``docs/``."""

from __future__ import annotations

from pathlib import Path

from docsite import benchmarks, cli_reference, environment, store_reference
from nl2fix.cli.main import cli
from nl2fix.store import records, run_store


def pages(root: Path) -> dict[str, str]:
    return {
        "reference/cli.md": cli_reference.page(cli),
        "reference/run-store.md": store_reference.page(records, run_store),
        "reference/environment.md": environment.page(root),
        **benchmarks.pages(root / "docs" / "benchmarks" / "results", root / "scripts"),
    }
