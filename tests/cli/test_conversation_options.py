"""The conversation's command-line options: what they default to and what they refuse."""

from __future__ import annotations

import click
import pytest

from nl2fix.cli.sample_options import conversation_config
from nl2fix.core.domain import Strategy


def test_the_sample_budget_sets_the_rounds_unless_they_are_given():
    config = conversation_config("conversation", 25, None, None, None, None)
    assert (config.first_prompt, config.rounds, config.samples_per_round, config.token_budget) == (
        Strategy.ZERO_SHOT,
        3,
        10,
        None,
    )
    assert conversation_config("conversation", 4, None, None, None, None).samples_per_round == 4
    given = conversation_config("conversation", 8, 2, 3, "one-shot", 5000)
    assert (given.first_prompt, given.rounds, given.samples_per_round, given.token_budget) == (
        Strategy.ONE_SHOT,
        2,
        3,
        5000,
    )
    assert conversation_config("zero-shot", 8, None, None, None, None) is None
    # ChatRepair's first prompt: the failing tests
    assert conversation_config("conversation", 8, None, None, "test-driven", None).first_prompt is Strategy.TEST_DRIVEN


def test_conversation_options_with_another_strategy_are_refused():
    with pytest.raises(click.UsageError, match="--rounds, --token-budget only apply to --strategy conversation"):
        conversation_config("one-shot", 8, 3, None, None, 100)


def test_the_command_line_refuses_them_before_anything_runs(tmp_path, invoke_cli):
    result = invoke_cli(
        "sample", "--dataset", "example", "--bug", "Textkit-1", "--run", tmp_path / "r", "--samples-per-round", 2
    )
    assert result.exit_code == 2 and "only apply to --strategy conversation" in result.output
    assert not (tmp_path / "r").exists()
    result = invoke_cli(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--run",
        tmp_path / "r",
        "--strategy",
        "conversation",
        "--first-prompt",
        "reasoning",
    )
    assert result.exit_code == 2 and "reasoning" in result.output
