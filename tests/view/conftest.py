"""The browser the browser tests drive (headless chromium through selenium), and where they keep their
screenshots, said at the end of the session."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="module")
def browser():
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


def pytest_terminal_summary(terminalreporter):
    for folder in _taken:
        shots = sorted(folder.glob("*.png"))
        if shots:
            terminalreporter.write_line(f"nl2fix view screenshots ({len(shots)}): {folder}")
