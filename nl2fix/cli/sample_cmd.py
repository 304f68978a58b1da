"""`nl2fix sample`: ask a backend for n candidate fixes per bug and store them in a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from nl2fix.cli.options import dataset_options, load_selection, new_run_option, selection_options
from nl2fix.cli.sample_options import (
    DEFAULT_OPENAI_MODEL,
    backend_options,
    conversation_config,
    conversation_options,
    prompt_options,
)
from nl2fix.cli.terminal import say
from nl2fix.cli.validate_cmd import validation_options
from nl2fix.dataset.load import DATASET_FILE, data_dir
from nl2fix.prompting.prompt import context_window_for
from nl2fix.report.cost import parse_price
from nl2fix.sampling import stops
from nl2fix.sampling.backends.providers import NAMES as BACKEND_NAMES
from nl2fix.sampling.backends.vllm_args import parse as parse_vllm_args
from nl2fix.sampling.backends.vllm_args import with_parallelism
from nl2fix.sampling.stage import MAX_SAMPLES, sample
from nl2fix.store.records import RunConfig
from nl2fix.store.run_dirs import dataset_label, default_run_dir
from nl2fix.validation.options import ValidationOptions


@click.command("sample")
@dataset_options
@selection_options
@new_run_option
@click.option(
    "--backend",
    type=click.Choice(BACKEND_NAMES),
    default="openai",
    show_default=True,
    help="openai (any OpenAI-compatible server), vllm (offline, GPU), mutation (no model), replay (a patch file).",
)
@prompt_options
@click.option(
    "-n",
    "--samples",
    "n",
    type=click.IntRange(min=1, max=MAX_SAMPLES),
    default=100,
    show_default=True,
    help="Samples per bug.",
)
@click.option("--temperature", type=click.FloatRange(min=0.0), default=0.8, show_default=True)
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI).")
@click.option(
    "--replay-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="For --backend replay: patches in the NL2Fix format {key: {prompt, patches: [{patch, index}]}}.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed for backends that take one (mutation order, vllm, openai).",
)
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=8, show_default=True, help="Requests in flight (openai)."
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Retries of a request on rate limits, 5xx answers, timeouts and connection errors (openai).",
)
@backend_options
@conversation_options
@validation_options
@click.option("--quiet", is_flag=True, help="No progress bar.")
def sample_cmd(**options):
    """Sample candidate fixes; re-running the same command resumes where it stopped.

    With --strategy conversation, the candidates of each round are validated (with the --engine
    options) before the next round, which shows the model its earlier candidates' test results."""
    sample_run(**options)


def run_dir_for(
    run_dir: Path | None, dataset: str | None, strategy: str, model: str | None, backend: str, temperature: float
) -> Path:
    """``run_dir``, or the default one this configuration names (printed, so the next command can be given it)."""
    if run_dir is not None:
        return run_dir

    chosen = default_run_dir(dataset_label(dataset), strategy, default_model(model, backend), temperature)
    say(f"run: {chosen}")
    return chosen


def default_model(model: str | None, backend: str) -> str:
    return model or (DEFAULT_OPENAI_MODEL if backend == "openai" else backend)


def sample_run(
    dataset,
    metadata_dir,
    bug_ids,
    projects,
    all_bugs,
    run_dir,
    backend,
    strategy,
    model,
    model_style,
    max_tokens,
    context_window,
    n,
    temperature,
    base_url,
    replay_file,
    seed,
    concurrency,
    retries,
    quiet,
    rounds,
    samples_per_round,
    first_prompt,
    token_budget,
    validation: ValidationOptions,
    stop=(),
    vllm_args=(),
    tensor_parallel_size=None,
    data_parallel_size=1,
    price=None,
    on_start: Callable[[], None] = lambda: None,
) -> None:
    """`nl2fix sample` with its options; ``on_start`` runs once they, the bugs and the run directory
    are accepted, before the first request (`nl2fix run` announces its report there, not before a
    run that fails at once)."""

    if backend == "replay" and replay_file is None:
        raise click.UsageError("--backend replay needs --replay-file FILE")
    if replay_file is not None and backend != "replay":
        raise click.UsageError("--replay-file is for --backend replay")
    if base_url is not None and backend != "openai":
        raise click.UsageError("--base-url is for --backend openai")
    if backend == "vllm" and not model:
        raise click.UsageError("--backend vllm needs --model NAME_OR_PATH (the weights to load)")
    if (vllm_args or tensor_parallel_size or data_parallel_size > 1) and backend != "vllm":
        raise click.UsageError("--vllm-arg, --tensor-parallel-size and --data-parallel-size are for --backend vllm")
    if strategy == "reasoning" and model_style != "chat" and backend in ("openai", "vllm"):
        raise click.UsageError("--strategy reasoning is a chat conversation: use --model-style chat")
    run_dir = run_dir_for(run_dir, dataset, strategy, model, backend, temperature)
    model = default_model(model, backend)
    ds, bugs = load_selection(dataset, metadata_dir, bug_ids, projects, all_bugs)
    config = RunConfig(
        dataset="example" if dataset == "example" else str(Path(dataset or data_dir() / DATASET_FILE).resolve()),
        metadata_dir=str(metadata_dir) if metadata_dir else None,
        backend=backend,
        model=model,
        model_style=model_style,
        strategy=strategy,
        temperature=temperature,
        n=n,
        max_tokens=max_tokens,
        # a model's own context length is asked of its engine or server when the run starts
        context_window=context_window or (None if backend in ("openai", "vllm") else context_window_for(model)),
        base_url=base_url,
        replay_file=str(replay_file.resolve()) if replay_file else None,
        seed=seed,
        conversation=conversation_config(strategy, n, rounds, samples_per_round, first_prompt, token_budget),
        engine_args=with_parallelism(parse_vllm_args(vllm_args), tensor_parallel_size, data_parallel_size)
        if backend == "vllm"
        else {},
        data_parallel_size=data_parallel_size,
        stop=stops.parse(stop),
        price=parse_price(price) if price else None,
    )

    summary = sample(
        run_dir,
        config,
        bugs,
        dataset=ds,
        concurrency=concurrency,
        retries=retries,
        progress=not quiet,
        on_start=on_start,
        validation=validation,
    )
    say(str(summary))
    if summary.failed:
        raise SystemExit(1)
