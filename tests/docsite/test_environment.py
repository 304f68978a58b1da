"""The environment variables page: every NL2FIX_* variable the code names has its line, and a variable
added to the code without one (or a line whose variable is gone) stops the build."""

from __future__ import annotations

import pytest

from docsite import environment
from tests.helpers.paths import REPO


def test_every_variable_of_the_code_has_a_meaning():
    page = environment.page(REPO)
    for name in ("NL2FIX_CACHE_DIR", "NL2FIX_SANDBOX", "NL2FIX_NARROW_TESTS", "NL2FIX_SETUP_DOCKER"):
        assert f"| `{name}` | {environment.MEANINGS[name]}" in page
    assert "`defects4j_adapter/engines/narrowing.py`" in page


def tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_string_literals_and_scripts_count_python_names_do_not(tmp_path):
    root = tree(
        tmp_path,
        {
            "nl2fix/a.py": 'NL2FIX_MAIN = "import sys"\nSWITCH = "NL2FIX_NARROW_TESTS"\n',
            "scripts/s.sh": 'x="${NL2FIX_NO_VLLM:-}"\n',
            "docker/Dockerfile": "ENV NL2FIX_CONTAINER=1\n",
        },
    )
    assert environment.found(root) == {
        "NL2FIX_CONTAINER": ["docker/Dockerfile"],
        "NL2FIX_NARROW_TESTS": ["nl2fix/a.py"],
        "NL2FIX_NO_VLLM": ["scripts/s.sh"],
    }


def test_a_variable_without_a_meaning_stops_the_page(tmp_path, monkeypatch):
    root = tree(tmp_path, {"nl2fix/a.py": 'os.environ.get("NL2FIX_SANDBOX"), os.environ.get("NL2FIX_NEW_KNOB")\n'})
    monkeypatch.setattr(environment, "MEANINGS", {"NL2FIX_SANDBOX": "the sandbox"})
    with pytest.raises(environment.Undocumented, match="NL2FIX_NEW_KNOB"):
        environment.page(root)


def test_a_meaning_whose_variable_is_gone_stops_the_page(tmp_path, monkeypatch):
    root = tree(tmp_path, {"nl2fix/a.py": 'os.environ.get("NL2FIX_SANDBOX")\n'})
    monkeypatch.setattr(environment, "MEANINGS", {"NL2FIX_SANDBOX": "the sandbox", "NL2FIX_OLD": "gone"})
    with pytest.raises(environment.Undocumented, match="NL2FIX_OLD"):
        environment.page(root)
