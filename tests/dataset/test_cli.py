"""`nl2fix dataset pull|stats|show`, `nl2fix prompt`, and the offline mutation run on a fresh checkout."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command
from nl2fix.dataset.download import pull
from nl2fix.dataset.load import DATASET_FILE
from nl2fix.dataset.stats import changed
from nl2fix.store.run_store import RunStore


@pytest.fixture
def file_server(tmp_path):
    """A real HTTP server on 127.0.0.1 serving ``tmp_path/www``."""
    root = tmp_path / "www"
    root.mkdir()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_pull_downloads_verifies_and_writes_atomically(tmp_path, file_server, monkeypatch):
    root, url = file_server
    payload = json.dumps({"Demo_1_src/A.java_1_3": {"src": "int f() { return 1; }"}}).encode()
    (root / DATASET_FILE).write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    monkeypatch.setenv("NL2FIX_DATA_DIR", str(tmp_path / "data"))

    path, fetched = pull(f"{url}/{DATASET_FILE}", digest)
    assert fetched and path == tmp_path / "data" / DATASET_FILE and path.read_bytes() == payload
    assert pull(f"{url}/{DATASET_FILE}", digest) == (path, False)  # a good copy is kept

    with pytest.raises(Nl2FixError, match="sha256"):
        pull(f"{url}/{DATASET_FILE}", "0" * 64, tmp_path / "other" / DATASET_FILE)
    with pytest.raises(Nl2FixError, match="could not download") as info:
        pull(f"{url}/missing.json", digest, tmp_path / "other" / DATASET_FILE)
    assert "--url file://" in info.value.hint
    assert os.listdir(tmp_path / "other") == []  # nothing half-written is left behind


def test_pull_command_and_an_unreachable_server(tmp_path, invoke_cli, shared_data):
    env = {"NL2FIX_DATA_DIR": str(tmp_path / "data")}
    result = invoke_cli("dataset", "pull", "--url", (shared_data / DATASET_FILE).as_uri(), env=env)
    assert result.exit_code == 0 and "sha256 verified" in result.output
    assert (tmp_path / "data" / DATASET_FILE).read_bytes() == (shared_data / DATASET_FILE).read_bytes()
    result = invoke_cli("dataset", "pull", "--url", "http://127.0.0.1:9/nl2fix_dataset.json", "--force", env=env)
    assert result.exit_code == 2 and "could not download" in result.output


def test_stats_and_show_on_the_example_benchmark(invoke_cli):
    result = invoke_cli("dataset", "stats", "--dataset", "example")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[:2] == ["Project", "Bugs"] and lines[-1].split()[:2] == ["All", "9"]
    result = invoke_cli("dataset", "show", "--dataset", "example", "textkit_3")
    assert result.exit_code == 0
    assert "bug:            Textkit-3" in result.output and "--- diff" in result.output and "+++ fixed" in result.output
    result = invoke_cli("dataset", "show", "--dataset", "example", "Textkit-30")
    assert result.exit_code == 2 and "did you mean" in result.output


def test_malformed_entries_are_reported_and_the_rest_is_used(tmp_path, invoke_cli):
    good = {
        "src": "int f() {\n  return 1;\n}",
        "fixed_src": "int f() {\n  return 2;\n}",
        "summary": "f is wrong",
        "Description": None,
    }
    data = {"Demo_1_src/A.java_1_3": good, "Demo_2_badkey": good, "Demo_3_src/A.java_5_7": {**good, "src": None}}
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    result = invoke_cli("dataset", "stats", "--dataset", path)
    assert result.exit_code == 0 and result.stdout.splitlines()[-1].split()[:2] == ["All", "1"]
    assert (
        "2 problems" in result.stderr
        and "Demo_2_badkey" in result.stderr
        and "lacks src (the buggy method)" in result.stderr
    )


def test_an_entry_missing_fields_says_which_and_what_becomes_of_it(tmp_path, invoke_cli):
    good = {"src": "int f() {\n  return 1;\n}", "fixed_src": "int f() {\n  return 2;\n}", "summary": "f is wrong"}
    data = {
        "Demo_1_src/A.java_1_3": good,
        "Demo_2_src/A.java_5_7": {"fixed_src": good["fixed_src"]},
        "Demo_3_src/A.java_9_11": {**good, "summary": " "},
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    result = invoke_cli("prompt", "--dataset", path, "--all")
    assert result.exit_code == 0 and "=== Demo-1" in result.stdout and "=== Demo-3" in result.stdout
    assert "Demo-2" not in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: entry 'Demo_2_src/A.java_5_7' lacks src (the buggy method) and summary (the issue title): "
        "left out, a bug needs its buggy and fixed methods",
        "warning: entry 'Demo_3_src/A.java_9_11' lacks summary (the issue title): "
        "kept as Demo-3, prompted without a title",
    ]


def test_prompt_prints_exactly_what_is_sent(invoke_cli):
    result = invoke_cli("prompt", "--dataset", "example", "--bug", "Rangekit-3", "--strategy", "reasoning", "--json")
    assert result.exit_code == 0
    messages = json.loads(result.output[: result.output.rindex("]") + 1])
    assert [(m["role"], m["turn"]) for m in messages] == [("system", 1), ("user", 1), ("user", 2), ("user", 3)]
    result = invoke_cli("prompt", "--dataset", "example", "--bug", "Rangekit-3", "--strategy", "one-shot")
    assert result.exit_code == 0 and "[system]" in result.output and "one-shot example: " in result.output
    result = invoke_cli(
        "prompt",
        "--dataset",
        "example",
        "--bug",
        "Rangekit-3",
        "--model-style",
        "completion",
        "--context-window",
        "300",
    )
    assert result.exit_code == 2 and "context window" in result.output


def test_mutation_baseline_runs_offline_on_a_fresh_clone(tmp_path, invoke_cli):
    run_dir = tmp_path / "run"
    env = {**os.environ, "NL2FIX_DATA_DIR": str(tmp_path / "data"), "NL2FIX_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_API_KEY", None)
    argv = [
        sys.executable,
        "-c",
        "from nl2fix.cli.main import main; main()",
        "sample",
        "--backend",
        "mutation",
        "--bug",
        "Textkit-1",
        "-n",
        "20",
        "--dataset",
        "example",
        "--run",
        run_dir,
    ]
    result = run_command(argv, timeout=120, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert "20 samples (20 new), 20 unique candidates, 0 without an extractable method" in result.stdout
    with RunStore(run_dir) as store:
        samples = store.samples("Textkit-1")
        assert [s.index for s in samples] == list(range(20)) and store.config.backend == "mutation"
        assert all(s.response.startswith("```java\n") for s in samples)
    again = invoke_cli(*argv[3:])
    assert again.exit_code == 0 and "20 samples (0 new)" in again.stdout


def test_changed_units_count_a_replacement_once():
    assert changed(list("abcd"), list("abcd")) == 0
    assert changed(list("abcd"), list("abxd")) == 1
    assert changed(list("abcd"), list("abd")) == 1
    assert changed(list("abcd"), list("xabcdyz")) == 3
