"""What a run cost: tokens in and out per bug and in all, dollars where the model has a price,
generation seconds for models run on one's own hardware, and all of it per bug fixed.

Prices are US dollars per million tokens: ``--price in=2.5,out=10`` (recorded in the run's
configuration), else the bundled table ``prices.json`` (dated: prices change; the report says
which date it used), matched by the longest model-name prefix (``gpt-4o-2024-08-06`` is
``gpt-4o``). A model with no price (a local model) is costed in generation seconds: the
wall-clock seconds its requests took, and, for vLLM, times the devices one vLLM replica occupies.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from nl2fix.core.errors import Nl2FixError
from nl2fix.sampling.backends.vllm_args import devices_per_replica
from nl2fix.store.records import RunConfig, SampleRecord

PRICES = Path(__file__).with_name("prices.json")
MILLION = 1_000_000


class _Model(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class Price(_Model):
    """Dollars per million tokens."""

    input: float
    """Per million prompt tokens."""
    output: float
    """Per million completion tokens."""
    source: str
    """Where the price comes from: ``--price``, or the bundled table and its date."""

    def dollars(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / MILLION


class BugCost(_Model):
    """One bug's share."""

    bug_id: str
    """``Project-N``."""
    prompt_tokens: int
    """Prompt tokens of its stored samples (each sample's share of its requests)."""
    completion_tokens: int
    """Completion tokens of its stored samples."""
    dollars: float | None
    """At the run's price; None without one."""
    generation_seconds: float
    """Wall-clock seconds of its samples' generation."""


class CostSummary(_Model):
    """What the run's samples cost, in all and per bug fixed."""

    prompt_tokens: int
    """All stored samples' prompt tokens."""
    completion_tokens: int
    """All stored samples' completion tokens."""
    price: Price | None
    """The price used; None when the model has none (a local model: see the seconds)."""
    dollars: float | None
    """Tokens at the price; None without one."""
    generation_seconds: float
    """Wall-clock seconds of generation, summed over samples (samples recorded before nl2fix kept
    them count 0)."""
    device_seconds: float | None
    """vLLM: generation seconds times the devices one vLLM replica occupies (GPU- or CPU-seconds of the devices);
    None for other backends."""
    fixed_bugs: int
    """Scored bugs with a plausible fix."""
    dollars_per_fixed_bug: float | None
    """dollars / fixed_bugs; None without a price or a fixed bug."""
    seconds_per_fixed_bug: float | None
    """generation_seconds / fixed_bugs; None without a fixed bug."""
    bugs: list[BugCost]
    """Per bug, in run order."""


def parse_price(text: str) -> dict[str, float]:
    """``in=2.5,out=10`` (dollars per million prompt and completion tokens) as ``{"in": 2.5, "out": 10.0}``."""
    parts = dict(part.partition("=")[::2] for part in text.replace(" ", "").split(",") if part)
    try:
        price = {key: float(parts[key]) for key in ("in", "out")}
    except (KeyError, ValueError) as exc:
        raise Nl2FixError(
            f"--price {text!r} is not in=DOLLARS,out=DOLLARS",
            "give dollars per million prompt and completion tokens, e.g. --price in=2.5,out=10",
        ) from exc
    if set(parts) - {"in", "out"} or min(price.values()) < 0:
        raise Nl2FixError(f"--price {text!r}: only in= and out=, neither negative", "e.g. --price in=2.5,out=10")
    return price


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    return json.loads(PRICES.read_text())


def table_price(model: str) -> Price | None:
    """The bundled table's price of ``model`` (longest matching name prefix), if it has one."""
    table = _table()
    name = model.lower().split("/")[-1]
    matches = [key for key in table["models"] if name.startswith(key)]
    if not matches:
        return None
    entry = table["models"][max(matches, key=len)]
    return Price(
        input=entry["in"], output=entry["out"], source=f"bundled price table of {table['as_of']} ({table['source']})"
    )


def run_price(config: RunConfig) -> Price | None:
    if config.price is not None:
        return Price(input=config.price["in"], output=config.price["out"], source="--price")
    if config.backend != "openai":
        return None  # vLLM, mutation, replay: nothing is billed per token
    return table_price(config.model)


def summarize(config: RunConfig | None, samples: dict[str, list[SampleRecord]], fixed: list[str]) -> CostSummary:
    """The cost of ``samples`` (bug id -> its stored samples, in run order); ``fixed``: the scored
    bugs with a plausible fix."""
    price = run_price(config) if config is not None else None
    bugs = []
    for bug_id, records in samples.items():
        prompt, completion = sum(s.prompt_tokens for s in records), sum(s.completion_tokens for s in records)
        bugs.append(
            BugCost(
                bug_id=bug_id,
                prompt_tokens=prompt,
                completion_tokens=completion,
                dollars=price.dollars(prompt, completion) if price else None,
                generation_seconds=sum(s.generation_seconds for s in records),
            )
        )
    prompt = sum(b.prompt_tokens for b in bugs)
    completion = sum(b.completion_tokens for b in bugs)
    dollars = price.dollars(prompt, completion) if price else None
    seconds = sum(b.generation_seconds for b in bugs)
    devices = devices_per_replica(config.engine_args) if config is not None and config.backend == "vllm" else None
    return CostSummary(
        prompt_tokens=prompt,
        completion_tokens=completion,
        price=price,
        dollars=dollars,
        generation_seconds=seconds,
        device_seconds=seconds * devices if devices else None,
        fixed_bugs=len(fixed),
        dollars_per_fixed_bug=dollars / len(fixed) if dollars is not None and fixed else None,
        seconds_per_fixed_bug=seconds / len(fixed) if fixed else None,
        bugs=bugs,
    )
