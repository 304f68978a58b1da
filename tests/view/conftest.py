"""Where the browser tests keep their screenshots, said at the end of the session (the browser they drive
is ``tests/conftest.py``'s, shared with the hidden-text tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ARTIFACTS_ENV = "NL2FIX_TEST_ARTIFACTS"
"""A folder for the screenshots (kept across runs); default: under pytest's temporary folder."""
FOLDER = "view-screenshots"


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    base = os.environ.get(ARTIFACTS_ENV)
    folder = Path(base) / "view" if base else tmp_path_factory.getbasetemp() / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def pytest_terminal_summary(terminalreporter, config):
    # The summary is written by the process that ran pytest; under pytest-xdist (scripts/check.sh) the
    # tests, and so the screenshots, are a worker's, each under its own base temp inside this process's
    # (xdist's `popen-gwN`): looked for there rather than remembered by the fixture.
    base = os.environ.get(ARTIFACTS_ENV)
    if base:
        folders = [Path(base) / "view"]
    else:
        root = config._tmp_path_factory.getbasetemp()
        folders = [root / FOLDER, *sorted(root.glob(f"*/{FOLDER}"))]
    for folder in folders:
        shots = sorted(folder.glob("*.png"))
        if shots:
            terminalreporter.write_line(f"nl2fix view screenshots ({len(shots)}): {folder}")
