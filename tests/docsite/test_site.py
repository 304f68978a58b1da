"""The site builds strictly (``mkdocs build --strict``, as scripts/check.sh runs it): every page of the
navigation exists, generated ones included, and no link or anchor is broken."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers.paths import REPO

pytest.importorskip("mkdocs", reason="mkdocs is a dev dependency (pip install -e '.[dev]')")


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    for page in (
        "reference/cli/index.html",
        "reference/run-store/index.html",
        "reference/environment/index.html",
        "benchmarks/index.html",
        "benchmarks/bench_view/index.html",
        "reference/life-of-a-candidate/index.html",
    ):
        assert (site / page).is_file(), page
    assert "nl2fix dataset build" in (site / "reference/cli/index.html").read_text()


@pytest.mark.slow
def test_a_broken_anchor_fails_the_strict_build(tmp_path):
    """The build is strict about anchors too: a link to a heading that is not there fails it."""
    for name in ("mkdocs.yml", "docs", "docsite", "scripts"):
        target = tmp_path / name
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy)(REPO / name, target)
    for name in ("nl2fix", "defects4j_adapter", "ranking", "prompts", "tests", "docker", "deploy"):
        (tmp_path / name).symlink_to(REPO / name)
    concepts = tmp_path / "docs" / "getting-started" / "concepts.md"
    concepts.write_text(concepts.read_text() + "\nSee [verdicts](quickstart.md#no-such-heading).\n")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode != 0
    assert "does not contain an anchor '#no-such-heading'" in built.stderr
