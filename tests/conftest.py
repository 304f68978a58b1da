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


@pytest.fixture
def openai_server_factory(monkeypatch):
    """Start real OpenAI-compatible servers on 127.0.0.1 (``tests/openai_server.py``): call it with
    ``OpenAIServer`` options (``model=``, ``stop_after=``, ``max_n=`` ...); all stop at teardown.
    ``OPENAI_API_KEY``/``OPENAI_BASE_URL`` are cleared so nothing reaches a real endpoint."""
    from openai_server import OpenAIServer

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    started = []

    def start(**options) -> OpenAIServer:
        started.append(OpenAIServer(**options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def openai_server(openai_server_factory):
    """One running server with the default echo model; ``openai_server.url`` is the base URL."""
    return openai_server_factory()


@pytest.fixture(scope="session")
def invoke_cli():
    """Run ``nl2fix ARGS...`` in-process through click; returns click's Result (``stdout``,
    ``stderr``, ``output``, ``exit_code``). ``env=`` sets environment variables for the call."""
    from click.testing import CliRunner

    from nl2fix.cli import _register, cli

    _register()
    runner = CliRunner()

    def invoke(*args, env=None):
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)

    return invoke
