"""The prompt for one bug, strategy and model style, cut to fit the model's context window.

Styles: ``chat`` sends a system and a user message; ``completion`` sends one text that ends with the
buggy method's header, so the model writes the body; ``edit`` sends the instruction as the system
message and the buggy method alone as the user message (the paper's edit-model input).
``reasoning`` is three chat turns; later turns are user messages sent after each answer.

The fitting rule. The first request must leave room for the answer (``max_tokens``) and, for
``reasoning``, for the two earlier answers (``REASONING_TURN_TOKENS`` each) and the follow-up
questions that later requests add. When the prompt is longer than that:

1. one-shot: the closest example that fits is used instead of the closest one; if none fits, the
   prompt has no example;
2. test-driven and issue-and-test: the failing tests are cut before anything else, the last test
   first, down to the first test's name and failure message (its source left out last);
3. only then, and only if the target issue and method alone are too long, the issue description
   is cut from its end (the issue title and the buggy method are never cut);
4. if the title and method alone are too long, the bug cannot be prompted with this window.

The test strategies show the trigger tests as RepairBench and ChatRepair do: each test method as
written, then the first lines of its failure (the message, without the stack trace).

Every cut is recorded in the prompt's ``truncation_note``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import prompts
from nl2fix.core import tokens
from nl2fix.core.domain import TEST_STRATEGIES, Bug, ModelStyle, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.tokenizer import TOKENS_PER_MESSAGE, Tokenizer
from nl2fix.java_source.methods import header as method_header
from nl2fix.java_source.text import remove_comments
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.store.records import PromptRecord

REASONING_TURN_TOKENS = 300
"""Most new tokens of each of the first two reasoning answers (localise, explain)."""
CUT_MARK = "\n[... the rest of the description was cut to fit the context window]"

_CONTEXT_WINDOWS = [
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-1106", 128_000),
    ("gpt-4-0125", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo-instruct", 4_096),
    ("gpt-3.5-turbo", 16_385),
    ("code-davinci-002", 8_001),
    ("o1", 128_000),
    ("o3", 200_000),
    ("o4", 200_000),
]
DEFAULT_CONTEXT_WINDOW = 4096
MESSAGE_LINES = 10
MESSAGE_CHARS = 1000
"""Most lines, and characters, of a failure message shown (a long assertion's expected and actual values)."""


def context_window_for(model: str) -> int:
    """The context window of a local model folder (its ``config.json``), of a known model family
    (longest matching name prefix), else 4096."""
    local = _local_context_window(model)
    if local:
        return local
    name = model.lower().split("/")[-1]
    for prefix, window in _CONTEXT_WINDOWS:
        if name.startswith(prefix):
            return window
    return DEFAULT_CONTEXT_WINDOW


_POSITION_KEYS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")
"""Where Hugging Face model configs keep the context length (vLLM reads the same keys)."""


def _local_context_window(model: str) -> int | None:
    config = Path(model).expanduser() / "config.json"
    if not model or not config.is_file():
        return None
    try:
        data = json.loads(config.read_text())
    except (OSError, ValueError):
        return None
    data = data.get("text_config", data)  # multimodal configs nest the language model's
    return next((int(data[k]) for k in _POSITION_KEYS if isinstance(data.get(k), int)), None)


def turn_max_tokens(strategy: Strategy, turn: int, max_tokens: int) -> int:
    """New tokens allowed for the answer to ``turn`` (1-based)."""
    if strategy is Strategy.REASONING and turn < 3:
        return min(REASONING_TURN_TOKENS, max_tokens)
    return max_tokens


@dataclass(frozen=True)
class Prompt:
    bug_id: str
    strategy: Strategy
    style: ModelStyle
    turns: tuple[tuple[dict, ...], ...]
    """Messages of the first request, then the user messages each later turn adds after an answer."""
    prompt_tokens: int
    """Tokens of the first request."""
    header: str = ""
    """Completion style: the method header the prompt ends with (answers continue it)."""
    example_id: str | None = None
    truncated: bool = False
    note: str = ""

    def record(self) -> PromptRecord:
        messages = [{**m, "turn": k} for k, turn in enumerate(self.turns, 1) for m in turn]
        return PromptRecord(
            bug_id=self.bug_id,
            strategy=self.strategy,
            messages=messages,
            prompt_tokens=self.prompt_tokens,
            truncated=self.truncated,
            truncation_note=self.note,
            example_id=self.example_id,
        )

    @classmethod
    def from_record(cls, record: PromptRecord, style: ModelStyle, bug: Bug) -> Prompt:
        by_turn: dict[int, list[dict]] = {}
        for m in record.messages:
            by_turn.setdefault(m.get("turn", 1), []).append({k: v for k, v in m.items() if k != "turn"})
        return cls(
            bug_id=record.bug_id,
            strategy=record.strategy,
            style=style,
            turns=tuple(tuple(by_turn[k]) for k in sorted(by_turn)),
            prompt_tokens=record.prompt_tokens,
            header=_header(bug) if style is ModelStyle.COMPLETION else "",
            example_id=record.example_id,
            truncated=record.truncated,
            note=record.truncation_note,
        )

    def text(self) -> str:
        """What is sent, for people to read: each message under its role, turns in order."""
        if self.style is ModelStyle.COMPLETION:
            return self.turns[0][0]["content"]
        parts = []
        for k, turn in enumerate(self.turns, 1):
            if k > 1:
                parts.append(f"[assistant]\n<the answer to turn {k - 1}>")
            parts.extend(f"[{m['role']}]\n{m['content']}" for m in turn)
        return "\n\n".join(parts)


def target_method(bug: Bug) -> str:
    """The buggy method as models see it: comments removed."""
    return bug.buggy_method_no_comments or remove_comments(bug.buggy_method)


@functools.lru_cache(maxsize=1024)
def _header(bug: Bug) -> str:
    try:
        return method_header(target_method(bug))
    except ValueError as exc:
        raise Nl2FixError(f"{bug.id}: cannot find the buggy method's declaration ({exc})") from exc


@functools.lru_cache(maxsize=1024)
def _example(bug: Bug) -> dict:
    return {"buggy": target_method(bug), "fixed": remove_comments(bug.fixed_method)}


@dataclass(frozen=True)
class FailingTest:
    """A trigger test as the test strategies show it."""

    name: str
    """``Class::method``."""
    source: str
    """The test method as written; empty when the dataset lacks it (an inherited test) or it was cut."""
    error: str
    """The failure's message, its stack trace left out."""


def failure_message(failure: str) -> str:
    """What JUnit printed before the stack trace, at most ``MESSAGE_LINES`` lines and ``MESSAGE_CHARS``
    characters; the first line when the failure has no message of its own."""
    lines = failure.strip("\n").splitlines()
    message: list[str] = []
    for line in lines:
        if line.lstrip().startswith("at ") and message:
            break
        message.append(line.rstrip())
    text = "\n".join(message[:MESSAGE_LINES])
    if len(message) > MESSAGE_LINES or len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + "\n[...]"
    return text


def failing_tests(bug: Bug) -> tuple[FailingTest, ...]:
    """The bug's trigger tests with their source and failure message; an error naming what the
    dataset lacks when it has no failure messages or no test source for this bug."""
    if not bug.trigger_failures:
        raise Nl2FixError(
            f"{bug.id}: no failure messages of its trigger tests (Defects4J's {bug.project}/trigger_tests/"
            f"{bug.number}, read from the dataset's Defects4J metadata folder)",
            "pass --defects4j-meta DIR (a folder laid out like Defects4J's framework/projects), install "
            "Defects4J, or use an issue-driven --strategy",
        )
    sources = dict(bug.trigger_test_sources)
    if not sources:
        raise Nl2FixError(
            f"{bug.id}: the dataset holds no source of its trigger tests (its records' trigger_tests_src)",
            "add them with `nl2fix dataset add-tests DATASET --out FILE` (or build the dataset with "
            "`nl2fix dataset build`), or use an issue-driven --strategy",
        )
    return tuple(FailingTest(name, sources.get(name, ""), failure_message(text)) for name, text in bug.trigger_failures)


def _test_cuts(tests: tuple[FailingTest, ...]) -> Iterator[tuple[tuple[FailingTest, ...], str]]:
    """Shorter and shorter views of the failing tests, with what each leaves out: the last test
    first, down to the first test alone, then that test's source."""
    for keep in range(len(tests) - 1, 0, -1):
        yield tests[:keep], f"{len(tests) - keep} of {len(tests)} failing tests left out"
    if tests and tests[0].source:
        dropped = f"{len(tests) - 1} of {len(tests)} failing tests and " if len(tests) > 1 else ""
        yield (replace(tests[0], source=""),), f"{dropped}the source of {tests[0].name} left out"


def _kept_alone(strategy: Strategy, tests: bool) -> str:
    """What a prompt keeps whatever the window, in words."""
    parts = (
        (["first failing test's message"] if tests else [])
        + (["issue title"] if strategy is not Strategy.TEST_DRIVEN else [])
        + ["buggy method"]
    )
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


def _turns(
    bug: Bug,
    strategy: Strategy,
    style: ModelStyle,
    description: str,
    example: Bug | None,
    tests: tuple[FailingTest, ...] = (),
):
    context = {
        "title": bug.title,
        "description": description,
        "method": target_method(bug),
        "example": _example(example) if example is not None else None,
        "show_issue": strategy is not Strategy.TEST_DRIVEN,
        "tests": tests,
    }
    if style is ModelStyle.COMPLETION:
        text = prompts.render("completion", header=_header(bug), **context) + "\n"
        return (({"role": "user", "content": text},),)
    if style is ModelStyle.EDIT:
        return (
            (
                {"role": "system", "content": prompts.render("edit", **context)},
                {"role": "user", "content": context["method"]},
            ),
        )
    system = {"role": "system", "content": prompts.render("system", show_issue=context["show_issue"])}
    if strategy is Strategy.REASONING:
        return (
            (system, {"role": "user", "content": prompts.render("reasoning_localise", **context)}),
            ({"role": "user", "content": prompts.render("reasoning_explain")},),
            ({"role": "user", "content": prompts.render("reasoning_fix")},),
        )
    return ((system, {"role": "user", "content": prompts.render("chat", **context)}),)


def _request_tokens(turn: tuple[dict, ...], style: ModelStyle, model: str | Tokenizer) -> int:
    if style is ModelStyle.COMPLETION:
        return tokens.count_prompt(turn[0]["content"], model)
    return tokens.count_messages(list(turn), model)


def _reserve(turns, strategy: Strategy, max_tokens: int, model: str | Tokenizer) -> int:
    """Tokens the first request must leave free: every answer, and the messages later turns add."""
    later = sum(TOKENS_PER_MESSAGE + tokens.count(m["content"], model) for turn in turns[1:] for m in turn)
    answers = sum(turn_max_tokens(strategy, k, max_tokens) for k in range(1, len(turns) + 1))
    return later + answers


def build_prompt(
    bug: Bug,
    strategy: Strategy,
    style: ModelStyle = ModelStyle.CHAT,
    *,
    model: str | Tokenizer = "",
    context_window: int = DEFAULT_CONTEXT_WINDOW,
    max_tokens: int = 750,
    examples: ExampleIndex | None = None,
) -> Prompt:
    """The prompt for ``bug``; one-shot takes its example from ``examples`` (never ``bug`` itself).

    ``model`` counts the tokens: the model's own tokenizer, or a model name (tiktoken)."""
    strategy, style = Strategy(strategy), ModelStyle(style)
    if strategy is Strategy.REASONING and style is not ModelStyle.CHAT:
        raise Nl2FixError(
            f"the reasoning strategy is a chat conversation; it cannot be sent to a {style.value} model",
            "use --model-style chat, or another --strategy",
        )
    description = "" if strategy in (Strategy.TITLE_ONLY, Strategy.TEST_DRIVEN) else bug.description
    tests = failing_tests(bug) if strategy in TEST_STRATEGIES else ()
    reserve = _reserve(_turns(bug, strategy, style, "", None), strategy, max_tokens, model)
    budget = context_window - reserve
    notes: list[str] = []
    truncated = False

    def render(example: Bug | None, desc: str, shown: tuple[FailingTest, ...]) -> tuple[int, tuple]:
        turns = _turns(bug, strategy, style, desc, example, shown)
        return _request_tokens(turns[0], style, model), turns

    example = None
    if strategy is Strategy.ONE_SHOT:
        found = examples.nearest(bug) if examples is not None else None
        if examples is None or found is None:
            notes.append("no other bug to take a one-shot example from; prompted without one")
        elif render(found[0], description, tests)[0] > budget:
            truncated = True
            fallback = examples.nearest(bug, allow=lambda other: render(other, description, tests)[0] <= budget)
            if fallback is None:
                notes.append(
                    f"the closest one-shot example {found[0].id} does not fit, nor does any other; prompted without one"
                )
            else:
                notes.append(
                    f"the closest one-shot example {found[0].id} (distance {found[1]}) does not fit; "
                    f"used {fallback[0].id} (distance {fallback[1]}), the closest that fits"
                )
                example = fallback[0]
        else:
            example = found[0]

    used, turns = render(example, description, tests)
    if used > budget and tests:
        cut = ""
        for shown, note in _test_cuts(tests):
            used, turns, cut = *render(example, description, shown), note
            if used <= budget:
                break
        if cut:
            tests, truncated = shown, True
            notes.append(cut)
    if used > budget and description:
        whole = tokens.count(description, model)
        keep = whole - (used - budget) - tokens.count(CUT_MARK, model)
        while keep > 0:
            used, turns = render(example, tokens.cut_to(description, keep, model) + CUT_MARK, tests)
            if used <= budget:
                break
            keep -= used - budget
        if keep <= 0:
            keep = 0
            used, turns = render(example, "", tests)
        truncated = True
        notes.append(f"issue description cut to its first {keep} of {whole} tokens")
    if used > budget:
        raise Nl2FixError(
            f"{bug.id}: the {_kept_alone(strategy, bool(tests))} alone need {used} tokens; a {context_window}-token "
            f"context window leaves {budget} after {reserve} for the answers",
            "pass a larger --context-window (if the model has one) or a smaller --max-tokens",
        )
    return Prompt(
        bug_id=bug.id,
        strategy=strategy,
        style=style,
        turns=turns,
        prompt_tokens=used,
        header=_header(bug) if style is ModelStyle.COMPLETION else "",
        example_id=example.id if example is not None else None,
        truncated=truncated,
        note="; ".join(notes),
    )
