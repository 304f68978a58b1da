"""`--strategy conversation` end to end on the example benchmark: the real openai client against the
local OpenAI-compatible server, real validation between rounds (javac + JUnit, confined), the run store.

The model (``tests/helpers/conversation_model.py``) is scripted to read its feedback: Textkit-3 is fixed in two steps,
each only after the verdict's words say which test fails how; missing or wrong feedback matches no
rule, and the bug stays unfixed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.core.domain import ConversationPhase, Verdict
from nl2fix.report.data import collect
from nl2fix.store.run_store import RunStore
from tests.helpers.conversation_model import CONVERSATION_BUG as BUG
from tests.helpers.conversation_model import ROUND_TRIP_FAILS, TRAILING_FIELD_FAILS, model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    cache = tmp_path_factory.mktemp("conversation-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NL2FIX_CACHE_DIR", str(cache / "cache"))
        mp.setenv("OPENAI_API_KEY", "test")
        mp.delenv("OPENAI_BASE_URL", raising=False)
        yield


def nl2fix(*args, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output + repr(result.exception)
    return result.output


def common(run_dir, server, strategy: str) -> list:
    return [
        "--dataset",
        "example",
        "--bug",
        BUG,
        "--run",
        run_dir,
        "--base-url",
        server.url,
        "--model",
        "gpt-4o-mini",
        "-n",
        8,
        "--strategy",
        strategy,
        "--retries",
        0,
        "--quiet",
    ]


CONVERSATION = ["--rounds", 4, "--samples-per-round", 2]


@pytest.fixture(scope="module")
def runs(env, tmp_path_factory):
    """A zero-shot run and a conversation run of the same model at the same budget (8 samples)."""
    from tests.helpers.openai_server import OpenAIServer

    root = tmp_path_factory.mktemp("conversation")
    out = {}
    for strategy, extra in (("zero-shot", []), ("conversation", CONVERSATION)):
        with OpenAIServer(model=model()) as server:
            run_dir = root / strategy
            nl2fix("run", *common(run_dir, server, strategy), *extra, "--format", "json", "--no-codebleu")
            out[strategy] = (run_dir, list(server.successful("/v1/chat/completions")))
    return out


def test_conversation_fixes_what_plain_sampling_at_the_same_budget_does_not(runs):
    plain_dir, plain_requests = runs["zero-shot"]
    conv_dir, requests = runs["conversation"]
    plain, conv = collect(plain_dir, codebleu=False), collect(conv_dir, codebleu=False)
    assert len(plain_requests) == 1 and plain.bugs[0].samples == 8
    assert plain.bug_counts.fixed == 0 and plain.bugs[0].unique_candidates == 1
    assert conv.bugs[0].samples == 8 and conv.bug_counts.fixed == 1

    with RunStore(conv_dir) as store:
        rounds = store.rounds(BUG)
        samples = store.samples(BUG)
        verdict = {c.code: store.validation(BUG, c.hash, "fast").verdict for c in store.candidates(BUG)}
    # every round asked once, with the prompt it stored
    assert [r.messages for r in rounds] == [r.body["messages"] for r in requests]
    assert [r.phase for r in rounds] == [ConversationPhase.REPAIR] * 3 + [ConversationPhase.ALTERNATIVES]
    assert [r.indices for r in rounds] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [s.round for s in samples] == [1, 1, 2, 2, 3, 3, 4, 4]
    # round 2 was told how the buggy method failed, round 3 also how the half fix failed
    second, third = (json.dumps(r.messages) for r in rounds[1:3])
    assert all(json.dumps(cue)[1:-1] in second for cue in ROUND_TRIP_FAILS)
    assert all(json.dumps(cue)[1:-1] in third for cue in TRAILING_FIELD_FAILS)
    assert len(rounds[2].shown) == 2 and rounds[2].omitted == 0
    # the second phase gave the ranker a second plausible fix
    assert [v.value for v in verdict.values()] == ["wrong", "wrong", "plausible", "plausible"]
    assert sum(v is Verdict.PLAUSIBLE for v in verdict.values()) == 2

    assert conv.fixed_within.adaptive and not plain.fixed_within.adaptive
    assert conv.fixed_within.ks == {1: 0.0, 5: 1.0} and conv.fixed_within.mean_first_position == 5.0
    assert plain.fixed_within.ks == {1: 0.0, 5: 0.0} and plain.fixed_within.fixed == 0
    assert conv.fixed_within.tokens == sum(s.prompt_tokens + s.completion_tokens for s in samples) > 0


def test_compare_puts_the_conversation_beside_plain_sampling_at_equal_budgets(runs):
    plain_dir, _ = runs["zero-shot"]
    conv_dir, _ = runs["conversation"]
    data = json.loads(nl2fix("compare", plain_dir, conv_dir, "--format", "json"))
    rows = {r["label"]: r for r in data["equal_budget"]}
    zero, conv = rows["zero-shot"], rows["conversation"]
    assert zero["budget"] == conv["budget"] == 8
    assert (zero["fixed"], conv["fixed"]) == (0, 1)
    assert zero["expected_fixed"] == 0.0 and conv["expected_fixed"] is None
    assert conv["samples_per_fix"] == 8 and zero["samples_per_fix"] is None
    with RunStore(conv_dir) as store:
        assert conv["tokens"] == sum(s.prompt_tokens + s.completion_tokens for s in store.samples(BUG))
    assert conv["tokens_per_fix"] == conv["tokens"]
    text = nl2fix("compare", plain_dir, conv_dir)
    assert "At equal budgets: the first 8 samples of each bug" in text
    assert "conversation (zero-shot, 4 x 2)" in text


def test_a_run_stopped_between_rounds_resumes_without_asking_again(runs, tmp_path, openai_server_factory):
    conv_dir, _ = runs["conversation"]
    run_dir = tmp_path / "stopped"
    first = openai_server_factory(model=model(), stop_after=2)  # dies after rounds 1 and 2
    output = nl2fix("sample", *common(run_dir, first, "conversation"), *CONVERSATION, code=2)
    assert "stopped answering" in output and "re-run the same command to resume" in output
    with RunStore(run_dir) as store:
        stored = store.rounds(BUG)
        assert [r.round for r in stored] == [1, 2, 3]  # round 3 was stored, then could not be sent
        assert store.sample_indices(BUG) == {0, 1, 2, 3}

    second = openai_server_factory(model=model())
    nl2fix("sample", *common(run_dir, second, "conversation"), *CONVERSATION)
    asked = second.successful("/v1/chat/completions")
    assert len(first.successful()) + len(asked) == 4  # one request per round, none repeated
    assert asked[0].body["messages"] == stored[2].messages  # round 3 as stored
    with RunStore(run_dir) as store, RunStore(conv_dir) as whole:
        assert [s.response for s in store.samples(BUG)] == [s.response for s in whole.samples(BUG)]
        assert [r.messages for r in store.rounds(BUG)] == [r.messages for r in whole.rounds(BUG)]


def test_a_conversation_works_with_a_backend_that_reads_no_prompt(env, tmp_path):
    """The mutation backend answers by sample index: the rounds and their feedback are still made and stored."""
    run_dir = tmp_path / "mutation"
    nl2fix(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--run",
        run_dir,
        "--backend",
        "mutation",
        "-n",
        4,
        "--strategy",
        "conversation",
        "--samples-per-round",
        2,
        "--quiet",
    )
    with RunStore(run_dir) as store:
        rounds = store.rounds("Textkit-1")
        first_round = {s.candidate_hash for s in store.samples("Textkit-1") if s.round == 1 and s.candidate_hash}
        judged = {v.hash for v in store.validations("Textkit-1", "fast")}
    assert [r.indices for r in rounds] == [[0, 1], [2, 3]]
    assert set(rounds[1].shown) == first_round and first_round <= judged
    assert rounds[1].messages[-1]["role"] == "user" and "This version" in rounds[1].messages[-1]["content"]


def test_a_run_killed_between_rounds_resumes_without_asking_again(runs, tmp_path, openai_server_factory):
    """SIGKILL to a real `nl2fix sample` process once round 1's answers are stored (it is validating them
    or building round 2), then the same command again."""
    conv_dir, _ = runs["conversation"]
    run_dir = tmp_path / "killed"
    server = openai_server_factory(model=model())
    args = ["sample", *common(run_dir, server, "conversation"), *CONVERSATION]
    command = [sys.executable, "-c", "from nl2fix.cli.main import main; main()", *map(str, args)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if (run_dir / "run.sqlite").exists():
                with RunStore(run_dir) as store:
                    if len(store.sample_indices(BUG)) >= 2:
                        break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be killed between rounds"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    with RunStore(run_dir) as store:
        assert len(store.rounds(BUG)) < 4 and len(store.sample_indices(BUG)) < 8
    nl2fix(*args)
    assert len(server.successful("/v1/chat/completions")) == 4  # one request per round, none repeated
    with RunStore(run_dir) as store, RunStore(conv_dir) as whole:
        assert [r.messages for r in store.rounds(BUG)] == [r.messages for r in whole.rounds(BUG)]
        assert [s.response for s in store.samples(BUG)] == [s.response for s in whole.samples(BUG)]
