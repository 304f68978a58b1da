"""A run's headline and its bugs as table rows, from the run's gathered report: per bug, whether a
plausible fix was found, pass@k at each reportable k, the first plausible rank under each ranking,
flags and cost; with the issue's text for searching."""

from __future__ import annotations

from dataclasses import dataclass

from defects4j_adapter.jvm.reference_java import environment_key
from nl2fix.core.domain import Bug
from nl2fix.report.data import BugRow, GroundTruth, ReportData, samples_target
from nl2fix.report.metrics import estimate_pass_at_k
from nl2fix.store.run_store import RunStore

SEARCH_CHARS = 400
"""How much of an issue's text the run page carries for its search box."""


@dataclass(frozen=True)
class RunFacts:
    """A run's configuration as the runs page lists it."""

    dataset: str
    strategy: str
    model: str
    backend: str
    temperature: str
    n: str
    engine: str
    sandbox: str
    java: str


@dataclass(frozen=True)
class BugLine:
    row: BugRow
    title: str
    search: str
    """Lower-case id, title and the start of the description: what the search box matches."""
    pass_at_k: dict[int, float]
    cost: str
    """Dollars when the model has a price, else tokens."""
    cost_value: float
    """The same as a number, to sort by."""
    published: str = "none"
    """For an imported set: ``differs`` when a candidate's published verdict is not nl2fix's, ``agrees``
    when every compared one is the same, ``none`` when nothing was compared."""

    @property
    def fixed(self) -> bool:
        return self.row.plausible_samples > 0

    @property
    def scored(self) -> bool:
        return self.row.ground_truth is not GroundTruth.FAILS


def run_facts(store: RunStore, report: ReportData) -> RunFacts:
    c = report.run.config
    env = (store.get_meta_json(environment_key(report.run.engine)) or {}) if report.run.engine else {}
    java = (
        f"{env['java_version']} ({env.get('choice', '')})"
        if env.get("java_version")
        else (f"Defects4J {env['defects4j_version']}" if env.get("defects4j_version") else "-")
    )
    strategy = "-"
    if c is not None:
        strategy = c.strategy.value + (
            f" ({c.conversation.first_prompt.value}, {c.conversation.rounds} rounds x "
            f"{c.conversation.samples_per_round})"
            if c.conversation
            else ""
        )
    return RunFacts(
        dataset=c.dataset if c else "-",
        strategy=strategy,
        model=c.model if c else "-",
        backend=c.backend if c else "-",
        temperature=f"{c.temperature:g}" if c else "-",
        n=str(c.n) if c else "-",
        engine=report.run.engine or "none yet",
        sandbox=env.get("sandbox", "-"),
        java=java,
    )


def bug_lines(report: ReportData, bugs: list[Bug]) -> list[BugLine]:
    """Every bug of the report, in run order."""
    by_id = {b.id: b for b in bugs}
    target = samples_target(report.run.config)
    n = [max(r.samples, target) for r in report.bugs]
    c = [r.plausible_samples for r in report.bugs]
    per_k = {k: estimate_pass_at_k(n, c, k) for k in report.pass_at_k}
    costs = {b.bug_id: b for b in report.cost.bugs} if report.cost else {}
    differs = {d.bug_id for d in report.published.disagreements} if report.published else set()
    lines = []
    for i, row in enumerate(report.bugs):
        bug = by_id[row.bug_id]
        cost = costs.get(row.bug_id)
        tokens = cost.prompt_tokens + cost.completion_tokens if cost else 0
        dollars = cost.dollars if cost else None
        lines.append(
            BugLine(
                row=row,
                title=bug.title,
                search=" ".join([row.bug_id, bug.title, bug.description[:SEARCH_CHARS]]).lower(),
                pass_at_k={k: float(v[i]) for k, v in per_k.items()},
                cost=f"${dollars:.4f}" if dollars is not None else f"{tokens:,} tok",
                cost_value=dollars if dollars is not None else tokens,
                published="none" if report.published is None else "differs" if row.bug_id in differs else "agrees",
            )
        )
    return lines
