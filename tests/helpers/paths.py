"""Where the tests find the repository and their recorded data, wherever a test module sits."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
"""The one folder of test data: fixture projects, recorded Defects4J outputs, model answers, tracker responses."""
