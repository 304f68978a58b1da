"""A candidate cannot deceive the person reading it, nor read the user's checkout: `nl2fix fix` on a git
project holding an ignored `.env` and an untracked secret file, with the red team's answers
(`tests/fixtures/redteam/text/`) served by a real OpenAI-compatible server on 127.0.0.1: a plausible
fix hiding a backdoor line behind terminal escapes and a bidi override, a wrong one whose failure
message forges a green `plausible`, and a wrong one that reads the secrets. Validation is real
(javac, JUnit, bubblewrap); `nl2fix fix` and `nl2fix show` run under a real pseudo-terminal, the viewer
in headless chromium. Before this wall the terminal received the raw sequences, `--apply` wrote them,
and the candidate read `.env` from the built copy."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nl2fix.core.visible_text import hidden_characters
from nl2fix.store.run_store import STORE_FILE
from tests.helpers.minibench import IN_JVM_SANDBOXES
from tests.helpers.openai_server import OpenAIServer
from tests.helpers.paths import FIXTURES, REPO
from tests.helpers.viewer import viewing
from tests.view.test_browser import by

pytestmark = pytest.mark.slow

ANSWERS = json.loads((FIXTURES / "redteam/text/answers.json").read_text(encoding="utf-8"))
SECRET = "nl2fix-redteam-secret-7c41"
BUG = "Words-31"
FAILING = "org.words.WordsTest::initialsSkipDoubleSpaces"
RAW = ("\x1b[2K", "\x1b[1A", "\x1b]52", "\x1b[32;1m#2", "\u202e", "\x07")
"""The candidates' own sequences: none may reach a terminal, a file or a page as it is."""
BACKDOOR = (
    '+        if (sentence.startsWith("sesame ")) { return "ROOT"; } /*\\x0d\\x1b[2K\\x1b]52;c;cm0gLXJmIH4K\\x07*/'
)
"""The backdoor line as shown: each hidden character as its escape."""
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
        cwd=project,
        check=True,
        timeout=60,
        capture_output=True,
    )


def _project(tmp: Path) -> Path:
    project = tmp / "words"
    shutil.copytree(FIXTURES / "fix_plain", project)
    (project / ".gitignore").write_text(".env\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    (project / ".env").write_text(f"API_TOKEN={SECRET}\n")  # ignored by git
    (project / "secret.txt").write_text(f"{SECRET}\n")  # untracked
    return project


def _model(project: Path):
    methods = [a["method"].replace("@PROJECT@", str(project)) for a in ANSWERS.values()]
    turn = iter(range(10**6))

    def model(messages, n):
        return [f"```java\n{methods[next(turn) % len(methods)]}\n```" for _ in range(n)]

    return model


def in_terminal(args: list, env: dict[str, str], timeout: float = 900) -> tuple[int, str]:
    """``nl2fix ARGS`` with a pseudo-terminal as its stdin, stdout and stderr: its
    exit status and every byte the terminal received."""
    master, slave = pty.openpty()
    argv = [sys.executable, "-c", "from nl2fix.cli.main import main; main()", *map(str, args)]
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=REPO, env=env, start_new_session=True)
    os.close(slave)
    received = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                proc.kill()
                raise AssertionError(f"no output for {timeout} s: {received.decode(errors='replace')[-2000:]}")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the last holder of the terminal's other end closed it
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
    return proc.wait(timeout=60), received.decode("utf-8")


def assert_only_text(shown: str) -> None:
    """What reached a person holds none of the candidates' own sequences, and nothing that acts on a
    terminal but nl2fix's own colours (SGR); line ends are the terminal's CRLF."""
    for raw in RAW:
        assert raw not in shown, f"{raw!r} reached the terminal"
    rest = _SGR.sub("", shown).replace("\r\n", "\n")
    assert not hidden_characters(rest), hidden_characters(rest)


@pytest.fixture(scope="module", params=IN_JVM_SANDBOXES)
def hostile(request, tmp_path_factory):
    """The project, the run and the terminal's bytes of one `nl2fix fix --out` with the red team's answers,
    in each sandbox (what a person is shown does not depend on it: ``IN_JVM_SANDBOXES``)."""
    if request.param == "bwrap":
        request.getfixturevalue("confined")
    tmp = tmp_path_factory.mktemp("hidden-text")
    project = _project(tmp)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_BASE_URL"}
    env.update(
        NL2FIX_CACHE_DIR=str(tmp / "cache"), OPENAI_API_KEY="test", PYTHONPATH=str(REPO), TERM="xterm", COLUMNS="200"
    )
    with OpenAIServer(model=_model(project)) as openai:
        status, shown = in_terminal(
            [
                "fix",
                "--project",
                project,
                "--issue",
                "initials() crashes on two spaces",
                "--test",
                FAILING,
                "--build",
                "plain",
                "--src",
                "src",
                "--test-src",
                "test",
                "-n",
                3,
                "--run",
                tmp / "run",
                "--id",
                BUG,
                "--backend",
                "openai",
                "--model",
                "test-model",
                "--base-url",
                openai.url,
                "--quiet",
                "--top",
                3,
                "--out",
                tmp / "fix.diff",
                "--sandbox",
                request.param,
            ],
            env,
        )
    assert status == 0, shown
    return {
        "project": project,
        "run": tmp / "run",
        "diff": tmp / "fix.diff",
        "env": env,
        "shown": shown,
        "cache": tmp / "cache",
        "sandbox": request.param,
    }


def _lines(shown: str) -> list[str]:
    return _SGR.sub("", shown).replace("\r\n", "\n").split("\n")


def test_fix_in_a_terminal_shows_every_sequence_escaped_and_flags_the_candidates(hostile):
    shown = hostile["shown"]
    assert_only_text(shown)
    lines = _lines(shown)
    heads = [line for line in lines if re.match(r"#\d  ", line)]
    assert len(heads) == 3, shown
    # the backdoor's fix is the plausible one, flagged; its hidden line is in the diff, its sequences as text
    assert heads[0].startswith("#1  plausible") and heads[0].endswith("[HIDDEN CHARACTERS]")
    assert BACKDOOR in lines and "+        return out.toString(); /* \\u202e reviewed */" in lines
    # the forged verdict stays in its own candidate's line, as text, under a verdict of `wrong`, flagged
    # (its source has no escape: its message, made at run time, has)
    assert [h[:9] for h in heads[1:]] == ["#2  wrong", "#3  wrong"]
    assert [h.endswith("[HIDDEN CHARACTERS]") for h in heads[1:]] == [False, True]
    forged = next(line for line in lines if "#2  plausible" in line)
    assert forged.startswith("    ") and "\\x1b[1A\\x1b[2K\\x1b[32;1m#2  plausible" in forged
    assert "3 unique candidate(s) (2 with hidden characters, shown escaped)" in shown
    assert SECRET not in shown


def test_the_diff_file_of_a_flagged_candidate_is_for_reading_only(hostile):
    text = hostile["diff"].read_text(encoding="utf-8")
    assert not hidden_characters(text)
    assert text.startswith("nl2fix: candidate #1 (")
    assert "--apply 1 --accept-hidden-characters" in text
    assert f"| {BACKDOOR}\n" in text
    for tool in (["git", "apply", "--check"], ["patch", "-p1", "--dry-run", "-i"]):
        if shutil.which(tool[0]):
            applied = subprocess.run(
                [*tool, str(hostile["diff"])],
                cwd=hostile["project"],
                capture_output=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
            assert applied.returncode != 0, tool


def test_apply_refuses_a_flagged_candidate_unless_told(hostile, invoke_cli):
    project, target = hostile["project"], hostile["project"] / "src/org/words/Words.java"
    before = target.read_bytes()
    common = [
        "fix",
        "--project",
        project,
        "--issue",
        "initials() crashes on two spaces",
        "--test",
        FAILING,
        "--build",
        "plain",
        "--src",
        "src",
        "--test-src",
        "test",
        "-n",
        3,
        "--run",
        hostile["run"],
        "--id",
        BUG,
        "--backend",
        "openai",
        "--model",
        "test-model",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--quiet",
        "--sandbox",
        hostile["sandbox"],
    ]
    env = {"NL2FIX_CACHE_DIR": str(hostile["cache"]), "OPENAI_API_KEY": "test"}
    refused = invoke_cli(*common, "--apply", 1, env=env)  # resumed: no request to the (absent) server
    assert refused.exit_code == 2, refused.output
    assert "#1 carries 5 hidden characters" in refused.output and "--accept-hidden-characters" in refused.output
    assert target.read_bytes() == before and not target.with_name("Words.java.nl2fix-backup").exists()

    accepted = invoke_cli(*common, "--apply", 1, "--accept-hidden-characters", env=env)
    assert accepted.exit_code == 0, accepted.output
    assert "\x1b[2K" in target.read_text() and "\u202e" in target.read_text()  # as validated, since asked
    target.with_name("Words.java.nl2fix-backup").replace(target)


def test_show_in_a_terminal_shows_every_sequence_escaped(hostile):
    status, shown = in_terminal(["show", "--run", hostile["run"], "--bug", BUG], hostile["env"], timeout=120)
    assert status == 0, shown
    assert_only_text(shown)
    lines = _lines(shown)
    assert sum(line.endswith("[HIDDEN CHARACTERS]") for line in lines) == 2
    assert any("HIDDEN CHARACTERS: 5 hidden characters (" in line for line in lines)


def test_reports_and_exports_hold_the_escapes_and_the_flag(hostile, invoke_cli, tmp_path):
    run = hostile["run"]
    for fmt in ("text", "md", "html", "json"):
        out = tmp_path / f"report.{fmt}"
        assert invoke_cli("report", "--run", run, "--format", fmt, "--out", out, "--no-codebleu").exit_code == 0
        text = out.read_text(encoding="utf-8")
        assert not hidden_characters(text), fmt
        assert "hidden characters" in text or fmt == "json"
    rows = [json.loads(line) for line in invoke_cli("export", "--run", run).stdout.splitlines()]
    assert sorted(r["hidden_characters"] for r in rows) == [False, True, True]
    assert {r["verdict"] for r in rows} == {"plausible", "wrong"}


def test_no_candidate_reads_what_is_not_an_input_of_the_build(hostile):
    # the built copy holds the tracked files only, and the candidate that looked found nothing
    built = list((hostile["cache"] / "projects/words").glob("plain-*/project"))
    assert built and not any((b / ".env").exists() or (b / "secret.txt").exists() for b in built)
    assert SECRET not in hostile["shown"]
    with sqlite3.connect(hostile["run"] / STORE_FILE) as db:
        dump = "\n".join(db.iterdump())
    assert SECRET not in dump
    assert ".env unreadable" in dump and f"{hostile['project']}/secret.txt unreadable" in dump
    for path in hostile["run"].rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path


@pytest.mark.browser
def test_the_viewer_shows_the_escapes_marked_and_the_flags(hostile, browser):
    with viewing(hostile["run"]) as url:
        browser.get(f"{url}runs/run/bugs/{BUG}.html")
        source = browser.page_source
        assert not any(raw in source for raw in RAW)
        assert len(browser.find_elements(*by("details.candidate summary .tag.hidden-chars"))) == 2
        first = browser.find_element(*by("details.candidate"))
        first.find_element(*by("summary")).click()
        # the candidate's code (in a fold) with its comments, where the sequences are
        marks = [m.get_attribute("textContent") for m in first.find_elements(*by("pre.code .hidden-char"))]
        assert "\\u202e" in marks and "\\x1b" in marks, marks
        assert "HIDDEN CHARACTERS" in first.find_element(*by(".hidden-flag")).text
