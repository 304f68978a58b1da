"""Shared fixtures. Fixtures are real: real Java compiled with javac, real HTTP servers, real SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The reference dataset folder ``../shared/data``; tests that need it skip when it is absent."""
    if not (SHARED_DATA / "nl2fix_dataset.json").is_file():
        pytest.skip(f"reference data not found at {SHARED_DATA} (it sits beside the repository in CI)")
    return SHARED_DATA
