"""`nl2fix run` when it cannot go through: it says what failed, once, first, and exits non-zero."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from nl2fix.dataset.load import DATASET_FILE, EXAMPLE_BENCHMARK


def test_a_run_that_fails_at_once_announces_no_report(tmp_path, invoke_cli):
    run = tmp_path / "run"
    result = invoke_cli(
        "run", "--dataset", "example", "--bug", "Textkit-l", "--backend", "mutation", "-n", "2", "--run", run, "--quiet"
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "error: unknown bug id 'Textkit-l' in this dataset",
        "  hint: did you mean Textkit-1, Textkit-2, Textkit-3?",
    ]
    assert not run.exists()


needs_no_defects4j = pytest.mark.skipif(
    bool(shutil.which("defects4j") or os.environ.get("D4J_HOME")),
    reason="Defects4J is installed here, so Defects4J bugs validate",
)


@pytest.fixture
def without_metadata(tmp_path) -> Path:
    """The example benchmark's JSON away from its defects4j/ folder: every bug needs Defects4J."""
    dataset = tmp_path / "copied" / DATASET_FILE
    dataset.parent.mkdir()
    shutil.copy(EXAMPLE_BENCHMARK / DATASET_FILE, dataset)
    return dataset


@needs_no_defects4j
def test_a_run_whose_every_verdict_is_an_error_has_no_headline(tmp_path, invoke_cli, without_metadata):
    dataset = without_metadata
    run = tmp_path / "run"
    result = invoke_cli(
        "run",
        "--dataset",
        dataset,
        "--bug",
        "Textkit-1",
        "--bug",
        "Rangekit-1",
        "--bug",
        "Rangekit-2",
        "--backend",
        "mutation",
        "-n",
        "2",
        "--run",
        run,
        "--quiet",
    )
    assert result.exit_code == 2
    assert result.output.count("install Defects4J") == 1
    assert "  Textkit-1, Rangekit-1, Rangekit-2: cannot be prepared: Defects4J is not installed" in result.stdout
    assert result.stderr.startswith("error: all 6 candidate(s) ended in `error`")
    assert "== 3/4 rank ==" not in result.stdout and not (run / "report.html").exists()

    report = invoke_cli("report", "--run", run, "--no-codebleu")
    assert report.exit_code == 0
    assert "bugs with a plausible fix: none judged: every verdict is `error`" in report.stdout
    assert "plausible fix: 0/3" not in report.stdout and report.stdout.count("install Defects4J") == 1
    assert "the fixed version could not be validated (error)" in report.stdout


@needs_no_defects4j
def test_dataset_check_says_a_shared_cause_once(tmp_path, invoke_cli, without_metadata):
    result = invoke_cli(
        "dataset",
        "check",
        "--dataset",
        without_metadata,
        "--bug",
        "Textkit-1",
        "--bug",
        "Rangekit-1",
        "--store",
        tmp_path / "checks",
        "--quiet",
    )
    assert result.exit_code == 1
    assert result.output.count("install Defects4J") == 1
    assert "FAIL Textkit-1: see below" in result.stdout and "FAIL Rangekit-1: see below" in result.stdout
    assert "\nTextkit-1, Rangekit-1: cannot be prepared: Defects4J is not installed" in result.stdout


def test_a_server_that_never_answered_is_not_said_to_have_stopped(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    # a process of its own: what reaches the terminal first (a tiktoken warning, say) is part of the check
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from nl2fix.cli.main import main; main()",
            "run",
            "--dataset",
            "example",
            "--bug",
            "Textkit-1",
            "--backend",
            "openai",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--retries",
            "0",
            "-n",
            "1",
            "--run",
            str(tmp_path / "run"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: the server at http://127.0.0.1:{port}/v1/ did not answer (APIConnectionError: Connection error.)",
        "  hint: check that it is running and that --base-url (or $OPENAI_BASE_URL) is its address",
    ]
