"""Shared fixtures. Fixtures are real: real Java compiled with javac, real HTTP servers, real SQLite."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.jvm import reference_java
from defects4j_adapter.sandbox.bwrap import bwrap_problem
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import load_dataset
from tests.helpers.minibench import IN_JVM_SANDBOXES, MINIBENCH_JSON, SANDBOXES
from tests.helpers.openai_server import OpenAIServer
from tests.helpers.paths import REPO

SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The reference dataset folder ``../shared/data``; tests that need it skip when it is absent."""
    if not (SHARED_DATA / "nl2fix_dataset.json").is_file():
        pytest.skip(f"reference data not found at {SHARED_DATA} (it sits beside the repository in CI)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def nl2fix_cache(tmp_path_factory) -> Path:
    """``$NL2FIX_CACHE_DIR`` for the session, under its base temp dir: a workspace is compiled once per
    session whichever test asks first."""
    path = tmp_path_factory.getbasetemp() / "nl2fix-cache"
    old = os.environ.get("NL2FIX_CACHE_DIR")
    os.environ["NL2FIX_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("NL2FIX_CACHE_DIR", None)
    else:
        os.environ["NL2FIX_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def confined() -> None:
    """Skips the test where bubblewrap cannot confine candidates."""
    problem = bwrap_problem()
    if problem:
        pytest.skip(f"bubblewrap cannot confine candidates here: {problem}")


def _sandbox(request):
    if request.param == "bwrap":
        request.getfixturevalue("confined")
    return make_sandbox(request.param)


@pytest.fixture(scope="module", params=SANDBOXES)
def box(request):
    """A sandbox for a wall the operating system keeps: the module runs under bubblewrap, then in a container."""
    return _sandbox(request)


@pytest.fixture(scope="module", params=IN_JVM_SANDBOXES)
def jvm_box(request):
    """A sandbox for a wall inside the JVM: bubblewrap (``IN_JVM_SANDBOXES``; every sandbox with
    ``NL2FIX_EVERY_SANDBOX=1``)."""
    return _sandbox(request)


@pytest.fixture(scope="session")
def minibench():
    """The mini benchmark's dataset (``tests/helpers/minibench.py``)."""
    return load_dataset(MINIBENCH_JSON)


@pytest.fixture
def openai_server_factory(monkeypatch):
    """Start real OpenAI-compatible servers on 127.0.0.1 (``tests/helpers/openai_server.py``): call it with
    ``OpenAIServer`` options (``model=``, ``stop_after=``, ``max_n=`` ...); all stop at teardown.
    ``OPENAI_API_KEY``/``OPENAI_BASE_URL`` are cleared so nothing reaches a real endpoint."""
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

    from nl2fix.cli.main import cli

    runner = CliRunner()

    def invoke(*args, env=None):
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)

    return invoke


def _succeeds(*command) -> bool:
    return subprocess.run([str(c) for c in command], capture_output=True, timeout=30).returncode == 0


@pytest.fixture
def read_only_dir():
    """``make(path)`` makes a directory unwritable for real and returns where to read it: the directory
    itself with mode 0555, or, as root (whom modes do not stop), a read-only bind mount of it, else
    the directory made immutable (``chattr +i``). Everything is undone at teardown."""
    undo = []

    def make(path: Path) -> Path:
        if os.geteuid() != 0:
            path.chmod(0o555)
            undo.append(lambda: path.chmod(0o755))
            return path
        view = path.with_name(path.name + "-read-only")
        view.mkdir()
        if _succeeds("mount", "--bind", path, view):
            undo.append(lambda: _succeeds("umount", "--lazy", view))  # lazy: a failed test may hold files open
            if _succeeds("mount", "-o", "remount,ro,bind", view):
                return view
        if shutil.which("chattr") and _succeeds("chattr", "+i", path):
            undo.append(lambda: _succeeds("chattr", "-i", path))
            return path
        pytest.skip("running as root, and neither a read-only bind mount nor `chattr +i` is available here")

    yield make
    for step in reversed(undo):
        step()


def _test_java_line() -> str:
    try:
        return f"test Java: {reference_java.current().describe()}"
    except Nl2FixError as err:
        return f"test Java: none ({err})"


def pytest_report_header(config) -> str:
    """The Java the tests run on, first thing in the output: tests on another Java than Defects4J's
    skip or behave differently, so a log must say which it was."""
    return _test_java_line()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """``-q`` (as scripts/check.sh runs) hides the header: the same line at the end instead."""
    if config.option.verbose < 0:
        terminalreporter.write_line(_test_java_line())


@pytest.fixture(scope="module")
def browser():
    """Headless chromium through selenium, for what a person looks at (the view, hidden text)."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("chromium and chromedriver are not installed (scripts/setup.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--disable-gpu",
        "--allow-file-access-from-files",
    ):
        options.add_argument(arg)
    from selenium.webdriver.chrome.service import Service

    driver_ = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    yield driver_
    driver_.quit()
