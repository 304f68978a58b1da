"""The red team's shared ground: the example benchmark's Textkit-1, the red-team benchmark's Beans-1, and the fast
engine under bubblewrap that judges the fix before and after a module's payloads
(:func:`tests.helpers.redteam.fix_guarded`)."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Bug
from nl2fix.dataset.load import load_dataset
from tests.helpers.minibench import REDTEAM, engine_options
from tests.helpers.redteam import EXAMPLES, fix_guarded


@pytest.fixture(scope="module")
def textkit() -> Bug:
    return load_dataset(EXAMPLES / "nl2fix_dataset.json").bugs["Textkit-1"]


@pytest.fixture(scope="module")
def beans() -> Bug:
    """``Beans-1`` (``fixtures/redteam/bench``): a class that already uses deep reflection, beside the project's own
    reflective helper (``org.beans.Calls``)."""
    return load_dataset(REDTEAM / "bench" / "nl2fix_dataset.json").bugs["Beans-1"]


@pytest.fixture(scope="module")
def guarded(nl2fix_cache, confined, textkit):
    """``(engine, workspace, required)``: one warm JVM for the module, the fix judged before and after the
    payloads (its passes are ``required`` of each)."""
    with fix_guarded(nl2fix_cache, textkit) as judged:
        yield judged


@pytest.fixture
def beans_engine(nl2fix_cache, confined):
    """The fast engine under bubblewrap over the red-team benchmark's projects (Beans-1's), one for the test."""
    made = FastEngine(
        engine_options(nl2fix_cache, sandbox=make_sandbox("bwrap"), projects_dir=REDTEAM / "bench" / "projects")
    )
    yield made
    made.close()
