"""`nl2fix prompt`: print exactly what would be sent for a bug."""

from __future__ import annotations

import json

import click

from nl2fix.cli.options import dataset_options, load_selection, selection_options
from nl2fix.cli.sample_options import prompt_options
from nl2fix.cli.terminal import say
from nl2fix.core.domain import Strategy
from nl2fix.prompting.one_shot import ExampleIndex
from nl2fix.prompting.prompt import build_prompt, context_window_for


@click.command("prompt")
@dataset_options
@selection_options
@prompt_options
@click.option("--json", "as_json", is_flag=True, help="Print the messages as JSON, as the API receives them.")
def prompt_cmd(
    dataset,
    metadata_dir,
    bug_ids,
    projects,
    all_bugs,
    strategy,
    model,
    model_style,
    max_tokens,
    context_window,
    as_json,
) -> None:
    """Render the prompt of the selected bugs (later reasoning turns follow each answer)."""

    ds, bugs = load_selection(dataset, metadata_dir, bug_ids, projects, all_bugs)
    examples = ExampleIndex(list(ds.bugs.values())) if Strategy(strategy) is Strategy.ONE_SHOT else None
    model = model or ""
    window = context_window or context_window_for(model)
    for bug in bugs:
        prompt = build_prompt(
            bug, strategy, model_style, model=model, context_window=window, max_tokens=max_tokens, examples=examples
        )
        if len(bugs) > 1:
            say(f"=== {bug.id}")
        say(json.dumps(prompt.record().messages, indent=2) if as_json else prompt.text())
        details = [f"{prompt.prompt_tokens} prompt tokens of a {window}-token window"]
        if prompt.example_id:
            details.append(f"one-shot example: {prompt.example_id}")
        if prompt.truncated:
            details.append(f"cut: {prompt.note}")
        elif prompt.note:
            details.append(prompt.note)
        say(f"({'; '.join(details)})", err=True)
