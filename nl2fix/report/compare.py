"""Several runs side by side: the paper's Table 5 (strategy/model) and Figure 3 (overlap of fixed bugs).

Each run's numbers are its own report's headline numbers (scored bugs, the run's verdict engine);
a bug counts as fixed by a run when some sample of it is plausible there.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nl2fix.core.domain import Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.report import metrics, plots
from nl2fix.report.data import ReportData, ReportModel, collect, sample_sequences
from nl2fix.report.document import Document, Figure, Table, likely, pct
from nl2fix.report.metrics import PAPER_KS
from nl2fix.report.published import ModelRow
from nl2fix.report.render import ReportFormat, emit, parse_format, render_model
from nl2fix.store.records import RunConfig


class RunRow(ReportModel):
    """One run in Table 5."""

    label: str
    """Short name of the run (its directory name, made unique)."""
    run_dir: str
    """The run directory."""
    model: str | None
    """Model name."""
    backend: str | None
    """Sampling backend."""
    strategy: str | None
    """Prompting strategy."""
    temperature: float | None
    """Sampling temperature."""
    n: int | None
    """Samples per bug asked for."""
    engine: str | None
    """Engine whose verdicts count."""
    bugs: int
    """Scored bugs."""
    fixed: int
    """Scored bugs with a plausible sample."""
    pass_at_k: dict[int, float]
    """k -> pass@k over scored bugs."""
    ranked_pass_at_1: dict[str, float]
    """Ranker key -> r.pass@1."""
    ast_match_at_k: dict[int, float] = {}
    """k -> AST match@k over scored bugs (empty when AST match is unavailable)."""
    likely_correct_pass_at_k: dict[int, float] = {}
    """k -> likely-correct pass@k (plausible and same-behaviour) over scored bugs (empty when not probed)."""
    behaviour_probed: bool = True
    """Whether the run's likely correctness was measured (``ReportData.behaviour_probed``)."""
    plausible_at_1: float | None = None
    """RepairBench's Plausible@1 over every bug of the run."""
    ast_match_at_1: float | None = None
    """RepairBench's AST Match@1 over every bug of the run."""
    warnings: int
    """How many warnings the run's report has (see its report)."""


class ModelLine(ReportModel):
    """One model of a run that holds several (an imported published set), in the comparison."""

    label: str
    """Run label."""
    row: ModelRow
    """The model's numbers in that run's report."""


class BudgetRow(ReportModel):
    """One run at the sample budget every compared run has (each bug's first ``budget`` samples)."""

    label: str
    """Run label."""
    strategy: str
    """Strategy, with a conversation's rounds x samples per round."""
    budget: int
    """Samples per bug counted."""
    bugs: int
    """Scored bugs."""
    fixed: int
    """Bugs with a plausible sample among their first ``budget``."""
    expected_fixed: float | None
    """For runs of independent samples: bugs the run would fix on average within the budget (pass@budget x bugs);
    None for a conversation, whose samples are not independent."""
    samples: int
    """Samples within the budget."""
    tokens: int
    """Their prompt + completion tokens."""
    samples_per_fix: float | None
    """Samples per bug fixed."""
    tokens_per_fix: float | None
    """Tokens per bug fixed."""
    cost_per_fix: float | None = None
    """US dollars per bug fixed: None until nl2fix prices tokens (a price table per model); tokens are the cost
    until then."""


class Overlap(ReportModel):
    """Which bugs each run fixed, and how those sets overlap (Figure 3)."""

    labels: list[str]
    """Run labels, in the order given."""
    fixed: dict[str, list[str]]
    """Label -> ids of the bugs it fixed."""
    pairwise: list[list[int]]
    """pairwise[i][j]: bugs fixed by both run i and run j (the diagonal: by run i)."""
    union: int
    """Bugs fixed by at least one run."""
    by_all: int
    """Bugs fixed by every run."""
    only: dict[str, int]
    """Label -> bugs fixed by that run alone."""


class CompareData(ReportModel):
    """Runs side by side."""

    runs: list[RunRow]
    """One row per run (Table 5)."""
    overlap: Overlap
    """Overlap of the bugs fixed (Figure 3)."""
    curves: dict[str, list[float]]
    """Label -> pass@k for k = 1 .. that run's smallest sample count."""
    warnings: list[str]
    """Why the comparison may not be like for like."""
    equal_budget: list[BudgetRow] = []
    """Every run at the smallest sample budget among them (a conversation beside plain sampling)."""
    models: list[ModelLine] = []
    """Each model of the runs that hold several, with RepairBench's numbers and cost."""


def _labels(run_dirs: Sequence[Path]) -> list[str]:
    """Each run's directory name, with as many parent folders as it takes to tell it from the others
    (labels key the overlap and the curves: two runs under one label would be merged)."""
    paths = [Path(d).resolve() for d in run_dirs]
    depth = [1] * len(paths)
    while True:
        labels = ["/".join(p.parts[-n:]).lstrip("/") or str(p) for p, n in zip(paths, depth)]
        clashing = [i for i, label in enumerate(labels) if labels.count(label) > 1 and depth[i] < len(paths[i].parts)]
        if not clashing:
            break
        for i in clashing:
            depth[i] += 1
    # what still clashes is the same directory given twice
    return [f"{label} #{i}" if labels.count(label) > 1 else label for i, label in enumerate(labels, start=1)]


def run_row(label: str, data: ReportData) -> RunRow:
    c = data.run.config
    return RunRow(
        label=label,
        run_dir=data.run.run_dir,
        model=c.model if c else None,
        backend=c.backend if c else None,
        strategy=_strategy(c) if c else None,
        temperature=c.temperature if c else None,
        n=c.n if c else None,
        engine=data.run.engine,
        bugs=data.bug_counts.scored,
        fixed=data.bug_counts.fixed,
        pass_at_k=data.pass_at_k,
        ranked_pass_at_1={key: values[1] for key, values in data.ranked_pass_at_k.items()},
        ast_match_at_k=data.ast_match_at_k,
        likely_correct_pass_at_k=data.likely_correct_pass_at_k,
        behaviour_probed=data.behaviour_probed,
        plausible_at_1=data.plausible_at_1,
        ast_match_at_1=data.ast_match_at_1,
        warnings=len(data.warnings),
    )


def overlap(fixed: dict[str, set[str]]) -> Overlap:
    labels = list(fixed)
    sets = [fixed[label] for label in labels]
    everything = set().union(*sets)
    return Overlap(
        labels=labels,
        fixed={label: sorted(fixed[label]) for label in labels},
        pairwise=[[len(a & b) for b in sets] for a in sets],
        union=len(everything),
        by_all=len(set.intersection(*sets)) if sets else 0,
        only={
            label: len(fixed[label] - set().union(*(s for other, s in fixed.items() if other != label)))
            for label in labels
        },
    )


def _strategy(config: RunConfig) -> str:
    conv = config.conversation
    if conv is None:
        return config.strategy.value
    return f"{config.strategy.value} ({conv.first_prompt.value}, {conv.rounds} x {conv.samples_per_round})"


def equal_budget(labels: list[str], reports: list[ReportData]) -> list[BudgetRow]:
    """The runs side by side at the smallest sample budget (run's n) among them."""
    configs = [r.run.config for r in reports if r.run.config is not None]
    budgets = [r.fixed_within.budget for r in reports if r.fixed_within is not None]
    if len(configs) < len(reports) or len(budgets) < len(reports):
        return []
    budget = min(budgets)  # a run's n; an imported set's most answers per bug
    rows = []
    for label, report, config in zip(labels, reports, configs):
        scored = {b.bug_id for b in report.scored_bugs}
        sequences = sample_sequences(report.run.run_dir, scored)
        spent = metrics.at_budget(sequences, budget)
        expected = None
        if config.conversation is None and sequences:
            counts = [max(len(s.plausible), budget) for s in sequences]
            expected = float(metrics.estimate_pass_at_k(counts, [sum(s.plausible) for s in sequences], budget).sum())
        rows.append(
            BudgetRow(
                label=label,
                strategy=_strategy(config),
                budget=budget,
                bugs=spent.bugs,
                fixed=spent.fixed,
                expected_fixed=expected,
                samples=spent.samples,
                tokens=spent.tokens,
                samples_per_fix=spent.samples_per_fix,
                tokens_per_fix=spent.tokens_per_fix,
            )
        )
    return rows


def compare_runs(run_dirs: Sequence[Path]) -> CompareData:
    if len(run_dirs) < 2:
        raise Nl2FixError("compare needs at least two runs", "nl2fix compare RUN_A RUN_B ...")
    return compare_reports(_labels(run_dirs), [collect(d, codebleu=False) for d in run_dirs])


def compare_reports(labels: list[str], reports: list[ReportData]) -> CompareData:
    """The comparison of runs whose reports (without CodeBLEU) are gathered already, under unique ``labels``."""
    warnings = []
    scored = [{b.bug_id for b in r.scored_bugs} for r in reports]
    if any(s != scored[0] for s in scored):
        warnings.append("the runs score different sets of bugs; pass@k and overlaps are over each run's own bugs")
    engines = {r.run.engine for r in reports}
    if len(engines) > 1:
        warnings.append("the runs were judged by different engines: " + ", ".join(sorted(str(e) for e in engines)))
    for label, r in zip(labels, reports):
        if r.warnings:
            warnings.append(f"{label}: {len(r.warnings)} warning(s) in its report, e.g. {r.warnings[0]}")
    return CompareData(
        runs=[run_row(label, r) for label, r in zip(labels, reports)],
        overlap=overlap(
            {label: {b.bug_id for b in r.scored_bugs if b.plausible_samples} for label, r in zip(labels, reports)}
        ),
        curves={label: r.pass_at_k_curve for label, r in zip(labels, reports)},
        warnings=warnings,
        equal_budget=equal_budget(labels, reports),
        models=[ModelLine(label=label, row=m) for label, r in zip(labels, reports) for m in r.models],
    )


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def budget_table(rows: list[BudgetRow]) -> Table:
    budget = rows[0].budget
    return Table(
        f"At equal budgets: the first {budget} samples of each bug",
        [
            "run",
            "strategy",
            "bugs fixed",
            "expected (pass@k)",
            "samples",
            "tokens",
            "samples per fix",
            "tokens per fix",
            "cost per fix",
        ],
        [
            [
                r.label,
                r.strategy,
                f"{r.fixed}/{r.bugs}",
                _number(r.expected_fixed),
                str(r.samples),
                f"{r.tokens:,}",
                _number(r.samples_per_fix),
                _number(r.tokens_per_fix, 0),
                _number(r.cost_per_fix, 2),
            ]
            for r in rows
        ],
        "Samples in the order they were drawn. 'expected': pass@k x bugs for runs of independent samples (a "
        "conversation's samples depend on earlier verdicts). Cost: '-' until nl2fix prices tokens; tokens stand for "
        "it.",
    )


def models_table(lines: list[ModelLine], ks: list[int]) -> Table:
    return Table(
        "Models",
        [
            "run",
            "model",
            "bugs",
            "samples",
            "Plausible@1",
            "AST Match@1",
            *[f"pass@{k}" for k in ks],
            "published Plausible@1",
            "verdicts agree",
            "cost",
        ],
        [
            [
                line.label,
                m.model,
                str(m.bugs),
                str(m.samples),
                pct(m.plausible_at_1),
                pct(m.ast_match_at_1),
                *[pct(m.pass_at_k.get(k)) for k in ks],
                pct(m.published_plausible_at_1),
                f"{m.agree}/{m.agree + m.disagree}" if m.agree + m.disagree else "-",
                _number(m.cost, 2),
            ]
            for line in lines
            for m in (line.row,)
        ],
        "Each model of the runs that hold several (imported published sets). Plausible@1 and AST Match@1 in "
        "RepairBench's definitions; cost in dollars, as the publisher reports it.",
    )


def compare_document(data: CompareData) -> Document:
    ks = [k for k in PAPER_KS if any(k in r.pass_at_k for r in data.runs)]
    rankers = sorted({key for r in data.runs for key in r.ranked_pass_at_1})
    rows = [
        [
            r.label,
            r.model or "-",
            r.strategy or "-",
            "-" if r.temperature is None else f"{r.temperature:g}",
            str(r.n or "-"),
            *[pct(r.pass_at_k.get(k)) for k in ks],
            *[likely(r.behaviour_probed, r.likely_correct_pass_at_k.get(k)) for k in ks],
            *[pct(r.ast_match_at_k.get(k)) for k in ks],
            pct(r.plausible_at_1),
            pct(r.ast_match_at_1),
            f"{r.fixed}/{r.bugs}",
            *[pct(r.ranked_pass_at_1.get(key)) for key in rankers],
        ]
        for r in data.runs
    ]
    table5 = Table(
        "Strategies and models (Table 5)",
        [
            "run",
            "model",
            "strategy",
            "T",
            "n",
            *[f"pass@{k}" for k in ks],
            *[f"likely correct@{k}" for k in ks],
            *[f"AST match@{k}" for k in ks],
            "Plausible@1",
            "AST Match@1",
            "bugs fixed",
            *[f"r.pass@1 [{key}]" for key in rankers],
        ],
        rows,
        "pass@k over each run's scored bugs; '-' where a run has too few samples for k."
        + (
            " A conversation's samples depend on earlier verdicts, which pass@k's estimator "
            "(independent samples) does not allow for: compare it at equal budgets."
            if any(r.strategy and r.strategy.startswith(Strategy.CONVERSATION.value) for r in data.runs)
            else ""
        ),
    )
    o = data.overlap
    pairs = Table(
        "Bugs fixed by both (Figure 3)",
        ["", *o.labels],
        [[label, *map(str, row)] for label, row in zip(o.labels, o.pairwise)],
        f"Fixed by any run: {o.union}; by every run: {o.by_all}; by one run only: "
        + ", ".join(f"{label} {n}" for label, n in o.only.items())
        + ".",
    )
    blocks: list = [table5, pairs]
    if data.models:
        blocks.insert(1, models_table(data.models, ks))
    if data.equal_budget:
        blocks.insert(1, budget_table(data.equal_budget))
    if any(data.curves.values()):
        blocks.insert(1, Figure("pass@k (Figure 2)", lambda: plots.pass_at_k_curves(data.curves)))
    if o.union:
        blocks.append(
            Figure(
                "Overlap of bugs fixed (Figure 3)",
                lambda: plots.overlap_upset({label: set(ids) for label, ids in o.fixed.items()}),
                "Bars: bugs fixed by exactly the runs marked below.",
            )
        )
    return Document("nl2fix comparison", [f"runs: {len(data.runs)}"], data.warnings, blocks)


def write_compare(run_dirs: Sequence[Path], fmt: str = "text", out: Path | None = None) -> Path | str:
    """The comparison in ``fmt``, written to ``out`` (returns its path) or returned as text."""
    if parse_format(fmt) is ReportFormat.HTML and out is None:
        raise Nl2FixError("an HTML comparison is written to a file", "add --out FILE.html")
    data = compare_runs(run_dirs)
    return emit(render_model(data, lambda: compare_document(data), fmt), out)
