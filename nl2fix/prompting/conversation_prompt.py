"""The prompt of one conversation round: round 1's prompt plus earlier candidates and their test results.

Chat models get a real conversation: after round 1's messages, each earlier candidate as the
assistant's answer and its test results as the user's reply; the last reply ends with what is
asked now. Completion and edit prompts have no turns, so the same history is one block: written
as ``//`` comments before a completion prompt (which must still end in the method header), added
to an edit model's instruction.

The fitting rule (recorded in each round's ``note``): the request must leave ``max_tokens`` free in
the context window. Candidates are kept by priority -- in the ``alternatives`` phase the plausible
ones first -- then the most recent failed ones, and the oldest failed candidates are left out
first; what is kept is shown oldest first. Round 1's prompt was already fitted by the prompt builder.
"""

from __future__ import annotations

from dataclasses import dataclass

import prompts
from nl2fix.core import tokens
from nl2fix.core.domain import ConversationPhase, ModelStyle
from nl2fix.core.tokenizer import Tokenizer
from nl2fix.prompting.prompt import Prompt


@dataclass(frozen=True)
class Attempt:
    """An earlier candidate, as it will be shown."""

    hash: str
    code: str
    feedback: str
    plausible: bool


@dataclass(frozen=True)
class RoundPrompt:
    messages: list[dict]
    prompt_tokens: int
    shown: list[str]
    """Hashes of the attempts shown, oldest first."""
    omitted: int
    note: str


def _java(code: str) -> str:
    return f"```java\n{code.rstrip()}\n```"


def render(base: Prompt, attempts: list[Attempt], phase: ConversationPhase, omitted: int = 0) -> list[dict]:
    """Round 1's request followed by ``attempts`` (oldest first), asking for what ``phase`` asks."""
    messages = [dict(m) for m in base.turns[0]]
    if not attempts:
        return messages
    instruction = prompts.render("conversation_instruction", phase=phase.value)
    if base.style is ModelStyle.CHAT:
        for k, attempt in enumerate(attempts, 1):
            reply = prompts.render(
                "conversation_feedback",
                feedback=attempt.feedback,
                instruction=instruction if k == len(attempts) else "",
            )
            messages += [{"role": "assistant", "content": _java(attempt.code)}, {"role": "user", "content": reply}]
        return messages
    history = prompts.render("conversation_history", attempts=attempts, omitted=omitted, instruction=instruction)
    if base.style is ModelStyle.COMPLETION:
        commented = prompts.environment().filters["line_comment"](history)
        messages[0]["content"] = commented + "\n\n" + messages[0]["content"]
    else:  # edit: the history belongs to the instruction, the input stays the buggy method
        messages[0]["content"] = messages[0]["content"] + "\n\n" + history
    return messages


def _count(messages: list[dict], style: ModelStyle, model: str | Tokenizer) -> int:
    if style is ModelStyle.COMPLETION:
        return tokens.count(messages[0]["content"], model)
    return tokens.count_messages(messages, model)


def build_round(
    base: Prompt,
    attempts: list[Attempt],
    phase: ConversationPhase,
    *,
    model: str | Tokenizer,
    context_window: int,
    max_tokens: int,
) -> RoundPrompt:
    """The round's request: as many of ``attempts`` (oldest first) as fit, by the fitting rule above."""
    budget = context_window - max_tokens
    order = list(reversed(attempts))  # the most recent first
    if phase is ConversationPhase.ALTERNATIVES:
        order = [a for a in order if a.plausible] + [a for a in order if not a.plausible]
    kept: list[Attempt] = []
    for attempt in order:
        trial = [a for a in attempts if a in kept or a is attempt]
        if _count(render(base, trial, phase, len(attempts) - len(trial)), base.style, model) > budget:
            break
        kept.append(attempt)
    shown = [a for a in attempts if a in kept]
    omitted = len(attempts) - len(shown)
    messages = render(base, shown, phase, omitted)
    note = (
        (
            f"left out {omitted} of {len(attempts)} earlier candidate(s), the oldest failed ones first, to leave "
            f"{max_tokens} of the {context_window}-token context window for the answer"
        )
        if omitted
        else ""
    )
    return RoundPrompt(messages, _count(messages, base.style, model), [a.hash for a in shown], omitted, note)
