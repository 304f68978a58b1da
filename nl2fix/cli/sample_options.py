"""Options shared by `nl2fix prompt` and `nl2fix sample` (how the prompt is made), and `nl2fix
sample`'s options for the backend (stop sequences, vLLM's options, price)."""

from __future__ import annotations

import click

from nl2fix.cli.options import option_group
from nl2fix.core.domain import FIRST_PROMPTS, ModelStyle, Strategy
from nl2fix.store.records import ConversationConfig

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
"""The model `--backend openai` asks when no --model is given."""


prompt_options = option_group(
    # `published` names imported answers (`nl2fix import`): nothing is prompted with it
    click.option(
        "--strategy",
        type=click.Choice([s.value for s in Strategy if s is not Strategy.PUBLISHED]),
        default=Strategy.ZERO_SHOT.value,
        show_default=True,
        help="Prompting strategy.",
    ),
    click.option(
        "--model",
        default=None,
        help=f"Model name (default for openai: {DEFAULT_OPENAI_MODEL}); also decides the token counter "
        "and the default context window.",
    ),
    click.option(
        "--model-style",
        type=click.Choice([s.value for s in ModelStyle]),
        default=ModelStyle.CHAT.value,
        show_default=True,
        help="chat messages, a completion prompt ending in the method header, or an edit instruction + input.",
    ),
    click.option(
        "--max-tokens", type=click.IntRange(min=1), default=750, show_default=True, help="Most new tokens per answer."
    ),
    click.option(
        "--context-window",
        type=click.IntRange(min=256),
        default=None,
        help="The model's context window in tokens (default: the model's own, as vLLM or a server's "
        "/v1/models reports it, or its config.json; else known per model family, else 4096).",
    ),
)


backend_options = option_group(
    click.option(
        "--stop",
        "stop",
        multiple=True,
        metavar="TEXT",
        help="Stop sequence (repeatable; \\n for a newline); `none` for none. Default, for servers that say "
        "which stop ended an answer (vLLM): the end of the method (completion) or the closing fence (chat).",
    ),
    click.option(
        "--vllm-arg",
        "vllm_args",
        multiple=True,
        metavar="KEY=VALUE",
        help="vLLM engine option (repeatable), typed by vLLM's EngineArgs: max_model_len=4096, "
        "dtype=float16, gpu_memory_utilization=0.8, enforce_eager=true, trust_remote_code=true ...",
    ),
    click.option(
        "--tensor-parallel-size",
        type=click.IntRange(min=1),
        default=None,
        help="vllm: GPUs one engine spans (vLLM's tensor_parallel_size).",
    ),
    click.option(
        "--data-parallel-size",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="vllm: engine replicas, each a Ray actor with its own copy of the model (RAY_ADDRESS: the cluster).",
    ),
    click.option(
        "--price",
        default=None,
        metavar="in=DOLLARS,out=DOLLARS",
        help="Dollars per million prompt/completion tokens, for the report's cost (default: the bundled table).",
    ),
)


conversation_options = option_group(
    click.option(
        "--rounds",
        type=click.IntRange(min=1),
        default=None,
        help="conversation: most rounds per bug (default: as many as the -n sample budget allows).",
    ),
    click.option(
        "--samples-per-round",
        type=click.IntRange(min=1),
        default=None,
        help="conversation: samples asked for per round (default 10; -n is the budget of all rounds).",
    ),
    click.option(
        "--first-prompt",
        type=click.Choice([s.value for s in FIRST_PROMPTS]),
        default=None,
        help="conversation: the strategy of round 1's prompt (default zero-shot).",
    ),
    click.option(
        "--token-budget",
        type=click.IntRange(min=1),
        default=None,
        help="conversation: no round starts once a bug's samples used this many prompt + completion tokens.",
    ),
)
"""``--rounds``, ``--samples-per-round``, ``--first-prompt``, ``--token-budget`` (``--strategy conversation``)."""


DEFAULT_SAMPLES_PER_ROUND = 10


def conversation_config(
    strategy: str,
    n: int,
    rounds: int | None,
    samples_per_round: int | None,
    first_prompt: str | None,
    token_budget: int | None,
) -> ConversationConfig | None:
    """The conversation's configuration for ``--strategy conversation``; its options with another strategy are
    an error."""
    given = {
        "--rounds": rounds,
        "--samples-per-round": samples_per_round,
        "--first-prompt": first_prompt,
        "--token-budget": token_budget,
    }
    if strategy != Strategy.CONVERSATION.value:
        named = [name for name, value in given.items() if value is not None]
        if named:
            raise click.UsageError(f"{', '.join(named)} only apply to --strategy conversation")
        return None
    per_round = samples_per_round or min(DEFAULT_SAMPLES_PER_ROUND, n)
    return ConversationConfig(
        first_prompt=Strategy(first_prompt or Strategy.ZERO_SHOT.value),
        rounds=rounds or -(-n // per_round),
        samples_per_round=per_round,
        token_budget=token_budget,
    )
