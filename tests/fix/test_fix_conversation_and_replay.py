"""`nl2fix fix --strategy conversation` runs rounds with test feedback from the user's own project
in between, and `nl2fix fix --backend replay` tries a patch file's candidates (published, or written
by hand) on it. The plain javac project of tests/fixtures/fix_plain, validated for real (javac, JUnit,
bubblewrap); the conversation's model is a real OpenAI-compatible server on 127.0.0.1 that fixes the
method only once it is told which test fails how."""

from __future__ import annotations

import json

import pytest

from nl2fix.core.domain import ConversationPhase
from nl2fix.store.run_store import RunStore
from tests.fix.test_end_to_end import INITIALS_FIX, INITIALS_WRONG, _git_project
from tests.helpers.paths import FIXTURES

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

TEST = "org.words.WordsTest::initialsSkipDoubleSpaces"
PLAIN = ["--test", TEST, "--build", "plain", "--src", "src", "--test-src", "test", "--quiet"]


def _told_how_it_fails(messages: list[dict], n: int) -> list[str]:
    """The fix once a message names the failing test and its exception (feedback), else the wrong method."""
    text = "\n".join(m["content"] for m in messages)
    told = "initialsSkipDoubleSpaces" in text and "StringIndexOutOfBoundsException" in text
    return [f"```java\n{INITIALS_FIX if told else INITIALS_WRONG[0]}\n```"] * n


def test_a_conversation_on_a_users_project_feeds_its_test_results_back(
    tmp_path, openai_server_factory, invoke_cli, confined
):
    project = _git_project(FIXTURES / "fix_plain", tmp_path / "words")
    server = openai_server_factory(model=_told_how_it_fails)
    run = tmp_path / "run"
    result = invoke_cli(
        "fix",
        "--project",
        project,
        "--issue",
        "initials() crashes on two spaces",
        *PLAIN,
        "--id",
        "Words-5",
        "--run",
        run,
        "--backend",
        "openai",
        "--model",
        "test-model",
        "--base-url",
        server.url,
        "--strategy",
        "conversation",
        "--rounds",
        "3",
        "--samples-per-round",
        "1",
        "-n",
        "3",
        env={"OPENAI_API_KEY": "test"},
    )
    assert result.exit_code == 0, result.output
    asked = [r.body["messages"] for r in server.successful("/v1/chat/completions")]
    # round 1 knows nothing; round 2 is told round 1's candidate fails the test; round 3 asks for alternatives
    assert len(asked) == 3
    assert "StringIndexOutOfBoundsException" not in json.dumps(asked[0])
    assert TEST.split("::")[1] in json.dumps(asked[1]) and "StringIndexOutOfBoundsException" in json.dumps(asked[1])
    with RunStore(run, read_only=True) as store:
        rounds = store.rounds("Words-5")
        verdicts = {v.hash: v.verdict.value for v in store.validations("Words-5", "fast")}
        by_round = {s.round: verdicts[s.candidate_hash] for s in store.samples("Words-5")}
    assert [r.phase for r in rounds] == [
        ConversationPhase.REPAIR,
        ConversationPhase.REPAIR,
        ConversationPhase.ALTERNATIVES,
    ]
    assert by_round == {1: "wrong", 2: "plausible", 3: "plausible"}
    assert "1 plausible of 2 unique candidate(s)" in result.output


def test_replay_tries_a_patch_files_candidates_on_a_users_project(tmp_path, invoke_cli, confined):
    project = _git_project(FIXTURES / "fix_plain", tmp_path / "words")
    patches = tmp_path / "patches.json"
    patches.write_text(
        json.dumps(
            {
                "Words-6": {
                    "prompt": "",
                    "patches": [
                        {"patch": INITIALS_WRONG[1], "index": 0},
                        {"patch": f"A hand-written fix:\n```java\n{INITIALS_FIX}\n```", "index": 1},
                    ],
                }
            }
        )
    )
    common = [
        "fix",
        "--project",
        project,
        "--issue",
        "initials() crashes on two spaces",
        *PLAIN,
        "--backend",
        "replay",
        "--replay-file",
        patches,
    ]
    result = invoke_cli(*common, "--id", "Words-6", "--run", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "1 plausible of 2 unique candidate(s)" in result.output
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.config.n == 2 and len(store.samples("Words-6")) == 2  # -n 20 asked, the file has 2
    missing = invoke_cli(*common, "--id", "Words-7", "--run", tmp_path / "other")
    assert missing.exit_code == 2
    assert "has no patches for Words-7 (entries: words-6)" in missing.output and "--id" in missing.output
    assert invoke_cli("fix", "--project", project, "--issue", "x", *PLAIN, "--backend", "replay").exit_code == 2
