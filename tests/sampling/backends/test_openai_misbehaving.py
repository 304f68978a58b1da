"""A model server on 127.0.0.1 that misbehaves, through the real ``openai`` client: a 200 whose body is cut
short is retried like a 5xx and named when it outlasts the retries; a request that is never answered is
cancelled by the first Ctrl-C within seconds (no retry, no new request after it), which says how to
resume; a second Ctrl-C right after it exits too, never with a traceback; the resumed run completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from nl2fix.store.run_store import RunStore
from tests.helpers.openai_server import HANG, MALFORMED
from tests.helpers.paths import REPO
from tests.sampling.backends.test_openai import CHAT, FAST_RETRY, answers, check_store, ds, run  # noqa: F401

NL2FIX = [sys.executable, "-c", "from nl2fix.cli.main import main; main()"]


def test_a_body_cut_short_is_retried_like_a_server_error(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(MALFORMED, 500, MALFORMED)
    summary = run(tmp_path, ds, server, ["Textkit-1"], concurrency=1)
    assert len([r for r in server.requests if r.path == CHAT]) == 4
    assert summary.failed_requests == 0 and summary.new_samples == 6
    check_store(tmp_path, ds, ["Textkit-1"], 6)


def test_a_body_cut_short_past_the_retries_is_named(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(*[MALFORMED] * FAST_RETRY.attempts)
    summary = run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert summary.failed_requests == 1 and summary.new_samples == 6
    assert "Textkit-1: the model server sent a malformed response (a body that is not valid JSON: " in str(summary)


def _sample(server, run_dir: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.Popen(
        [
            *NL2FIX,
            "sample",
            "--dataset",
            "example",
            "--bug",
            "Textkit-1",
            "--bug",
            "Textkit-5",
            "--backend",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            server.url,
            "-n",
            "3",
            "--concurrency",
            "1",
            "--run",
            str(run_dir),
            "--quiet",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: SIGINT at its default. A child inherits an ignored SIGINT, and the CLI keeps it
        # ignored on purpose (a background job's); a library of this test process ignores it once loaded
        # (both Ctrl-C tests failed so in the full suite on two workers, and passed alone)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_requests(server, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while len([r for r in server.requests if r.path == CHAT]) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the request never arrived"
        time.sleep(0.05)


def test_ctrl_c_cancels_a_request_that_is_never_answered(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(HANG)  # Textkit-1's request is held; Textkit-5's would be answered
    process = _sample(server, tmp_path / "run")
    try:
        _wait_for_requests(server, 1, process)
        asked = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        assert time.monotonic() - asked < 5
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and "Traceback" not in err
    assert err.splitlines()[-1] == "interrupted: everything received so far is in the run store; re-run to resume"
    time.sleep(1)
    assert len([r for r in server.requests if r.path == CHAT]) == 1  # nothing retried or asked after Ctrl-C


def test_a_second_ctrl_c_exits_at_once_and_the_run_resumes(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(HANG)
    process = _sample(server, tmp_path / "run")
    try:
        _wait_for_requests(server, 1, process)
        process.send_signal(signal.SIGINT)
        time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    # 130 from the second handler; or, when the second Ctrl-C lands while Python is already finalizing
    # (which puts SIGINT's default action back), ended by the signal itself: a shell says 130 for both
    assert process.returncode in (130, -signal.SIGINT) and "Traceback" not in err, (process.returncode, err)

    process = _sample(server, tmp_path / "run")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert [len(store.sample_indices(b)) for b in ("Textkit-1", "Textkit-5")] == [3, 3]
