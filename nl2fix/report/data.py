"""Everything a report shows, gathered from the run store into one pydantic model.

The JSON report is exactly ``ReportData.model_dump_json()``; its field docstrings are its
documentation (``nl2fix report --schema`` prints them as JSON Schema). Fractions are in [0, 1].

Which numbers count:
- a candidate's verdict is the one of the run's verdict engine (``nl2fix.validation.verdict_source``);
- every stored sample of a bug is one of its n samples (duplicates included); a sample with no
  extractable method, no verdict yet, or an ``error`` verdict is not plausible, and the report
  says how many of those there are, so nothing unvalidated is silently scored either way;
- bugs whose fixed (developer) version does not validate are a broken benchmark entry, not a
  model failure: they are listed apart and left out of the headline numbers, which are also
  given over all bugs.
"""

from __future__ import annotations

import enum
from collections import Counter, defaultdict
from datetime import date
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from defects4j_adapter.jvm.reference_java import environment_key
from nl2fix import __version__
from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.dataset.hard_bugs import HardFlag, bug_flags
from nl2fix.report import ast_match, metrics
from nl2fix.report import codebleu as codebleu_scores
from nl2fix.report.cost import CostSummary
from nl2fix.report.cost import summarize as summarize_cost
from nl2fix.report.published import (
    REJUDGE_ENGINE,
    BugAnswers,
    Explanation,
    ModelRow,
    PublishedComparison,
    comparison,
    has_models,
    model_rows,
)
from nl2fix.sampling.importing import PUBLISHED_COSTS, is_import
from nl2fix.store.hidden_text import carried
from nl2fix.store.records import CandidateRecord, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED, BaselineCheck, problem_lines
from nl2fix.validation.verdict_source import verdict_engine
from ranking.spec import ranking_info

RANKED_KS = (1, 5, 10)
"""The k of ranked pass@k (the paper's Table 6 shows 1 and 5)."""
SCHEMA_VERSION = 1
UNVALIDATED = "unvalidated"
UNKNOWN_BEHAVIOUR = "unknown"
"""The behaviour column of plausible candidates never probed (validated before probing, or by another engine)."""
"""The verdict column of candidates that have no verdict under the report's engine."""


class GroundTruth(str, enum.Enum):
    """Whether the developer's fix validates under the report's engine, by the validation stage's rule."""

    VALIDATES = "validates"
    """It compiles and passes the trigger tests (relevant tests it fails are discounted for every candidate)."""
    FAILS = "fails"
    """It does not compile, or fails a trigger test: a broken benchmark entry."""
    UNCHECKED = "unchecked"
    """Not validated (yet), or the harness failed on it; the bug stays in the headline numbers."""


class ReportModel(BaseModel):
    """What reports persist as JSON: documented by field docstrings, no unknown fields."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class RunInfo(ReportModel):
    """Which run the report describes and how its verdicts were obtained."""

    run_dir: str
    """The run directory."""
    config: RunConfig | None
    """The run's configuration (None when sampling never started)."""
    engine: str | None
    """Validation engine whose verdicts are used; None when no candidate was validated."""
    environment: str = ""
    """Where that engine's tests ran, as its last validation recorded it: the Java and its flags,
    and the Defects4J (version and Java) whose behaviour they follow."""
    rankers: list[str]
    """Ranker keys with stored rankings."""
    nl2fix_version: str
    """Version of nl2fix that wrote the report."""


class BugCounts(ReportModel):
    """How many bugs each headline number is over."""

    selected: int
    """Bugs in the run."""
    scored: int
    """Bugs in the headline numbers: all but those whose ground truth fails."""
    ground_truth_fails: int
    """Bugs whose fixed version does not validate (listed apart, left out of the headline)."""
    ground_truth_unchecked: int
    """Bugs whose fixed version was not validated (or hit a harness error); they are kept in the headline."""
    fixed: int
    """Scored bugs with at least one plausible sample."""
    fixed_all: int
    """All bugs (scored or not) with at least one plausible sample."""
    fixed_interval: tuple[float, float]
    """95% Wilson interval of fixed / scored."""


class Distribution(ReportModel):
    """Summary of a sample of numbers, enough to draw a box plot."""

    count: int
    """How many values."""
    mean: float
    """Their mean."""
    median: float
    """Their median."""
    q1: float
    """First quartile."""
    q3: float
    """Third quartile."""
    low: float
    """Lower whisker: the smallest value within 1.5 IQR of q1."""
    high: float
    """Upper whisker: the largest value within 1.5 IQR of q3."""


class RankSumTest(ReportModel):
    """One-sided Wilcoxon rank-sum (Mann-Whitney U) test: plausible candidates score higher than the rest."""

    reference: str
    """``buggy`` or ``fixed``: the method CodeBLEU was computed against."""
    statistic: float
    """The U statistic of the plausible group."""
    p_value: float
    """One-sided p-value (alternative: plausible > not plausible)."""
    plausible: int
    """Plausible candidates in the test."""
    others: int
    """Not-plausible (validated) candidates in the test."""


class CodeBleuSummary(ReportModel):
    """CodeBLEU of the scored bugs' unique, validated candidates against the buggy and the fixed method (Figure 4)."""

    available: bool
    """False when CodeBLEU could not run here; ``reason`` says why."""
    reason: str = ""
    """Why CodeBLEU is unavailable, or empty."""
    unscored: int = 0
    """Candidate/reference pairs CodeBLEU could not score."""
    by_verdict: dict[str, dict[str, Distribution]] = {}
    """reference (``buggy``/``fixed``) -> verdict -> distribution of scores."""
    tests: list[RankSumTest] = []
    """Per reference, whether plausible candidates score higher than the others."""


class CandidateStats(ReportModel):
    """The paper's Table 2: each rate is a fraction of a bug's samples, averaged over scored bugs."""

    bugs: int
    """Scored bugs with at least one sample (the bugs averaged over)."""
    samples: int
    """Samples of those bugs."""
    unique_candidates: int
    """Unique extracted candidates of those bugs."""
    duplicates: float
    """Samples whose candidate repeats an earlier sample of the same bug."""
    unextractable: float
    """Samples from which no method could be extracted."""
    compile: float
    """Samples whose candidate compiles (verdict plausible or wrong)."""
    regression_pass: float
    """Samples whose candidate passed the regression tests (all plausible ones; a candidate that failed a
    trigger test first never reached them and is not counted)."""
    regression_not_reached: float
    """Samples whose candidate failed only trigger tests, so the regression tests did not run."""
    plausible: float
    """Samples whose candidate passes every trigger and relevant test."""
    unvalidated: float
    """Extracted samples whose candidate has no verdict, or an ``error`` verdict (counted as not plausible)."""
    verdicts: dict[str, int]
    """Unique candidates by verdict (``unvalidated`` for those without one)."""


class ExactMatchStats(ReportModel):
    """The paper's Table 4: candidates identical to the developer's fix, ignoring whitespace and comments."""

    bugs: int
    """Scored bugs."""
    bugs_with_exact_match: int
    """Bugs with at least one sample identical to the fix."""
    bugs_with_plausible_exact_match: int
    """Bugs whose identical candidate is also plausible (an exact match that fails means a flaky or broken test)."""
    samples: int
    """Samples of scored bugs."""
    exact_match_samples: int
    """Samples identical to the fix."""
    fraction_of_bugs: float
    """bugs_with_exact_match / bugs."""
    fraction_of_fixed_bugs: float
    """Of the bugs with a plausible fix, those with an exact match."""


class ProjectRow(ReportModel):
    """One project in the paper's Table 3."""

    project: str
    """Project name."""
    bugs: int
    """Scored bugs of the project."""
    fixed: int
    """Scored bugs with a plausible sample."""
    fraction: float
    """fixed / bugs."""
    ground_truth_fails: int
    """Bugs of the project left out because their fixed version fails."""
    pass_at_k: dict[int, float] = {}
    """k -> mean pass@k over the project's scored bugs (the run's reportable k)."""
    likely_correct_pass_at_k: dict[int, float] = {}
    """k -> the same estimator over samples that are plausible and same-behaviour (likely correct); empty
    when the run's behaviour was not probed (``ReportData.behaviour_probed``)."""
    ast_match_at_k: dict[int, float] = {}
    """k -> the same estimator over samples whose syntax tree is the developer fix's (empty when AST
    match is unavailable)."""


class Divergence(ReportModel):
    """A plausible candidate that does something else than the developer's fix."""

    hash: str
    """Candidate hash."""
    samples: int
    """Its samples."""
    inputs: int
    """Inputs compared."""
    input: str
    """The first input on which it differs (receiver and arguments), after the method it is a call of when that is
    another method of the class, which calls the changed one."""
    fix_result: str
    """What the developer's fix did there."""
    candidate_result: str
    """What the candidate did."""


class BugRow(ReportModel):
    """One bug's numbers."""

    bug_id: str
    """``Project-N``."""
    project: str
    """Project name."""
    ground_truth: GroundTruth
    """Whether the fixed version validates."""
    fixed_verdict: Verdict | None
    """Verdict of the fixed version (None when not validated)."""
    buggy_verdict: Verdict | None
    """Verdict of the buggy version (``wrong`` is expected; ``plausible`` means the tests miss the bug)."""
    ground_truth_detail: str = ""
    """What is wrong with the baselines: why the fixed version fails, or the buggy version passes its trigger tests."""
    samples: int
    """Stored samples (n for this bug)."""
    unextractable: int
    """Samples without an extractable method."""
    unique_candidates: int
    """Unique extracted candidates."""
    plausible_samples: int
    """Samples whose candidate is plausible (c for this bug)."""
    unvalidated_candidates: int
    """Unique candidates without a verdict, or with an ``error`` verdict."""
    verdicts: dict[str, int]
    """Unique candidates by verdict."""
    pass_at_1: float | None
    """c / n, None without samples."""
    exact_match: bool
    """Some sample is identical to the fix."""
    ast_match_samples: int | None = None
    """Samples whose syntax tree is the developer fix's, comments and formatting aside (None: AST
    match unavailable)."""
    likely_correct_samples: int = 0
    """Samples whose candidate is plausible and behaves as the developer's fix on every input probed."""
    behaviour: dict[str, int] = {}
    """Unique plausible candidates by behaviour label (same-behaviour, diverges, not-probed; ``unknown``:
    validated before probing existed, or by an engine that does not probe)."""
    divergences: list[Divergence] = []
    """The plausible candidates that diverge from the developer's fix, each with its first differing input."""
    first_likely_correct_rank: dict[str, int | None] = {}
    """Ranker key -> 1-based rank of the best-placed likely-correct candidate (None: none ranked)."""
    first_plausible_rank: dict[str, int | None]
    """Ranker key -> 1-based rank of the best-placed plausible candidate (None: none ranked)."""
    issue_created: str = ""
    """When the bug's issue was opened (ISO 8601 UTC), empty when the dataset does not say."""
    flags: list[str] = []
    """Difficulty flags (``nl2fix.dataset.hard_bugs``): multi-hunk, long-fix, outside-method."""
    models: list[str] = []
    """The models whose answers the bug's samples are, in a run that holds several (an imported set)."""
    hidden_characters: list[str] = []
    """Hashes of the unique candidates that carry hidden characters (control characters, escape sequences,
    bidirectional or invisible format characters) in their code or their verdict's record
    (``nl2fix.store.hidden_text``); every report shows them escaped."""


class GroupPassAtK(ReportModel):
    """pass@k over one group of the scored bugs."""

    group: str
    """Which bugs, e.g. ``issue before 2021-09-01``."""
    bugs: int
    """Scored bugs in the group."""
    fixed: int
    """Of which with at least one plausible sample."""
    pass_at_k: dict[int, float]
    """k -> mean pass@k over the group (same estimator and sample counts as the headline)."""


class CutoffSplit(ReportModel):
    """pass@k split by a model's training cut-off: issues opened before it may be in the training data."""

    cutoff: str
    """The cut-off date (YYYY-MM-DD)."""
    groups: list[GroupPassAtK]
    """Issues opened before the cut-off, on or after it, and with no known date."""


class FixedWithin(ReportModel):
    """Where each bug's first plausible sample came, in the order samples were drawn: honest for adaptive
    sampling (a conversation), where pass@k's independence assumption does not hold."""

    adaptive: bool
    """The run fed verdicts back to the model (``conversation``): read these numbers, not pass@k."""
    ks: dict[int, float]
    """k -> share of scored bugs with a plausible sample among their first k samples."""
    budget: int
    """The run's sample budget per bug (its n)."""
    fixed: int
    """Scored bugs fixed within that budget."""
    mean_first_position: float | None
    """Mean position of the first plausible sample over the fixed bugs."""
    samples: int
    """Samples drawn for the scored bugs."""
    tokens: int
    """Their prompt + completion tokens."""
    tokens_per_fix: float | None
    """Tokens per bug fixed (None when none was)."""


class ReportData(ReportModel):
    """A run's report: the paper's Tables 2, 3, 4 and 6 and Figures 2 and 4 for one run."""

    schema_version: int = SCHEMA_VERSION
    """Version of this JSON layout; fields are only ever added within a version."""
    run: RunInfo
    """The run and how it was judged."""
    warnings: list[str]
    """Anything that makes the numbers incomplete (unvalidated candidates, missing samples ...)."""
    bug_counts: BugCounts
    """How many bugs the numbers are over."""
    pass_at_k: dict[int, float]
    """k -> mean pass@k over scored bugs (unbiased estimator, for k <= the run's n; a bug's missing
    samples (skipped, failed or not yet requested) count as samples that are not plausible)."""
    pass_at_k_interval: dict[int, tuple[float, float]]
    """k -> 95% bootstrap interval of pass@k over bugs."""
    pass_at_k_all_bugs: dict[int, float]
    """k -> mean pass@k over every bug, ground truth failing or not."""
    pass_at_k_curve: list[float]
    """pass@k for k = 1, 2, ... up to the smallest sample count (Figure 2)."""
    ranked_pass_at_k: dict[str, dict[int, float]]
    """Ranker key -> k -> fraction of scored bugs with a plausible candidate in the ranking's top k (Table 6)."""
    per_project: list[ProjectRow]
    """Bugs with a plausible fix per project (Table 3)."""
    candidates: CandidateStats
    """Candidate statistics (Table 2)."""
    exact_match: ExactMatchStats
    """Exact matches with the developer's fix (Table 4)."""
    ast_match_at_k: dict[int, float] = {}
    """k -> pass@k's estimator over scored bugs with the samples whose syntax tree is the developer
    fix's (tree-sitter-java; comments and formatting aside) as the correct ones (RepairBench's AST
    match); empty when AST match is unavailable (``ast_match_note`` says why)."""
    ast_match_note: str = ""
    """Why AST match is unavailable, when it is."""
    behaviour_probed: bool = True
    """Some plausible candidate's behaviour was compared with the developer's fix (or nothing is
    plausible, so none needed to be). False when plausible candidates exist but none was compared: the
    engine never probes (``defects4j``, ``rebuild``), or the run was validated before probing existed;
    the likely-correct figures are then empty and every report says ``not probed``, not 0.0%."""
    likely_correct_pass_at_k: dict[int, float] = {}
    """k -> pass@k's estimator over scored bugs with the samples that are plausible and behave as the
    developer's fix on every input probed (``same-behaviour``) as the correct ones: likely correct
    (empty when ``behaviour_probed`` is False)."""
    ranked_likely_correct_pass_at_k: dict[str, dict[int, float]] = {}
    """Ranker key -> k -> fraction of scored bugs with a likely-correct candidate in the ranking's top k
    (empty when ``behaviour_probed`` is False)."""
    codebleu: CodeBleuSummary
    """CodeBLEU by verdict (Figure 4)."""
    bugs: list[BugRow] = Field(default_factory=list)
    """Every bug, in run order."""
    fixed_within: FixedWithin | None = None
    """Fixed within k samples and within the budget (None when the run has no configuration)."""
    cutoff_split: CutoffSplit | None = None
    """pass@k before and after a training cut-off (``nl2fix report --cutoff DATE``)."""
    flag_split: list[GroupPassAtK] = Field(default_factory=list)
    """pass@k over the scored bugs with each difficulty flag, and over those with none."""
    cost: CostSummary | None = None
    """Tokens, dollars and generation seconds, in all and per bug fixed."""
    plausible_at_1: float | None = None
    """RepairBench's Plausible@1 over every bug (each bug's plausible samples / its samples, averaged;
    a broken benchmark entry counts, as in RepairBench); None without samples."""
    ast_match_at_1: float | None = None
    """RepairBench's AST Match@1 over every bug, likewise (None: AST match unavailable)."""
    models: list[ModelRow] = Field(default_factory=list)
    """Per model, for a run that holds several (an imported published set); empty otherwise."""
    published: PublishedComparison | None = None
    """The publisher's verdicts beside nl2fix's (None: no sample has a published verdict)."""

    @property
    def scored_bugs(self) -> list[BugRow]:
        return [b for b in self.bugs if b.ground_truth is not GroundTruth.FAILS]

    @property
    def broken_bugs(self) -> list[BugRow]:
        return [b for b in self.bugs if b.ground_truth is GroundTruth.FAILS]

    @property
    def nothing_judged(self) -> bool:
        """Every candidate's verdict is ``error``: the numbers would measure the harness, not the model."""
        return {v for b in self.bugs for v in b.verdicts} == {Verdict.ERROR.value}


# -- gathering -------------------------------------------------------------------------------------


class _BugFacts:
    """One bug's samples, candidates and verdicts, read once from the store."""

    def __init__(
        self,
        bug: Bug,
        samples: list[SampleRecord],
        candidates: list[CandidateRecord],
        verdicts: dict[str, ValidationRecord],
    ):
        self.bug = bug
        self.samples = samples
        self.candidates = candidates
        self.records = verdicts
        self.plausible_hashes = {h for h, r in verdicts.items() if r.verdict is Verdict.PLAUSIBLE}
        self.likely_correct_hashes = {
            h for h in self.plausible_hashes if (b := verdicts[h].behaviour) is not None and b.label is Behaviour.SAME
        }

    def verdict(self, hash: str) -> Verdict | None:
        record = self.records.get(hash)
        return record.verdict if record else None

    @cached_property
    def outcomes(self) -> list[metrics.SampleOutcome]:
        seen: set[str] = set()
        out = []
        for s in self.samples:
            if s.candidate_hash is None:
                out.append(metrics.SampleOutcome(extracted=False))
                continue
            record = self.records.get(s.candidate_hash)
            out.append(
                metrics.SampleOutcome(
                    extracted=True,
                    duplicate=s.candidate_hash in seen,
                    verdict=record.verdict if record else None,
                    regression=metrics.regression_status(
                        record.verdict, record.failing_tests, self.bug.trigger_tests, record.all_tests_ran
                    )
                    if record
                    else None,
                )
            )
            seen.add(s.candidate_hash)
        return out

    def candidate_verdicts(self) -> Counter[str]:
        return Counter(
            self.records[c.hash].verdict.value if c.hash in self.records else UNVALIDATED for c in self.candidates
        )

    @cached_property
    def baseline(self) -> BaselineCheck:
        return BaselineCheck(self.bug, fixed=self.records.get(FIXED), buggy=self.records.get(BUGGY))

    @property
    def ground_truth(self) -> GroundTruth:
        """The validation stage's own rule: the fixed version compiles and passes its trigger tests
        (regression tests it fails are discounted for every candidate). A harness error checks nothing."""
        fixed = self.baseline.fixed
        if fixed is None or fixed.verdict is Verdict.ERROR:
            return GroundTruth.UNCHECKED
        return GroundTruth.VALIDATES if self.baseline.ground_truth_ok else GroundTruth.FAILS

    def likely_correct_samples(self) -> int:
        return sum(c.count for c in self.candidates if c.hash in self.likely_correct_hashes)

    def behaviour_counts(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for c in self.candidates:
            if c.hash in self.plausible_hashes:
                b = self.records[c.hash].behaviour
                counts[b.label.value if b else UNKNOWN_BEHAVIOUR] += 1
        return dict(sorted(counts.items()))

    def divergences(self) -> list[Divergence]:
        out = []
        for c in self.candidates:
            b = self.records[c.hash].behaviour if c.hash in self.plausible_hashes else None
            if b is not None and b.label is Behaviour.DIVERGES:
                out.append(
                    Divergence(
                        hash=c.hash,
                        samples=c.count,
                        inputs=b.inputs,
                        input=b.shown_input,
                        fix_result=b.reference_result,
                        candidate_result=b.candidate_result,
                    )
                )
        return out

    @cached_property
    def ast_hashes(self) -> frozenset[str]:
        """Candidates whose syntax tree is the developer fix's."""
        if not self.bug.fixed_method:
            return frozenset()
        matches = ast_match.ast_matches([c.code for c in self.candidates], self.bug.fixed_method)
        return frozenset(c.hash for c, m in zip(self.candidates, matches) if m)

    def ast_samples(self) -> int:
        """Samples whose candidate has the developer fix's syntax tree."""
        return sum(c.count for c in self.candidates if c.hash in self.ast_hashes)

    @cached_property
    def _exact(self) -> list[CandidateRecord]:
        matches = metrics.exact_matches([c.code for c in self.candidates], self.bug.fixed_method)
        return [c for c, m in zip(self.candidates, matches) if m]

    def exact_samples(self) -> int:
        return sum(c.count for c in self._exact)

    def plausible_exact(self) -> bool:
        return any(c.hash in self.plausible_hashes for c in self._exact)


def _read_facts(store: RunStore, engine: str | None) -> list[_BugFacts]:
    samples: dict[str, list[SampleRecord]] = defaultdict(list)
    for s in store.samples():
        samples[s.bug_id].append(s)
    verdicts: dict[str, dict[str, ValidationRecord]] = defaultdict(dict)
    if engine is not None:
        for v in store.validations(engine=engine):
            verdicts[v.bug_id][v.hash] = v
    return [
        _BugFacts(bug, samples.get(bug.id, []), store.candidates(bug.id), verdicts.get(bug.id, {}))
        for bug in store.bugs()
    ]


def _rankings(store: RunStore, key: str, facts: list[_BugFacts]) -> dict[str, list[str]]:
    """Bug id -> ranked candidate hashes, for the bugs the ranker ranked."""
    orders = {f.bug.id: [e.hash for e in store.ranking(f.bug.id, key)] for f in facts}
    return {bug_id: hashes for bug_id, hashes in orders.items() if hashes}


def _covered(store: RunStore, key: str, ranked: dict[str, list[str]]) -> set[str]:
    """Bugs the ranker saw with candidates: those with entries, and those it ranked to an empty list
    (every candidate pruned or below the threshold), which a new ranking would not change."""
    info = ranking_info(store, key)
    return set(ranked) | set(info.bugs_with_candidates if info else ())


def _distribution(values: list[float]) -> Distribution:
    data = np.asarray(values, dtype=float)
    q1, median, q3 = np.quantile(data, [0.25, 0.5, 0.75])
    iqr = q3 - q1
    inside = data[(data >= q1 - 1.5 * iqr) & (data <= q3 + 1.5 * iqr)]
    return Distribution(
        count=int(data.size),
        mean=float(data.mean()),
        median=float(median),
        q1=float(q1),
        q3=float(q3),
        low=float(inside.min()),
        high=float(inside.max()),
    )


def _codebleu(store: RunStore, facts: list[_BugFacts], progress: bool) -> CodeBleuSummary:
    reason = codebleu_scores.unavailable_reason()
    if reason:
        return CodeBleuSummary(available=False, reason=reason)
    validated = {f.bug.id: [c for c in f.candidates if f.verdict(c.hash) not in (None, Verdict.ERROR)] for f in facts}
    scores, unscored = codebleu_scores.run_scores(store, validated, progress=progress)
    verdict_of = {
        (f.bug.id, c.hash): verdict
        for f in facts
        for c in validated[f.bug.id]
        if (verdict := f.verdict(c.hash)) is not None
    }
    by_verdict: dict[str, dict[str, Distribution]] = {}
    tests = []
    for ref in codebleu_scores.REFERENCES:
        groups: dict[Verdict, list[float]] = defaultdict(list)
        for key, verdict in verdict_of.items():
            if (*key, ref) in scores:
                groups[verdict].append(scores[(*key, ref)])
        by_verdict[ref] = {v.value: _distribution(groups[v]) for v in Verdict if v in groups}
        plausible = groups.get(Verdict.PLAUSIBLE, [])
        others = [x for v, vals in groups.items() if v is not Verdict.PLAUSIBLE for x in vals]
        if plausible and others:
            from scipy import stats  # scipy costs half a second to import; only reports need it

            result = stats.mannwhitneyu(plausible, others, alternative="greater")
            tests.append(
                RankSumTest(
                    reference=ref,
                    statistic=float(result.statistic),
                    p_value=float(result.pvalue),
                    plausible=len(plausible),
                    others=len(others),
                )
            )
    return CodeBleuSummary(available=True, unscored=unscored, by_verdict=by_verdict, tests=tests)


def _bug_row(f: _BugFacts, rankers: dict[str, dict[str, list[str]]], ast: bool) -> BugRow:
    outcomes = f.outcomes
    n, c = len(outcomes), sum(o.plausible for o in outcomes)
    verdicts = f.candidate_verdicts()
    fixed, buggy = f.baseline.fixed, f.baseline.buggy
    return BugRow(
        bug_id=f.bug.id,
        project=f.bug.project,
        ground_truth=f.ground_truth,
        fixed_verdict=fixed.verdict if fixed else None,
        buggy_verdict=buggy.verdict if buggy else None,
        ground_truth_detail="; ".join(f.baseline.problems),
        samples=n,
        unextractable=sum(not o.extracted for o in outcomes),
        unique_candidates=len(f.candidates),
        plausible_samples=c,
        unvalidated_candidates=verdicts[UNVALIDATED] + verdicts[Verdict.ERROR.value],
        verdicts=dict(sorted(verdicts.items())),
        pass_at_1=c / n if n else None,
        exact_match=f.exact_samples() > 0,
        ast_match_samples=f.ast_samples() if ast else None,
        likely_correct_samples=f.likely_correct_samples(),
        behaviour=f.behaviour_counts(),
        divergences=f.divergences(),
        hidden_characters=[c.hash for c in f.candidates if carried(c, f.records.get(c.hash))],
        first_likely_correct_rank={
            key: metrics.first_plausible_rank(order.get(f.bug.id, []), f.likely_correct_hashes)
            for key, order in rankers.items()
        },
        first_plausible_rank={
            key: metrics.first_plausible_rank(order.get(f.bug.id, []), f.plausible_hashes)
            for key, order in rankers.items()
        },
        issue_created=f.bug.issue_created,
        flags=[flag.value for flag in bug_flags(f.bug)],
        models=sorted({s.model for s in f.samples if s.model is not None}),
    )


def _warnings(
    facts: list[_BugFacts],
    rows: list[BugRow],
    engine: str | None,
    config: RunConfig | None,
    covered: dict[str, set[str]],
) -> list[str]:
    out = []
    if not rows:
        return ["the run has no bugs yet: start it with `nl2fix sample` or `nl2fix run`"]
    if engine is None:
        out.append("no candidate has been validated: every pass@k below is 0 until `nl2fix validate` runs")
    unvalidated = sum(r.verdicts.get(UNVALIDATED, 0) for r in rows)
    errors = sum(r.verdicts.get(Verdict.ERROR.value, 0) for r in rows)
    if engine is not None and unvalidated:
        out.append(
            f"{unvalidated} candidate(s) have no {engine} verdict yet and count as not plausible; "
            "run `nl2fix validate` to finish"
        )
    if errors:
        out.append(f"{errors} candidate(s) hit a harness error and count as not plausible; see `nl2fix show`")
    if config is not None:
        short = [r.bug_id for r in rows if r.samples < config.n]
        if short:
            out.append(
                f"{len(short)} bug(s) have fewer than n={config.n} samples ({', '.join(short[:5])}"
                f"{' ...' if len(short) > 5 else ''}); pass@k counts their missing samples as not plausible "
                "(re-run `nl2fix sample` if the run was interrupted)"
            )
    broken = [r.bug_id for r in rows if r.ground_truth is GroundTruth.FAILS]
    if broken:
        out.append(
            f"{len(broken)} bug(s) whose ground truth does not validate are left out of the headline: "
            + ", ".join(broken)
        )
    unchecked = sum(r.ground_truth is GroundTruth.UNCHECKED for r in rows)
    if engine is not None and unchecked:
        out.append(f"{unchecked} bug(s) have no verdict on their fixed version; they stay in the headline unchecked")
    out += problem_lines(f.baseline for f in facts if f.ground_truth is not GroundTruth.FAILS)
    with_candidates = {f.bug.id for f in facts if f.candidates}
    for key, ranked in covered.items():
        missing = with_candidates - ranked
        if missing:
            out.append(
                f"ranking {key} covers {len(with_candidates) - len(missing)} of {len(with_candidates)} bugs "
                "with candidates; run `nl2fix rank` again"
            )
    return out


def collect(
    run_dir: Path | str, *, codebleu: bool = True, progress: bool = False, cutoff: date | None = None
) -> ReportData:
    """Read a run directory's store and compute every number of its report (``cutoff``: split
    pass@k by a training cut-off date too)."""
    with RunStore(run_dir, read_only=True) as store:
        engine = verdict_engine(store)
        facts = _read_facts(store, engine)
        rankers = {key: _rankings(store, key, facts) for key in store.rankers()}
        covered = {key: _covered(store, key, order) for key, order in rankers.items()}
        config = store.config if store.has_config() else None
        rejudged: dict[str, dict[str, ValidationRecord]] = defaultdict(dict)
        if engine is not None and engine != REJUDGE_ENGINE:
            for v in store.validations(engine=REJUDGE_ENGINE):
                rejudged[v.bug_id][v.hash] = v
        costs = store.get_meta_json(PUBLISHED_COSTS) or {}
        environment = (store.get_meta_json(environment_key(engine)) or {}).get("summary", "") if engine else ""
        summary = (
            _codebleu(store, [f for f in facts if f.ground_truth is not GroundTruth.FAILS], progress)
            if codebleu
            else CodeBleuSummary(available=False, reason="CodeBLEU was not requested (--no-codebleu)")
        )
    ast_note = ast_match.unavailable_reason()
    rows = [_bug_row(f, rankers, ast_note is None) for f in facts]
    report = _assemble(
        RunInfo(
            run_dir=str(run_dir),
            config=config,
            engine=engine,
            environment=environment,
            rankers=sorted(rankers),
            nl2fix_version=__version__,
        ),
        facts,
        rows,
        summary,
        _warnings(facts, rows, engine, config, covered),
    )
    report.ast_match_note = ast_note or ""
    if config is not None:
        scored = [f for f, r in zip(facts, rows) if r.ground_truth is not GroundTruth.FAILS]
        report.fixed_within = fixed_within([sequence_of(f) for f in scored], config)
    report.flag_split = flag_split(report)
    if cutoff is not None:
        report.cutoff_split = cutoff_split(report, cutoff)
    report.cost = _cost(config, facts, rows)
    _repairbench(report, facts, rows, rejudged, costs, ast_note is None)
    return report


def unexplained_candidates(run_dir: Path | str) -> dict[str, set[str]]:
    """Bug id -> the candidates whose published verdict differs from nl2fix's for no known reason."""
    found = collect(run_dir, codebleu=False).published
    out: dict[str, set[str]] = defaultdict(set)
    for row in found.disagreements if found else []:
        if row.explanation is Explanation.UNEXPLAINED:
            out[row.bug_id].add(row.hash)
    return dict(out)


def samples_target(config: RunConfig | None) -> int:
    """The n every bug is counted with (its missing samples not plausible); 0 for an imported set, whose
    n per bug is what the set holds."""
    return 0 if config is None or is_import(config) else config.n


def _repairbench(
    report: ReportData,
    facts: list[_BugFacts],
    rows: list[BugRow],
    rejudged: dict[str, dict[str, ValidationRecord]],
    costs: dict[str, float],
    ast: bool,
) -> None:
    """RepairBench's Plausible@1 and AST Match@1, the numbers per model and the published verdicts."""
    sampled = [r for r in rows if r.samples]
    if sampled:
        report.plausible_at_1 = float(np.mean([r.plausible_samples / r.samples for r in sampled]))
        report.ast_match_at_1 = (
            float(np.mean([(r.ast_match_samples or 0) / r.samples for r in sampled])) if ast else None
        )
    answers = [
        BugAnswers(f.bug, f.samples, f.records, f.ast_hashes if ast else None, rejudged.get(f.bug.id, {}))
        for f in facts
    ]
    if has_models(answers):
        report.models = model_rows(answers, costs)
    report.published = comparison(answers)


def sequence_of(facts: _BugFacts) -> metrics.SampleSequence:
    """A bug's samples in the order they were drawn (index order), plausible or not."""
    return metrics.SampleSequence(
        plausible=tuple(s.candidate_hash in facts.plausible_hashes for s in facts.samples),
        tokens=tuple(s.prompt_tokens + s.completion_tokens for s in facts.samples),
    )


def sample_sequences(run_dir: Path | str, bug_ids: set[str]) -> list[metrics.SampleSequence]:
    """The sample sequences of ``bug_ids`` under the run's verdict engine (for comparisons at equal budgets)."""
    with RunStore(run_dir, read_only=True) as store:
        facts = _read_facts(store, verdict_engine(store))
    return [sequence_of(f) for f in facts if f.bug.id in bug_ids]


def fixed_within(sequences: list[metrics.SampleSequence], config: RunConfig) -> FixedWithin:
    positions = [metrics.first_plausible_position(s.plausible) for s in sequences]
    found = [p for p in positions if p is not None]
    # an imported set asked for nothing: its budget is the most answers a bug has
    budget = samples_target(config) or max((len(s.plausible) for s in sequences), default=0) or 1
    within = metrics.at_budget(sequences, budget)
    return FixedWithin(
        adaptive=config.conversation is not None,
        ks={k: metrics.fixed_within_k(positions, k) for k in metrics.PAPER_KS if k <= budget},
        budget=budget,
        fixed=within.fixed,
        mean_first_position=float(np.mean(found)) if found else None,
        samples=within.samples,
        tokens=within.tokens,
        tokens_per_fix=within.tokens_per_fix,
    )


# -- contamination and difficulty splits -----------------------------------------------------------


def group_pass_at_k(data: ReportData, name: str, rows: list[BugRow]) -> GroupPassAtK:
    """pass@k over ``rows`` (scored bugs), counting missing samples as the headline does."""
    target = samples_target(data.run.config)
    n = [max(r.samples, target) for r in rows]
    c = [r.plausible_samples for r in rows]
    return GroupPassAtK(
        group=name,
        bugs=len(rows),
        fixed=sum(x > 0 for x in c),
        pass_at_k=metrics.pass_at_k(n, c, list(data.pass_at_k)) if rows else {},
    )


def cutoff_split(data: ReportData, cutoff: date) -> CutoffSplit:
    """The scored bugs split by whether their issue was opened before ``cutoff`` (possibly seen in
    training), on or after it (unseen), or at an unknown date."""
    groups: dict[str, list[BugRow]] = {"before": [], "after": [], "unknown": []}
    for row in data.scored_bugs:
        day = row.issue_created[:10]
        groups["unknown" if not day else "before" if day < cutoff.isoformat() else "after"].append(row)
    names = {
        "before": f"issue opened before {cutoff}",
        "after": f"issue opened on or after {cutoff}",
        "unknown": "issue date unknown",
    }
    return CutoffSplit(
        cutoff=cutoff.isoformat(), groups=[group_pass_at_k(data, names[g], rows) for g, rows in groups.items() if rows]
    )


def flag_split(data: ReportData) -> list[GroupPassAtK]:
    """pass@k of the scored bugs with each difficulty flag, and of those with none (groups with bugs only)."""
    scored = data.scored_bugs
    groups = [(flag.value, [r for r in scored if flag.value in r.flags]) for flag in HardFlag]
    groups.append(("no flag", [r for r in scored if not r.flags]))
    return [group_pass_at_k(data, name, rows) for name, rows in groups if rows]


def _cost(config: RunConfig | None, facts: list[_BugFacts], rows: list[BugRow]) -> CostSummary:
    fixed = [r.bug_id for r in rows if r.ground_truth is not GroundTruth.FAILS and r.plausible_samples > 0]
    return summarize_cost(config, {f.bug.id: f.samples for f in facts}, fixed)


def _ast_at_k(samples: list[int], rows: list[BugRow], ks: list[int]) -> dict[int, float]:
    """AST match@k over ``rows`` (each counted as ``samples``), empty when AST match is unavailable."""
    counts = [r.ast_match_samples for r in rows]
    if not rows or any(c is None for c in counts):
        return {}
    return metrics.pass_at_k(samples, [c or 0 for c in counts], ks)


COMPARED = (Behaviour.SAME.value, Behaviour.DIVERGES.value)
"""The behaviour labels of a plausible candidate that was compared with the developer's fix."""


def behaviour_probed(rows: list[BugRow]) -> bool:
    """Whether likely correctness was measured: some plausible candidate was compared with the
    developer's fix, or none is plausible (then none is likely correct, probed or not)."""
    plausible = sum(n for r in rows for n in r.behaviour.values())
    return plausible == 0 or any(r.behaviour.get(label) for r in rows for label in COMPARED)


def _assemble(
    run: RunInfo, facts: list[_BugFacts], rows: list[BugRow], codebleu: CodeBleuSummary, warnings: list[str]
) -> ReportData:
    scored = [(f, r) for f, r in zip(facts, rows) if r.ground_truth is not GroundTruth.FAILS]
    n_scored = [r.samples for _, r in scored]
    c_scored = [r.plausible_samples for _, r in scored]
    # Missing samples are never scored as passes: every bug counts as the run's n samples, so a bug the
    # model could not be asked about (a prompt too long, nothing to mutate) counts as unsolved.
    target = samples_target(run.config)
    n_pass = [max(n, target) for n in n_scored]
    ks = metrics.reportable_ks(n_pass)
    intervals = {k: metrics.bootstrap_mean_interval(metrics.estimate_pass_at_k(n_pass, c_scored, k)) for k in ks}
    fixed = sum(r.plausible_samples > 0 for _, r in scored)

    probed = behaviour_probed(rows)
    per_project: dict[str, list[BugRow]] = defaultdict(list)
    for r in rows:
        per_project[r.project].append(r)
    projects = []
    for name in sorted(per_project):
        bugs = [r for r in per_project[name] if r.ground_truth is not GroundTruth.FAILS]
        won = sum(r.plausible_samples > 0 for r in bugs)
        samples = [max(r.samples, target) for r in bugs]
        projects.append(
            ProjectRow(
                project=name,
                bugs=len(bugs),
                fixed=won,
                fraction=won / len(bugs) if bugs else 0.0,
                ground_truth_fails=len(per_project[name]) - len(bugs),
                pass_at_k=metrics.pass_at_k(samples, [r.plausible_samples for r in bugs], ks),
                likely_correct_pass_at_k=metrics.pass_at_k(samples, [r.likely_correct_samples for r in bugs], ks)
                if probed
                else {},
                ast_match_at_k=_ast_at_k(samples, bugs, ks),
            )
        )

    rates = [metrics.candidate_rates(f.outcomes) for f, _ in scored]
    means = metrics.mean_rates(rates)
    verdict_totals: Counter = Counter()
    for _, r in scored:
        verdict_totals.update(r.verdicts)
    candidates = CandidateStats(
        bugs=sum(1 for rate in rates if rate.samples),
        samples=sum(n_scored),
        unique_candidates=sum(r.unique_candidates for _, r in scored),
        verdicts=dict(sorted(verdict_totals.items())),
        **means,
    )

    exact_bugs = [r for _, r in scored if r.exact_match]
    exact = ExactMatchStats(
        bugs=len(scored),
        bugs_with_exact_match=len(exact_bugs),
        bugs_with_plausible_exact_match=sum(f.plausible_exact() for f, _ in scored),
        samples=sum(n_scored),
        exact_match_samples=sum(f.exact_samples() for f, _ in scored),
        fraction_of_bugs=len(exact_bugs) / len(scored) if scored else 0.0,
        fraction_of_fixed_bugs=sum(r.plausible_samples > 0 for r in exact_bugs) / fixed if fixed else 0.0,
    )

    return ReportData(
        run=run,
        warnings=warnings,
        bug_counts=BugCounts(
            selected=len(rows),
            scored=len(scored),
            ground_truth_fails=len(rows) - len(scored),
            ground_truth_unchecked=sum(r.ground_truth is GroundTruth.UNCHECKED for r in rows),
            fixed=fixed,
            fixed_all=sum(r.plausible_samples > 0 for r in rows),
            fixed_interval=metrics.wilson_interval(fixed, len(scored)),
        ),
        pass_at_k=metrics.pass_at_k(n_pass, c_scored),
        pass_at_k_interval=intervals,
        pass_at_k_all_bugs=metrics.pass_at_k(
            [max(r.samples, target) for r in rows], [r.plausible_samples for r in rows]
        ),
        pass_at_k_curve=metrics.pass_at_k_curve(n_pass, c_scored),
        ranked_pass_at_k={
            key: {k: metrics.ranked_pass_at_k([r.first_plausible_rank[key] for _, r in scored], k) for k in RANKED_KS}
            for key in run.rankers
        },
        per_project=projects,
        candidates=candidates,
        exact_match=exact,
        ast_match_at_k=_ast_at_k(n_pass, [r for _, r in scored], ks),
        behaviour_probed=probed,
        likely_correct_pass_at_k=metrics.pass_at_k(n_pass, [r.likely_correct_samples for _, r in scored])
        if probed
        else {},
        ranked_likely_correct_pass_at_k={
            key: {
                k: metrics.ranked_pass_at_k([r.first_likely_correct_rank[key] for _, r in scored], k) for k in RANKED_KS
            }
            for key in run.rankers
        }
        if probed
        else {},
        codebleu=codebleu,
        bugs=rows,
    )
