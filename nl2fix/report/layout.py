"""One run's ReportData laid out as a document: the paper's tables in order, figures beside them."""

from __future__ import annotations

from nl2fix.dataset.hard_bugs import DEFAULT_LONG_FIX_LINES
from nl2fix.report import plots
from nl2fix.report.cost_table import cost_tables, headline
from nl2fix.report.data import RANKED_KS, FixedWithin, GroundTruth, GroupPassAtK, ReportData
from nl2fix.report.document import NOT_PROBED, Document, Figure, Paragraph, Table, interval, likely, pct, ratio
from nl2fix.sampling.backends.base import AT_TEMPERATURE


def _facts(data: ReportData) -> list[str]:
    c, counts = data.run.config, data.bug_counts
    facts = [f"run: {data.run.run_dir}"]
    if c is not None:
        temperature = f"temperature: {c.temperature:g}, " if c.backend in AT_TEMPERATURE else ""
        facts.append(
            f"model: {c.model} ({c.backend}, {c.model_style.value}), strategy: {c.strategy.value}, "
            f"{temperature}n: {c.n}"
        )
    facts.append(f"verdicts: {data.run.engine} engine" if data.run.engine else "verdicts: none yet")
    if data.run.environment:
        facts.append(f"validation environment: {data.run.environment}")
    facts.append(
        f"bugs: {counts.scored} scored of {counts.selected}"
        + (
            f" ({counts.ground_truth_fails} whose ground truth does not validate shown apart)"
            if counts.ground_truth_fails
            else ""
        )
    )
    if data.nothing_judged:
        facts.append("bugs with a plausible fix: none judged: every verdict is `error` (see the warnings)")
    else:
        facts.append(
            f"bugs with a plausible fix: {ratio(counts.fixed, counts.scored)}, "
            f"95% CI {interval(counts.fixed_interval)}"
            + (f"; over all {counts.selected} bugs: {counts.fixed_all}" if counts.ground_truth_fails else "")
        )
    if data.cost is not None and data.cost.bugs:
        facts.append(headline(data.cost))
    return facts


def _pass_at_k(data: ReportData) -> Table:
    rows = [
        [f"pass@{k}", pct(v), interval(data.pass_at_k_interval.get(k)), pct(data.pass_at_k_all_bugs.get(k))]
        for k, v in data.pass_at_k.items()
    ]
    rows += [
        [name, "", "", pct(value)]
        for name, value in (
            ("Plausible@1 (RepairBench)", data.plausible_at_1),
            ("AST Match@1 (RepairBench)", data.ast_match_at_1),
        )
        if value is not None
    ]
    return Table(
        "pass@k",
        ["metric", f"scored bugs ({data.bug_counts.scored})", "95% CI", f"all bugs ({data.bug_counts.selected})"],
        rows,
        "Unbiased estimator over each bug's n samples (duplicates count), averaged over bugs."
        + ("" if rows else " No k is reportable yet: some bug has no samples (or the run has no bugs)."),
    )


def _ranked(data: ReportData) -> Table:
    columns = ["ranker"]
    for k in RANKED_KS:
        columns += [f"r.pass@{k}", f"pass@{k}", f"r.likely@{k}"]
    rows = [
        [key]
        + [
            cell
            for k in RANKED_KS
            for cell in (
                pct(values[k]),
                pct(data.pass_at_k.get(k)),
                likely(data.behaviour_probed, data.ranked_likely_correct_pass_at_k.get(key, {}).get(k)),
            )
        ]
        for key, values in data.ranked_pass_at_k.items()
    ]
    return Table(
        "Ranking (Table 6)",
        columns,
        rows,
        "r.pass@k: share of scored bugs with a plausible candidate in the ranking's top k; r.likely@k: "
        "with a likely-correct one (plausible and same-behaviour); "
        "`:pruned` rankers drop uncompilable candidates first."
        if rows
        else "No ranking stored: run `nl2fix rank`.",
    )


def _projects(data: ReportData) -> Table:
    rows = [
        [
            p.project,
            str(p.bugs),
            str(p.fixed),
            pct(p.fraction),
            str(p.ground_truth_fails),
            pct(p.pass_at_k.get(1)),
            likely(data.behaviour_probed, p.likely_correct_pass_at_k.get(1)),
            pct(p.ast_match_at_k.get(1)),
        ]
        for p in data.per_project
    ]
    return Table(
        "Bugs fixed per project (Table 3)",
        [
            "project",
            "bugs",
            "plausible fix",
            "share",
            "ground truth fails",
            "pass@1",
            "likely correct@1",
            "AST match@1",
        ],
        rows,
    )


def _beyond_plausible(data: ReportData) -> Table:
    """pass@k beside the same estimator over the samples that are more than plausible."""
    rows = [
        [
            f"k = {k}",
            pct(v),
            likely(data.behaviour_probed, data.likely_correct_pass_at_k.get(k)),
            pct(data.ast_match_at_k.get(k)),
        ]
        for k, v in data.pass_at_k.items()
    ]
    note = (
        "pass@k's estimator with other samples as the correct ones. Likely correct: plausible, and doing "
        "what the developer's fix does (return value or exception, receiver, arguments and static fields "
        "after the call) on every call the tests make to the method and on inputs derived from those calls. "
        "AST match: the syntax tree (tree-sitter-java) is the developer fix's, comments and formatting aside."
    )
    if not data.behaviour_probed:
        note += (
            f" Likely correct: {NOT_PROBED}, as no plausible candidate's behaviour was compared with the "
            f"developer's fix (the {data.run.engine} engine does not probe behaviour; `nl2fix validate "
            "--engine fast` does)."
        )
    return Table(
        "Beyond plausible",
        ["k", "pass@k", "likely correct pass@k", "AST match@k"],
        rows,
        note + (f" {data.ast_match_note}" if data.ast_match_note else ""),
    )


def _divergences(data: ReportData, limit: int = 30) -> Table | None:
    """The plausible candidates that behave otherwise than the developer's fix, and where."""
    rows = [
        [
            b.bug_id,
            d.hash[:12],
            str(d.samples),
            _shorten(d.input, 120),
            _shorten(d.fix_result, 120),
            _shorten(d.candidate_result, 120),
        ]
        for b in data.scored_bugs
        for d in b.divergences
    ]
    counts: dict[str, int] = {}
    for b in data.scored_bugs:
        for label, n in b.behaviour.items():
            counts[label] = counts.get(label, 0) + n
    if not counts:
        return None
    summary = ", ".join(f"{label} {n}" for label, n in sorted(counts.items()))
    return Table(
        "Plausible but not the developer's behaviour",
        ["bug", "candidate", "samples", "first differing input", "developer's fix", "candidate"],
        rows[:limit],
        f"Unique plausible candidates by behaviour: {summary}."
        + (f" The first {limit} of {len(rows)} shown." if len(rows) > limit else ""),
    )


def _models(data: ReportData) -> Table | None:
    """Per model, RepairBench's numbers beside pass@k, and the publisher's own Plausible@1."""
    if not data.models:
        return None
    ks = sorted({k for m in data.models for k in m.pass_at_k} & {1, 5, 10})
    rows = [
        [
            m.model,
            str(m.bugs),
            str(m.samples),
            str(m.fixed),
            pct(m.plausible_at_1),
            pct(m.ast_match_at_1),
            *[pct(m.pass_at_k.get(k)) for k in ks],
            pct(m.published_plausible_at_1),
            f"{m.agree}/{m.agree + m.disagree}" if m.agree + m.disagree else "-",
            "-" if m.cost is None else f"${m.cost:,.2f}",
        ]
        for m in data.models
    ]
    return Table(
        "Models",
        [
            "model",
            "bugs",
            "samples",
            "fixed",
            "Plausible@1",
            "AST Match@1",
            *[f"pass@{k}" for k in ks],
            "published Plausible@1",
            "verdicts agree",
            "cost",
        ],
        rows,
        "RepairBench's definitions: Plausible@1 and AST Match@1 are each bug's share of plausible (AST-"
        "matching) samples, averaged over the bugs the model answered; pass@k counts each bug with the "
        "samples it holds. Published: by the publisher's verdicts. Cost: as the publisher reports it, "
        "over its whole set.",
    )


def _published(data: ReportData, limit: int = 40) -> Table | None:
    """Where the publisher's verdict and nl2fix's differ, candidate by candidate, and why."""
    p = data.published
    if p is None:
        return None
    rows = [
        [
            d.bug_id,
            d.hash[:12],
            ", ".join(d.models),
            d.published,
            d.verdict.value,
            d.explanation.value,
            d.rejudged.value if d.rejudged else "-",
            _shorten(d.detail, 100),
        ]
        for d in p.disagreements
    ]
    by = ", ".join(f"{k} {n}" for k, n in p.by_explanation.items()) or "none"
    note = (
        f"{p.agree} of {p.compared} answers with a published verdict agree with nl2fix's (plausible or not); "
        f"{p.disagree} differ. Differing candidates by explanation: {by}. compiles-here/-there: a source "
        "level or Java version; revision: the publisher's buggy method is not the dataset's; test-differs: "
        "only regression tests fail here. `nl2fix validate --rejudge-unexplained --engine defects4j` "
        "re-judges the unexplained ones"
    )
    if p.rejudged_agree_with_nl2fix or p.rejudged_agree_with_publisher:
        note += (
            f"; re-judged, defects4j sides with nl2fix on {p.rejudged_agree_with_nl2fix} and with the "
            f"publisher on {p.rejudged_agree_with_publisher}"
        )
    note += "." + (f" The first {limit} of {len(rows)} shown." if len(rows) > limit else "")
    return Table(
        "Published verdicts beside nl2fix's",
        ["bug", "candidate", "models", "published", "nl2fix", "explanation", "re-judged", "detail"],
        rows[:limit],
        note,
    )


def _candidates(data: ReportData) -> Table:
    s = data.candidates
    rows = [
        ["duplicates", pct(s.duplicates)],
        ["no extractable method", pct(s.unextractable)],
        ["compile", pct(s.compile)],
        ["pass regression tests", pct(s.regression_pass)],
        ["regression tests not reached", pct(s.regression_not_reached)],
        ["plausible", pct(s.plausible)],
        ["unvalidated (not plausible)", pct(s.unvalidated)],
    ]
    verdicts = ", ".join(f"{v}: {n}" for v, n in s.verdicts.items()) or "none"
    return Table(
        "Candidates (Table 2)",
        ["share of samples, mean over bugs", "value"],
        rows,
        f"{s.samples} samples, {s.unique_candidates} unique candidates over {s.bugs} bugs. "
        f"Unique candidates by verdict: {verdicts}."
        + (
            " Validation stopped at the first failing trigger test for some candidates; "
            "`nl2fix validate --all-tests` runs their regression tests too."
            if s.regression_not_reached
            else ""
        ),
    )


def _exact(data: ReportData) -> Table:
    e = data.exact_match
    rows = [
        ["bugs with an exact match", ratio(e.bugs_with_exact_match, e.bugs)],
        ["  of which plausible", str(e.bugs_with_plausible_exact_match)],
        ["fixed bugs with an exact match", pct(e.fraction_of_fixed_bugs)],
        ["samples that match exactly", ratio(e.exact_match_samples, e.samples)],
    ]
    return Table(
        "Exact matches with the developer's fix (Table 4)", ["", "value"], rows, "Ignoring whitespace and comments."
    )


def _codebleu(data: ReportData) -> list:
    cb = data.codebleu
    if not cb.available:
        return [Paragraph("CodeBLEU (Figure 4)", cb.reason)]
    rows = [
        [ref, verdict, str(d.count), f"{d.mean:.3f}", f"{d.median:.3f}", f"{d.q1:.3f} – {d.q3:.3f}"]
        for ref, groups in cb.by_verdict.items()
        for verdict, d in groups.items()
    ]
    tests = (
        "; ".join(
            f"vs {t.reference}: U = {t.statistic:.1f}, p = {t.p_value:.3g} ({t.plausible} plausible, {t.others} others)"
            for t in cb.tests
        )
        or "no test: it needs both plausible and other validated candidates"
    )
    note = f"One-sided Wilcoxon rank-sum test, plausible > not plausible: {tests}."
    if cb.unscored:
        note += f" {cb.unscored} pair(s) could not be scored."
    blocks: list = [
        Table(
            "CodeBLEU by verdict (Figure 4)", ["against", "verdict", "candidates", "mean", "median", "IQR"], rows, note
        )
    ]
    if rows:
        blocks.append(
            Figure("CodeBLEU of candidates by verdict (Figure 4)", lambda: plots.codebleu_boxes(cb.by_verdict))
        )
    return blocks


def _shorten(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _broken(data: ReportData) -> Table | None:
    broken = data.broken_bugs
    if not broken:
        return None
    rows = [
        [
            b.bug_id,
            b.fixed_verdict.value if b.fixed_verdict else "-",
            _shorten(b.ground_truth_detail),
            str(b.plausible_samples),
        ]
        for b in broken
    ]
    return Table(
        "Ground truth does not validate (left out of the numbers above)",
        ["bug", "fixed version", "why", "plausible samples"],
        rows,
        "The developer's own fix fails these bugs' tests here: a broken benchmark entry, not a model failure.",
    )


def _bugs(data: ReportData) -> Table:
    rankers = data.run.rankers
    rows = []
    for b in data.bugs:
        verdicts = ", ".join(f"{v} {n}" for v, n in b.verdicts.items())
        ranks = [str(b.first_plausible_rank.get(r) or "-") for r in rankers]
        gt = "" if b.ground_truth is GroundTruth.VALIDATES else f" [{b.ground_truth.value}]"
        rows.append(
            [
                b.bug_id + gt,
                str(b.samples),
                str(b.unique_candidates),
                str(b.plausible_samples),
                pct(b.pass_at_1),
                "yes" if b.exact_match else "",
                verdicts,
                *ranks,
                ", ".join(b.flags),
            ]
        )
    return Table(
        "Bugs",
        [
            "bug",
            "n",
            "unique",
            "plausible",
            "pass@1",
            "exact",
            "unique candidates by verdict",
            *[f"rank [{r}]" for r in rankers],
            "flags",
        ],
        rows,
        "rank: position of the best-placed plausible candidate in each ranking.",
    )


def _fixed_within(data: ReportData, f: FixedWithin) -> Table:
    rows = [
        [f"first {k} sample(s)", pct(share), pct(data.pass_at_k.get(k)) if not f.adaptive else "-"]
        for k, share in f.ks.items()
    ]
    per_fix = "-" if f.tokens_per_fix is None else f"{f.tokens_per_fix:,.0f}"
    first = "-" if f.mean_first_position is None else f"{f.mean_first_position:.1f}"
    note = (
        f"Within the budget of {f.budget} samples per bug: {f.fixed} bug(s) fixed, first plausible sample at "
        f"position {first} on average; {f.samples} samples, {f.tokens:,} tokens, {per_fix} tokens per fix."
    )
    if f.adaptive:
        note += (
            " The samples of this conversation run depend on earlier verdicts, so pass@k's independence "
            "assumption does not hold: compare runs by these numbers."
        )
    return Table("Fixed within k samples", ["bugs fixed within", "share of scored bugs", "pass@k"], rows, note)


def _groups(title: str, groups: list[GroupPassAtK], ks: list[int], note: str) -> Table:
    rows = [[g.group, str(g.bugs), str(g.fixed), *[pct(g.pass_at_k.get(k)) for k in ks]] for g in groups]
    return Table(title, ["bugs", "scored", "plausible fix", *[f"pass@{k}" for k in ks]], rows, note)


def _cutoff(data: ReportData) -> Table | None:
    split = data.cutoff_split
    if split is None:
        return None
    return _groups(
        f"pass@k by training cut-off ({split.cutoff})",
        split.groups,
        list(data.pass_at_k),
        "Issues opened before the cut-off may be in the model's training data; a gap between the rows "
        "is a sign of contamination. Dates come from datasets made by `nl2fix dataset build`.",
    )


def _flags(data: ReportData) -> Table | None:
    if not data.flag_split:
        return None
    return _groups(
        "pass@k by difficulty flag",
        data.flag_split,
        list(data.pass_at_k),
        "multi-hunk: the fix changes the method in several places; long-fix: more than "
        f"{DEFAULT_LONG_FIX_LINES} lines removed plus added; outside-method: the developer's fix also "
        "changes code outside the method. "
        "A bug may have several flags.",
    )


def report_document(data: ReportData) -> Document:
    blocks: list = [_pass_at_k(data), _beyond_plausible(data)]
    if data.fixed_within is not None:
        blocks.append(_fixed_within(data, data.fixed_within))
    if data.pass_at_k_curve:
        blocks.append(Figure("pass@k (Figure 2)", lambda: plots.pass_at_k_curves({"this run": data.pass_at_k_curve})))
    if data.cost is not None:
        blocks += cost_tables(data.cost)
    blocks += [t for t in (_models(data), _published(data)) if t is not None]
    blocks.append(_ranked(data))
    blocks.append(_projects(data))
    if data.per_project:
        blocks.append(
            Figure(
                "Bugs fixed per project",
                lambda: plots.project_bars([(p.project, p.bugs, p.fixed) for p in data.per_project]),
            )
        )
    blocks += [_candidates(data), _exact(data), *_codebleu(data)]
    divergences = _divergences(data)
    if divergences:
        blocks.append(divergences)
    blocks += [t for t in (_cutoff(data), _flags(data)) if t is not None]
    broken = _broken(data)
    if broken:
        blocks.append(broken)
    blocks.append(_bugs(data))
    return Document("nl2fix report", _facts(data), [*data.warnings, *_hidden(data)], blocks)


def _hidden(data: ReportData) -> list[str]:
    """A warning naming the candidates that carry hidden characters, which every output shows escaped."""
    flagged = [f"{b.bug_id} {h[:12]}" for b in data.bugs for h in b.hidden_characters]
    if not flagged:
        return []
    return [
        f"{len(flagged)} candidate(s) carry hidden characters (control characters, escape sequences, "
        f"bidirectional or invisible format characters), shown escaped: {', '.join(flagged[:20])}"
        f"{', ...' if len(flagged) > 20 else ''}"
    ]
