"""The report's cost section: what the run's samples cost beside what they fixed."""

from __future__ import annotations

from nl2fix.report.cost import CostSummary
from nl2fix.report.document import Table


def money(dollars: float | None) -> str:
    if dollars is None:
        return "-"
    return f"${dollars:,.2f}" if dollars >= 1 else f"${dollars:.4f}"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} s"


def headline(cost: CostSummary) -> str:
    """One line for the report's facts: 'bugs fixed for $X each' (or seconds for a local model)."""
    if cost.dollars is not None:
        each = f"; bugs fixed for {money(cost.dollars_per_fixed_bug)} each" if cost.fixed_bugs else "; no bug fixed"
        return (
            f"cost: {money(cost.dollars)} for {cost.prompt_tokens:,} prompt + {cost.completion_tokens:,} "
            f"completion tokens{each}"
        )
    each = f"; {seconds(cost.seconds_per_fixed_bug)} per bug fixed" if cost.fixed_bugs else ""
    return (
        f"cost: {seconds(cost.generation_seconds)} of generation for {cost.prompt_tokens:,} prompt + "
        f"{cost.completion_tokens:,} completion tokens (no price for this model){each}"
    )


def cost_tables(cost: CostSummary) -> list[Table]:
    price = cost.price
    rows = [
        ["prompt tokens", f"{cost.prompt_tokens:,}"],
        ["completion tokens", f"{cost.completion_tokens:,}"],
        ["price (per 1M tokens in / out)", f"{money(price.input)} / {money(price.output)}" if price else "none"],
        ["dollars", money(cost.dollars)],
        ["bugs fixed", str(cost.fixed_bugs)],
        ["dollars per bug fixed", money(cost.dollars_per_fixed_bug)],
        ["generation seconds", seconds(cost.generation_seconds)],
        ["device-seconds (vLLM)", seconds(cost.device_seconds)],
        ["generation seconds per bug fixed", seconds(cost.seconds_per_fixed_bug)],
    ]
    note = f"Price: {price.source}." if price else "No price for this model (override with --price in=...,out=...)."
    note += " Tokens are each sample's own completion tokens and its share of its request's prompt tokens."
    per_bug = [
        [b.bug_id, f"{b.prompt_tokens:,}", f"{b.completion_tokens:,}", money(b.dollars), seconds(b.generation_seconds)]
        for b in cost.bugs
    ]
    return [
        Table("Cost", ["", "value"], rows, note),
        Table("Cost per bug", ["bug", "prompt tokens", "completion tokens", "dollars", "generation"], per_bug),
    ]
