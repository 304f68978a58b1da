"""Where the browser tests keep their screenshots, said at the end of the session (the browser they drive
is ``tests/conftest.py``'s, shared with the hidden-text tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ARTIFACTS_ENV = "NL2FIX_TEST_ARTIFACTS"
"""A folder for the screenshots (kept across runs); default: under pytest's temporary folder."""
_taken: list[Path] = []


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    base = os.environ.get(ARTIFACTS_ENV)
    folder = Path(base) / "view" if base else tmp_path_factory.getbasetemp() / "view-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    _taken.append(folder)
    return folder


def pytest_terminal_summary(terminalreporter):
    for folder in _taken:
        shots = sorted(folder.glob("*.png"))
        if shots:
            terminalreporter.write_line(f"nl2fix view screenshots ({len(shots)}): {folder}")
