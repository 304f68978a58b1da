"""The mkdocs hook (``hooks:`` in ``mkdocs.yml``) that adds the generated pages to every build, so that
``mkdocs build`` and ``mkdocs serve`` always show the code as it is."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
# mkdocs loads this file by its path, not as part of a package: the repository must be importable
sys.path.insert(0, str(ROOT))

from docsite import benchmarks, generated  # noqa: E402

BENCHMARKS = "Benchmarks"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """The Benchmarks section of the navigation: the index, then each script that has results files, so a
    new script's page is never missing from it."""
    nav: list = config.nav or []
    for i, entry in enumerate(nav):
        if isinstance(entry, dict) and BENCHMARKS in entry:
            scripts = benchmarks.scripts_with_results(ROOT / "docs" / "benchmarks" / "results")
            nav[i] = {BENCHMARKS: [entry[BENCHMARKS]] + [{stem: f"{benchmarks.PAGES}/{stem}.md"} for stem in scripts]}
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, text in generated.pages(ROOT).items():
        files.append(File.generated(config, path, content=text))
    return files
