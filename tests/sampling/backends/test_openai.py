"""Sampling through the real ``openai`` client against a real OpenAI-compatible server on 127.0.0.1:
every strategy and style, reasoning's dependent turns, retries, n fallbacks, a server that dies
mid-run and the resumed run, token accounting, export and replay."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from nl2fix.core import tokens
from nl2fix.core.domain import ModelStyle, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.openai_client import RetryPolicy, retry_after
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import candidate_hash, remove_comments
from nl2fix.prompting.prompt import Prompt
from nl2fix.sampling.backends.base import split_evenly
from nl2fix.sampling.backends.openai_backend import OpenAIBackend
from nl2fix.sampling.stage import sample
from nl2fix.store.records import RankingEntry, RunConfig, ValidationRecord
from nl2fix.store.run_store import RunStore

FAST_RETRY = RetryPolicy(attempts=4, initial_wait=0.01, max_wait=0.05)
CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def ds():
    return open_dataset("example")


def target_of(ds, text: str):
    """The bug whose comment-free buggy method appears last in the prompt (one-shot shows another first)."""
    placed = [(text.rfind(remove_comments(b.buggy_method)), b) for b in ds.bugs.values()]
    position, bug = max(placed, key=lambda p: p[0])
    assert position >= 0, "the prompt holds no known buggy method"
    return bug


def answers(ds, counting=False):
    """A deterministic model: answer i answers with the fix (i % 3 == 0), the buggy method again
    (1) or prose without code (2), where i is the choice index - or, ``counting``, the number of
    answers given for the bug so far. Completion prompts get the fixed body that continues the header."""
    given = Counter()

    def model(messages, n):
        text = "\n".join(m["content"] for m in messages)
        bug = target_of(ds, text)
        fixed, buggy = remove_comments(bug.fixed_method), remove_comments(bug.buggy_method)
        completion = len(messages) == 1 and messages[0]["role"] == "user" and text.rstrip().endswith("{")
        out = []
        start = given[bug.id] if counting else 0
        given[bug.id] += n
        for i in range(start, start + n):
            if i % 3 == 2:
                out.append("I am not sure what is wrong here.")
            elif completion:
                out.append((fixed if i % 3 == 0 else buggy).split("{", 1)[1])
            else:
                out.append(f"Here is the method:\n```java\n{fixed if i % 3 == 0 else buggy}\n```")
        return out

    return model


def config(server, strategy=Strategy.ZERO_SHOT, n=6, style=ModelStyle.CHAT) -> RunConfig:
    return RunConfig(
        dataset="example",
        backend="openai",
        model="test-model",
        model_style=style,
        strategy=strategy,
        temperature=0.8,
        n=n,
        base_url=server.url,
    )


def backend_for(server, concurrency=4) -> OpenAIBackend:
    return OpenAIBackend("test-model", base_url=server.url, concurrency=concurrency, retry=FAST_RETRY)


def run(tmp_path, ds, server, bugs, concurrency=4, **options):
    backend = backend_for(server, concurrency)
    try:
        return sample(
            tmp_path / "run",
            config(server, **options),
            [ds.bugs[b] for b in bugs],
            dataset=ds,
            concurrency=concurrency,
            progress=False,
            backend=backend,
        )
    finally:
        backend.close()


def check_store(tmp_path, ds, bugs, n):
    """Every bug has samples 0..n-1 exactly once; fixes and buggy echoes extract, prose does not."""
    with RunStore(tmp_path / "run") as store:
        for bug_id in bugs:
            samples = store.samples(bug_id)
            assert [s.index for s in samples] == list(range(n))
            fixed_hash = candidate_hash(remove_comments(ds.bugs[bug_id].fixed_method))
            buggy_hash = candidate_hash(remove_comments(ds.bugs[bug_id].buggy_method))
            for s in samples:
                expected = [fixed_hash, buggy_hash, None][s.index % 3]
                assert s.candidate_hash == expected, (s.index, s.response, s.extraction_error)
                assert (s.extraction_error is None) == (expected is not None)
            assert {c.hash: c.count for c in store.candidates(bug_id)} == {
                fixed_hash: (n + 2) // 3,
                buggy_hash: (n + 1) // 3,
            }


@pytest.mark.parametrize(
    "strategy",
    [Strategy.TITLE_ONLY, Strategy.ZERO_SHOT, Strategy.ONE_SHOT, Strategy.TEST_DRIVEN, Strategy.ISSUE_AND_TEST],
)
def test_single_turn_strategies_send_the_stored_prompt_once_per_bug(tmp_path, ds, openai_server_factory, strategy):
    server = openai_server_factory(model=answers(ds))
    bugs = ["Textkit-1", "Rangekit-2"]
    summary = run(tmp_path, ds, server, bugs, strategy=strategy)
    assert len(server.requests) == 2 and all(r.body["n"] == 6 and r.body["max_tokens"] == 750 for r in server.requests)
    check_store(tmp_path, ds, bugs, 6)
    with RunStore(tmp_path / "run") as store:
        for request in server.requests:
            bug = target_of(ds, request.body["messages"][-1]["content"])
            prompt = Prompt.from_record(store.prompt(bug.id), ModelStyle.CHAT, bug)
            assert request.body["messages"] == list(prompt.turns[0])  # exactly what `nl2fix prompt` prints
            assert (prompt.example_id is not None) == (strategy is Strategy.ONE_SHOT) and prompt.example_id != bug.id
        samples = store.samples()
    assert (
        summary.samples == summary.new_samples == 12 and summary.unique_candidates == 4 and summary.unextractable == 4
    )
    assert summary.prompt_tokens == sum(s.prompt_tokens for s in samples) > 0
    assert summary.completion_tokens == sum(s.completion_tokens for s in samples) > 0

    again = run(tmp_path, ds, server, bugs, strategy=strategy)
    assert len(server.requests) == 2 and again.new_samples == 0 and again.samples == 12


def test_prompt_tokens_of_a_request_are_shared_and_each_answer_counts_its_own(tmp_path, ds, openai_server_factory):
    """A server whose usage is per request (not vLLM): the prompt is shared by the request's answers;
    each answer's completion tokens are its own, counted with the model's tokenizer, never a share."""
    server = openai_server_factory(model=answers(ds))
    run(tmp_path, ds, server, ["Textkit-4"], n=5)
    import openai

    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    usage = client.chat.completions.create(model="m", messages=server.requests[0].body["messages"], n=5).usage
    with RunStore(tmp_path / "run") as store:
        samples = store.samples("Textkit-4")
    assert [s.prompt_tokens for s in samples] == split_evenly(usage.prompt_tokens, 5)
    assert [s.completion_tokens for s in samples] == [tokens.count(s.response, "test-model") for s in samples]
    assert len({s.completion_tokens for s in samples}) > 1  # the prose answer is shorter than the methods
    assert split_evenly(7, 3) == [3, 2, 2] and split_evenly(0, 2) == [0, 0]


def test_token_usage_is_counted_when_the_server_leaves_it_out(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds), usage=False)
    run(tmp_path, ds, server, ["Textkit-4"], n=2)
    with RunStore(tmp_path / "run") as store:
        samples, prompt = store.samples("Textkit-4"), store.prompt("Textkit-4")
    assert sum(s.prompt_tokens for s in samples) == prompt.prompt_tokens
    assert [s.completion_tokens for s in samples] == [tokens.count(s.response, "test-model") for s in samples]


def test_completion_and_edit_styles(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    run(tmp_path, ds, server, ["Textkit-2"], style=ModelStyle.COMPLETION, n=3)
    (request,) = server.requests
    assert request.path == "/v1/completions" and request.body["prompt"].rstrip().endswith("{")
    check_store(tmp_path, ds, ["Textkit-2"], 3)

    server = openai_server_factory(model=answers(ds))
    run(tmp_path / "edit", ds, server, ["Textkit-2"], style=ModelStyle.EDIT, n=3)
    (request,) = server.requests
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
    assert request.body["messages"][1]["content"] == remove_comments(ds.bugs["Textkit-2"].buggy_method)
    check_store(tmp_path / "edit", ds, ["Textkit-2"], 3)


def reasoning_model(ds):
    """Turn 1 names a location tagged with the choice; turn 2 explains that location; turn 3 fixes
    and quotes both, so each answer shows it was given the earlier ones."""

    def model(messages, n):
        said = [m["content"] for m in messages if m["role"] == "assistant"]
        if not said:
            return [f"LOC-{i}: the loop bound" for i in range(n)]
        loc = re.search(r"LOC-\d+", said[0]).group()
        if len(said) == 1:
            return [f"WHY-{loc}: it reads one past the end"] * n
        fixed = remove_comments(target_of(ds, messages[1]["content"]).fixed_method)
        return [f"Given {said[0][:5]} and {said[1][:9]}:\n```java\n{fixed}\n```"] * n

    return model


def test_reasoning_runs_three_dependent_turns_per_sample(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=reasoning_model(ds))
    summary = run(tmp_path, ds, server, ["Rangekit-1"], strategy=Strategy.REASONING, n=3)
    turns = Counter(sum(m["role"] == "assistant" for m in r.body["messages"]) for r in server.requests)
    assert turns == {0: 1, 1: 3, 2: 3}
    assert [r.body["n"] for r in server.requests if len(r.body["messages"]) == 2] == [3]
    assert {r.body["max_tokens"] for r in server.requests} == {300, 750}
    for r in server.requests:
        said = [m["content"] for m in r.body["messages"] if m["role"] == "assistant"]
        if len(said) == 2:
            assert said[1] == f"WHY-{said[0][:5]}: it reads one past the end"
    fixed_hash = candidate_hash(remove_comments(ds.bugs["Rangekit-1"].fixed_method))
    with RunStore(tmp_path / "run") as store:
        samples = store.samples("Rangekit-1")
    assert summary.samples == 3 and summary.unique_candidates == 1
    assert sorted(s.response.split(":")[0] for s in samples) == [
        "Given LOC-0 and WHY-LOC-0",
        "Given LOC-1 and WHY-LOC-1",
        "Given LOC-2 and WHY-LOC-2",
    ]
    for s in samples:
        assert s.candidate_hash == fixed_hash
        assert [m["role"] for m in s.transcript] == ["user", "assistant", "user", "assistant"]
        assert s.transcript[1]["content"].startswith("LOC-") and s.transcript[3]["content"].startswith("WHY-LOC-")
        assert s.response.startswith(f"Given {s.transcript[1]['content'][:5]}")
        assert s.prompt_tokens > 0 and s.completion_tokens > 0


def test_rate_limits_and_server_errors_are_retried(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(429, 500, 503)
    summary = run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert [r.status for r in server.requests] == [429, 500, 503, 200, 200]
    assert summary.failed_requests == 0 and summary.new_samples == 12
    check_store(tmp_path, ds, ["Textkit-1", "Textkit-5"], 6)


def test_errors_that_outlast_the_retries_leave_the_samples_to_the_next_run(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(*[500] * FAST_RETRY.attempts)
    summary = run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert summary.failed_requests == 1 and summary.new_samples == 6 and "scripted failure 500" in str(summary)
    again = run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert again.new_samples == 6 and again.samples == 12 and server.successful()[-1].body["n"] == 6


def test_bad_credentials_stop_the_run_with_a_hint(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(401)
    with pytest.raises(Nl2FixError, match="refused") as info:
        run(tmp_path, ds, server, ["Textkit-1"])
    assert "OPENAI_API_KEY" in info.value.hint


def test_a_server_that_dies_mid_run_loses_nothing_and_the_resumed_run_asks_only_for_the_rest(
    tmp_path, ds, openai_server_factory
):
    bugs = ["Textkit-1", "Textkit-2", "Rangekit-1", "Rangekit-2"]
    dying = openai_server_factory(model=answers(ds), stop_after=2)
    with pytest.raises(Nl2FixError, match="stopped answering") as info:
        run(tmp_path, ds, dying, bugs, n=5, concurrency=1)
    assert "re-run" in info.value.hint
    with RunStore(tmp_path / "run") as store:
        kept = {b: store.sample_indices(b) for b in bugs}
    assert sorted(len(v) for v in kept.values()) == [0, 0, 5, 5]

    fresh = openai_server_factory(model=answers(ds))
    summary = run(tmp_path, ds, fresh, bugs, n=5, concurrency=1)
    asked = [target_of(ds, r.body["messages"][-1]["content"]).id for r in fresh.requests]
    assert sorted(asked) == sorted(b for b in bugs if not kept[b]) and all(r.body["n"] == 5 for r in fresh.requests)
    assert summary.new_samples == 10 and summary.samples == 20
    check_store(tmp_path, ds, bugs, 5)


def test_a_dead_server_mid_reasoning_chain_resumes_only_the_unfinished_chains(tmp_path, ds, openai_server_factory):
    dying = openai_server_factory(model=reasoning_model(ds), stop_after=5)  # turn 1, three turn 2s, one turn 3
    with pytest.raises(Nl2FixError):
        run(tmp_path, ds, dying, ["Rangekit-1"], strategy=Strategy.REASONING, n=3, concurrency=1)
    with RunStore(tmp_path / "run") as store:
        assert len(store.samples("Rangekit-1")) == 1
    fresh = openai_server_factory(model=reasoning_model(ds))
    summary = run(tmp_path, ds, fresh, ["Rangekit-1"], strategy=Strategy.REASONING, n=3, concurrency=1)
    first_turns = [r.body["n"] for r in fresh.requests if len(r.body["messages"]) == 2]
    assert first_turns == [2] and len(fresh.requests) == 5
    assert summary.samples == 3 and summary.new_samples == 2
    with RunStore(tmp_path / "run") as store:
        assert [s.index for s in store.samples("Rangekit-1")] == [0, 1, 2]


@pytest.mark.parametrize(
    "server_options, calls",
    [({"reject_n": True}, "400 then n=1"), ({"max_n": 1}, "ignores n"), ({"max_n": 4}, "caps n")],
)
def test_servers_that_refuse_or_cap_n_get_the_rest_in_more_requests(
    tmp_path, ds, openai_server_factory, server_options, calls
):
    server = openai_server_factory(model=answers(ds, counting=True), **server_options)
    summary = run(tmp_path, ds, server, ["Textkit-1", "Textkit-3"], concurrency=1)
    check_store(tmp_path, ds, ["Textkit-1", "Textkit-3"], 6)
    ok = server.successful(CHAT)
    assert summary.new_samples == 12 and summary.failed_requests == 0
    if calls == "400 then n=1":
        assert [r.status for r in server.requests].count(400) == 1 and [r.body["n"] for r in ok] == [1] * 12
    elif calls == "ignores n":
        assert [r.body["n"] for r in ok] == [6] + [1] * 11
    else:
        assert [r.body["n"] for r in ok] == [6, 2, 6, 2]


def test_retry_after_headers_are_read():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    class Failure(Exception):
        def __init__(self, headers):
            self.response = Response(headers)

    assert retry_after(Failure({"retry-after": "2"})) == 2.0
    assert retry_after(Failure({"retry-after-ms": "250"})) == 0.25
    assert retry_after(Failure({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert retry_after(Failure({})) is None and retry_after(ValueError()) is None


def test_cli_sample_export_and_replay_round_trip(tmp_path, ds, openai_server_factory, invoke_cli):
    server = openai_server_factory(model=answers(ds))
    run_dir, replay_dir, patches = tmp_path / "run", tmp_path / "replayed", tmp_path / "patches.json"
    common = ["--dataset", "example", "--bug", "textkit-3", "--bug", "RANGEKIT_4", "-n", "4", "--strategy", "one-shot"]
    result = invoke_cli(
        "sample", "--run", run_dir, "--backend", "openai", "--model", "test-model", "--base-url", server.url, *common
    )
    assert result.exit_code == 0, result.output
    assert "8 samples (8 new), 4 unique candidates, 2 without an extractable method" in result.output

    with RunStore(run_dir) as store:
        store.save_validation(
            ValidationRecord(
                bug_id="Textkit-3",
                hash=store.samples("Textkit-3")[0].candidate_hash,
                engine="fast",
                verdict="plausible",
            )
        )
        store.save_ranking(
            "Textkit-3",
            "paper:tfidf:median",
            [
                RankingEntry(
                    bug_id="Textkit-3",
                    ranker="paper:tfidf:median",
                    rank=1,
                    hash=store.samples("Textkit-3")[0].candidate_hash,
                    score=0.9,
                )
            ],
        )
    rows = [json.loads(line) for line in invoke_cli("export", "--run", run_dir).output.splitlines()]
    assert [(r["bug"], r["index"]) for r in rows] == (
        [("Textkit-3", i) for i in range(4)] + [("Rangekit-4", i) for i in range(4)]
    )
    first = rows[0]
    assert first["strategy"] == "one-shot" and first["model"] == "test-model" and first["temperature"] == 0.8
    assert first["method"] == remove_comments(ds.bugs["Textkit-3"].fixed_method)
    assert (
        first["verdict"] == "plausible"
        and first["verdict_engine"] == "fast"
        and first["ranks"] == {"paper:tfidf:median": 1}
    )
    assert (
        rows[2]["method"] is None and rows[2]["extraction_error"].startswith("no-code") and rows[2]["verdict"] is None
    )

    result = invoke_cli("export", "--run", run_dir, "--format", "nl2fix", "--out", patches)
    assert result.exit_code == 0
    exported = json.loads(patches.read_text())
    assert set(exported) == {ds.bugs["Textkit-3"].key, ds.bugs["Rangekit-4"].key}
    assert all(len(e["patches"]) == 4 and e["prompt"] for e in exported.values())

    result = invoke_cli("sample", "--run", replay_dir, "--backend", "replay", "--replay-file", patches, *common)
    assert result.exit_code == 0, result.output
    with RunStore(run_dir) as original, RunStore(replay_dir) as replayed:
        assert [(s.bug_id, s.index, s.candidate_hash) for s in replayed.samples()] == [
            (s.bug_id, s.index, s.candidate_hash) for s in original.samples()
        ]
    assert len(server.requests) == 2


def test_cli_checks_option_combinations(tmp_path, invoke_cli):
    result = invoke_cli(
        "sample", "--run", tmp_path / "r", "--dataset", "example", "--bug", "Textkit-1", "--backend", "replay"
    )
    assert result.exit_code == 2 and "--replay-file" in result.output
    result = invoke_cli(
        "sample", "--run", tmp_path / "r", "--dataset", "example", "--bug", "Textkit-1", "--backend", "vllm"
    )
    assert result.exit_code == 2 and "--model" in result.output
    # openai defaults to gpt-4o-mini, so the next thing it needs is a key (or a local server)
    result = invoke_cli(
        "sample",
        "--run",
        tmp_path / "r",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        env={"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None},
    )
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output
    result = invoke_cli(
        "sample",
        "--run",
        tmp_path / "r",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--backend",
        "openai",
        "--model",
        "m",
        "--strategy",
        "reasoning",
        "--model-style",
        "completion",
    )
    assert result.exit_code == 2 and "chat" in result.output


def test_a_bad_request_that_is_not_about_n_fails_that_request_alone(tmp_path, ds, openai_server_factory):
    # e.g. one prompt over the model's context length: the other bugs are still asked with n in one call
    server = openai_server_factory(model=answers(ds))
    server.fail(400)
    summary = run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert summary.failed_requests == 1 and summary.new_samples == 6 and "scripted failure 400" in str(summary)
    assert [r.body["n"] for r in server.requests] == [6, 6]


def test_an_exhausted_quota_stops_the_run_at_once_instead_of_being_retried(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds))
    server.fail(429, code="insufficient_quota")
    with pytest.raises(Nl2FixError, match="quota") as info:
        run(tmp_path, ds, server, ["Textkit-1", "Textkit-5"], concurrency=1)
    assert len(server.requests) == 1 and "re-run" in info.value.hint


def test_a_seeded_run_gives_each_sample_its_own_seed_when_n_is_split(tmp_path, ds, openai_server_factory):
    server = openai_server_factory(model=answers(ds, counting=True), reject_n=True)
    backend = OpenAIBackend("test-model", base_url=server.url, concurrency=1, retry=FAST_RETRY, seed=7)
    try:
        sample(
            tmp_path / "run",
            config(server),
            [ds.bugs["Textkit-1"]],
            dataset=ds,
            concurrency=1,
            progress=False,
            backend=backend,
        )
    finally:
        backend.close()
    assert [r.body["seed"] for r in server.successful(CHAT)] == [7, 8, 9, 10, 11, 12]
