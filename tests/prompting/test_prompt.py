"""Prompts per strategy and style, the one-shot example, and the rule that fits them in a window."""

from __future__ import annotations

import dataclasses

import jinja2
import pytest

import prompts
from nl2fix.core import tokens
from nl2fix.core.domain import ModelStyle, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.methods import header
from nl2fix.java_source.text import remove_comments
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.prompting.prompt import (
    CUT_MARK,
    REASONING_TURN_TOKENS,
    Prompt,
    build_prompt,
    context_window_for,
)


@pytest.fixture(scope="module")
def example():
    ds = open_dataset("example")
    return ds, ExampleIndex(list(ds.bugs.values()))


def user_text(prompt: Prompt) -> str:
    return "\n".join(m["content"] for m in prompt.turns[0])


def test_every_template_is_used_and_renders():
    assert set(prompts.names()) == {
        "chat",
        "completion",
        "edit",
        "reasoning_localise",
        "reasoning_explain",
        "reasoning_fix",
        "system",
        "conversation_instruction",
        "conversation_feedback",
        "conversation_history",
    }
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("chat", title="t")  # strict: a missing variable is an error, not an empty string


def test_strategies_say_what_the_paper_says(example):
    ds, index = example
    bug = ds.bugs["Textkit-1"]
    method = remove_comments(bug.buggy_method)
    title_only = build_prompt(bug, Strategy.TITLE_ONLY, examples=index)
    zero_shot = build_prompt(bug, Strategy.ZERO_SHOT, examples=index)
    one_shot = build_prompt(bug, Strategy.ONE_SHOT, examples=index)
    for prompt in (title_only, zero_shot, one_shot):
        text = user_text(prompt)
        assert bug.title in text and method in text and "//" not in method
        assert not prompt.truncated and prompt.prompt_tokens == tokens.count_messages(list(prompt.turns[0]))
    assert bug.description[:60] not in user_text(title_only)
    assert bug.description in user_text(zero_shot)
    shown = ds.bugs[one_shot.example_id]
    assert one_shot.example_id != bug.id and one_shot.example_id == index.nearest(bug)[0].id
    assert remove_comments(shown.buggy_method) in user_text(one_shot) and remove_comments(
        shown.fixed_method
    ) in user_text(one_shot)


def test_reasoning_is_three_dependent_turns(example):
    ds, index = example
    prompt = build_prompt(ds.bugs["Rangekit-2"], Strategy.REASONING)
    assert len(prompt.turns) == 3 and [m["role"] for t in prompt.turns for m in t] == ["system", "user", "user", "user"]
    assert "Which lines" in prompt.turns[0][1]["content"] and "Explain why" in prompt.turns[1][0]["content"]
    assert "fix the bug" in prompt.turns[2][0]["content"]
    assert "<the answer to turn 1>" in prompt.text()
    with pytest.raises(Nl2FixError, match="chat conversation"):
        build_prompt(ds.bugs["Rangekit-2"], Strategy.REASONING, ModelStyle.COMPLETION)


def test_completion_prompt_ends_with_the_method_header_and_edit_sends_the_method_as_input(example):
    ds, index = example
    bug = ds.bugs["Textkit-2"]
    completion = build_prompt(bug, Strategy.ONE_SHOT, ModelStyle.COMPLETION, examples=index)
    text = completion.turns[0][0]["content"]
    assert completion.header == header(remove_comments(bug.buggy_method))
    assert text.endswith(completion.header + "\n") and text.count(bug.title) == 1
    assert completion.prompt_tokens == tokens.count(text)
    edit = build_prompt(bug, Strategy.ZERO_SHOT, ModelStyle.EDIT)
    instruction, given = edit.turns[0]
    assert instruction["role"] == "system" and bug.title in instruction["content"]
    assert given == {"role": "user", "content": remove_comments(bug.buggy_method)}


def test_prompt_record_round_trip(example):
    ds, index = example
    bug = ds.bugs["Rangekit-1"]
    for strategy in Strategy:
        prompt = build_prompt(bug, strategy, examples=index)
        again = Prompt.from_record(prompt.record(), ModelStyle.CHAT, bug)
        assert again == prompt


def test_a_long_description_is_cut_from_its_end_and_the_cut_recorded(example):
    ds, _ = example
    bug = ds.bugs["Textkit-3"]
    long_bug = dataclasses.replace(bug, description=bug.description + "\n" + "more details " * 3000)
    prompt = build_prompt(long_bug, Strategy.REASONING, context_window=2048, max_tokens=500)
    reserve = 2 * REASONING_TURN_TOKENS + 500 + sum(4 + tokens.count(m["content"]) for t in prompt.turns[1:] for m in t)
    first = prompt.turns[0][1]["content"]
    assert prompt.truncated and "issue description cut" in prompt.note
    assert prompt.prompt_tokens + reserve <= 2048 and prompt.prompt_tokens > 2048 - reserve - 50
    assert CUT_MARK.strip() in first and bug.title in first and remove_comments(bug.buggy_method) in first
    assert bug.description[:200] in first
    assert prompt.record().truncation_note == prompt.note


def test_one_shot_falls_back_to_the_closest_example_that_fits(example):
    ds, _ = example
    bugs = list(ds.bugs.values())
    target = ds.bugs["Rangekit-2"]
    base_index = ExampleIndex(bugs)
    closest = base_index.nearest(target)[0]
    window = 4096
    huge = dataclasses.replace(
        closest, fixed_method=closest.fixed_method.replace("{", "{\n" + "int pad = 0;\n" * 800, 1)
    )
    index = ExampleIndex([huge if b.id == closest.id else b for b in bugs])
    prompt = build_prompt(target, Strategy.ONE_SHOT, context_window=window, examples=index)
    assert prompt.truncated and prompt.example_id not in (closest.id, target.id, None)
    assert f"the closest one-shot example {closest.id}" in prompt.note and prompt.prompt_tokens + 750 <= window
    none_fit = build_prompt(
        target,
        Strategy.ONE_SHOT,
        context_window=build_prompt(target, Strategy.ZERO_SHOT).prompt_tokens + 751,
        examples=index,
    )
    assert none_fit.example_id is None and "prompted without one" in none_fit.note


def test_a_method_too_long_for_the_window_is_an_error(example):
    ds, _ = example
    with pytest.raises(Nl2FixError, match="title and buggy method alone"):
        build_prompt(ds.bugs["Textkit-3"], Strategy.TITLE_ONLY, context_window=900, max_tokens=750)


def test_context_windows_by_model_family():
    assert context_window_for("gpt-4o-mini") == 128_000
    assert context_window_for("gpt-4-0613") == 8_192
    assert context_window_for("gpt-3.5-turbo-0125") == 16_385
    assert context_window_for("some/local-model") == 4096


def test_token_counts_never_fail_for_want_of_an_encoding(monkeypatch):
    import tiktoken

    assert tokens.count("public int f() { return 1; }") == 10
    assert tokens.count("x", "a-model-tiktoken-does-not-know") == 1
    tokens._encoding.cache_clear()
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: (_ for _ in ()).throw(OSError("offline")))
    try:
        assert tokens.count("abcdefgh", "gpt-4o") == 2  # neither o200k nor the bundled encoding: the estimate
    finally:
        tokens._encoding.cache_clear()
