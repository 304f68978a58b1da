"""Options shared by `nl2fix prompt` and `nl2fix sample`: how the prompt is made."""

from __future__ import annotations

import functools

import click

from nl2fix.models import ModelStyle, Strategy

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
"""The model `--backend openai` asks when no --model is given."""


def prompt_options(fn):
    @click.option("--strategy", type=click.Choice([s.value for s in Strategy]), default=Strategy.ZERO_SHOT.value,
                  show_default=True, help="Prompting strategy.")
    @click.option("--model", default=None,
                  help=f"Model name (default for openai: {DEFAULT_OPENAI_MODEL}); also decides the token counter "
                  "and the default context window.")
    @click.option("--model-style", type=click.Choice([s.value for s in ModelStyle]), default=ModelStyle.CHAT.value,
                  show_default=True, help="chat messages, a completion prompt ending in the method header, or an edit instruction + input.")
    @click.option("--max-tokens", type=click.IntRange(min=1), default=750, show_default=True, help="Most new tokens per answer.")
    @click.option("--context-window", type=click.IntRange(min=256), default=None,
                  help="The model's context window in tokens (default: known per model family, else 4096).")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper
