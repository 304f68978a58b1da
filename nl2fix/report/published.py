"""A run that holds several models' answers (an imported published set): numbers per model, in
RepairBench's definitions beside pass@k, and the publisher's verdicts beside nl2fix's.

RepairBench's metrics (Silva & Monperrus 2024), per model over the bugs it answered (a broken benchmark
entry included, as RepairBench counts every bug): **Plausible@1** is the mean over bugs of the share of
a bug's samples that are plausible (pass@1 with n = the samples the bug holds); **AST Match@1** the
mean share of samples whose syntax tree is the developer fix's (comments and formatting aside).

Where the publisher's verdict (plausible or not) and nl2fix's differ, the candidate is classified by
what explains it, first match wins: the publisher's buggy method is another revision; it compiles
here but not there, or there but not here (a source level or a Java version); nl2fix's only failing
tests are regression tests, which another test set may not hold (a test that differs); else
unexplained, which ``nl2fix validate --rejudge-unexplained`` re-judges with the defects4j engine.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from nl2fix.core.domain import Bug, Engine, Verdict
from nl2fix.report import metrics
from nl2fix.store.records import SampleRecord, ValidationRecord

COMPILED = (Verdict.PLAUSIBLE, Verdict.WRONG, Verdict.REJECTED)
REJUDGE_ENGINE = Engine.DEFECTS4J.value


class Explanation(str, enum.Enum):
    REVISION = "revision"
    """The publisher's buggy method is not the dataset's: another revision of the code."""
    COMPILES_HERE = "compiles-here"
    """It compiles here but did not there: a source level or a Java version."""
    COMPILES_THERE = "compiles-there"
    """It compiled there but does not here: a source level or a Java version."""
    TEST_DIFFERS = "test-differs"
    """nl2fix fails it only on regression tests, which the publisher's test set may not hold."""
    UNEXPLAINED = "unexplained"


class _Model(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class ModelRow(_Model):
    """One model's numbers in a run that holds several."""

    model: str
    """The model's name, as the set gives it."""
    bugs: int
    """Bugs it answered."""
    samples: int
    """Its answers."""
    fixed: int
    """Bugs with a plausible answer of it."""
    plausible_at_1: float
    """RepairBench's Plausible@1: mean over its bugs of plausible answers / answers."""
    ast_match_at_1: float | None
    """RepairBench's AST Match@1 (None: AST match unavailable)."""
    pass_at_k: dict[int, float]
    """k -> pass@k over its bugs, each with n = its answers for the bug."""
    published_plausible_at_1: float | None
    """Plausible@1 by the publisher's verdicts (None: the set gives none)."""
    agree: int
    """Answers with a published verdict that nl2fix judged the same way (plausible or not)."""
    disagree: int
    """Answers whose published verdict nl2fix's differs from."""
    cost: float | None = None
    """Dollars the publisher reports the model cost over the whole set (None: not given)."""


class Disagreement(_Model):
    """One candidate whose published verdict and nl2fix's differ."""

    bug_id: str
    """``Project-N``."""
    hash: str
    """Candidate hash."""
    models: list[str]
    """The models whose answers it is, with that published verdict."""
    published: str
    """The publisher's verdict word."""
    verdict: Verdict
    """nl2fix's verdict under the report's engine."""
    explanation: Explanation
    """What explains the difference (``unexplained``: nothing known)."""
    detail: str = ""
    """What the explanation rests on: the failing tests, the compiler's first error."""
    rejudged: Verdict | None = None
    """The defects4j engine's verdict, when it re-judged the candidate (``--rejudge-unexplained``)."""


class PublishedComparison(_Model):
    """The publisher's verdicts beside nl2fix's, over the answers that have both."""

    compared: int
    """Answers with a published verdict and an nl2fix verdict."""
    agree: int
    """Of which nl2fix judged as the publisher did (plausible or not)."""
    disagree: int
    """Of which nl2fix judged otherwise (an answer with no method here counts as not plausible)."""
    by_explanation: dict[str, int]
    """Disagreeing candidates by explanation."""
    rejudged_agree_with_nl2fix: int
    """Re-judged candidates where the defects4j engine gave nl2fix's verdict."""
    rejudged_agree_with_publisher: int
    """Re-judged candidates where the defects4j engine gave the publisher's verdict."""
    disagreements: list[Disagreement]
    """Each candidate whose published verdict differs from nl2fix's, once per published verdict word."""


@dataclass(frozen=True)
class BugAnswers:
    """One bug's answers and verdicts, as the report read them."""

    bug: Bug
    samples: Sequence[SampleRecord]
    records: dict[str, ValidationRecord]
    """Verdicts by candidate hash under the report's engine."""
    ast_hashes: frozenset[str] | None
    """Candidates whose syntax tree is the fix's (None: AST match unavailable)."""
    rejudged: dict[str, ValidationRecord]
    """The defects4j engine's verdicts by hash, when the report reads another engine's."""


def has_models(bugs: Sequence[BugAnswers]) -> bool:
    return any(s.model is not None for b in bugs for s in b.samples)


def _judged(b: BugAnswers, s: SampleRecord) -> ValidationRecord | None:
    record = b.records.get(s.candidate_hash or "")
    return record if record is not None and record.verdict is not Verdict.ERROR else None


def _disagrees(b: BugAnswers, s: SampleRecord) -> bool | None:
    """Whether the publisher and nl2fix differ on the sample (None: one of them gives no verdict)."""
    if s.published is None or s.published.plausible is None:
        return None
    if s.candidate_hash is None:
        return s.published.plausible  # no method here: not plausible
    record = _judged(b, s)
    return None if record is None else (record.verdict is Verdict.PLAUSIBLE) != s.published.plausible


def _share(counts: list[int], totals: list[int]) -> float:
    """The mean over bugs of count / total (RepairBench's @1)."""
    return float(np.mean([x / m for x, m in zip(counts, totals, strict=True)]))


def model_rows(bugs: Sequence[BugAnswers], costs: dict[str, float]) -> list[ModelRow]:
    per: dict[str, dict[str, list[SampleRecord]]] = defaultdict(lambda: defaultdict(list))
    facts = {b.bug.id: b for b in bugs}
    for b in bugs:
        for s in b.samples:
            per[s.model or "-"][b.bug.id].append(s)
    rows = []
    for model, by_bug in sorted(per.items()):
        n, c, ast, published = [], [], [], []
        agree = disagree = 0
        for bug_id, samples in by_bug.items():
            b = facts[bug_id]
            n.append(len(samples))
            c.append(sum(1 for s in samples if (r := _judged(b, s)) is not None and r.verdict is Verdict.PLAUSIBLE))
            ast.append(sum(1 for s in samples if b.ast_hashes is not None and s.candidate_hash in b.ast_hashes))
            published.append(sum(1 for s in samples if s.published is not None and s.published.plausible))
            for s in samples:
                differs = _disagrees(b, s)
                agree += differs is False
                disagree += differs is True
        with_verdict = any(
            s.published is not None and s.published.plausible is not None
            for samples in by_bug.values()
            for s in samples
        )
        rows.append(
            ModelRow(
                model=model,
                bugs=len(n),
                samples=sum(n),
                fixed=sum(x > 0 for x in c),
                plausible_at_1=_share(c, n),
                ast_match_at_1=_share(ast, n) if all(facts[i].ast_hashes is not None for i in by_bug) else None,
                pass_at_k=metrics.pass_at_k(n, c),
                published_plausible_at_1=_share(published, n) if with_verdict else None,
                agree=agree,
                disagree=disagree,
                cost=costs.get(model),
            )
        )
    return rows


def _explain(b: BugAnswers, s: SampleRecord, record: ValidationRecord) -> tuple[Explanation, str]:
    assert s.published is not None
    if s.published.base_differs:
        return Explanation.REVISION, "the publisher's buggy method differs from the dataset's"
    if record.verdict in COMPILED and s.published.compiled is False:
        return Explanation.COMPILES_HERE, f"published {s.published.verdict}; {record.verdict.value} here"
    if record.verdict is Verdict.UNCOMPILABLE and s.published.compiled:
        return Explanation.COMPILES_THERE, record.compile_errors.split("\n", 1)[0]
    triggers = set(b.bug.trigger_tests)
    if record.verdict is Verdict.WRONG and record.failing_tests and not triggers & set(record.failing_tests):
        return Explanation.TEST_DIFFERS, "fails only regression tests here: " + ", ".join(record.failing_tests[:3])
    return Explanation.UNEXPLAINED, ", ".join(record.failing_tests[:3]) or record.detail.split("\n", 1)[0]


def comparison(bugs: Sequence[BugAnswers]) -> PublishedComparison | None:
    """The published verdicts beside nl2fix's; None when no answer has a published verdict."""
    compared = agree = 0
    found: dict[tuple[str, str, str], Disagreement] = {}
    for b in bugs:
        for s in b.samples:
            differs = _disagrees(b, s)
            if differs is None:
                continue
            compared += 1
            agree += not differs
            record = _judged(b, s)
            if not differs or record is None or s.published is None:
                continue  # a sample without a method: nothing to re-judge
            key = (b.bug.id, record.hash, s.published.verdict or "")
            if key in found:
                found[key].models = sorted({*found[key].models, s.model or "-"})
                continue
            explanation, detail = _explain(b, s, record)
            again = b.rejudged.get(record.hash)
            found[key] = Disagreement(
                bug_id=b.bug.id,
                hash=record.hash,
                models=[s.model or "-"],
                published=s.published.verdict or "",
                verdict=record.verdict,
                explanation=explanation,
                detail=detail,
                rejudged=again.verdict if again is not None else None,
            )
    if not compared:
        return None
    rows = list(found.values())
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row.explanation.value] += 1
    rejudged = [r for r in rows if r.rejudged is not None and r.rejudged is not Verdict.ERROR]
    return PublishedComparison(
        compared=compared,
        agree=agree,
        disagree=compared - agree,
        by_explanation=dict(sorted(counts.items())),
        rejudged_agree_with_nl2fix=sum(
            (r.rejudged is Verdict.PLAUSIBLE) == (r.verdict is Verdict.PLAUSIBLE) for r in rejudged
        ),
        rejudged_agree_with_publisher=sum(
            (r.rejudged is Verdict.PLAUSIBLE) != (r.verdict is Verdict.PLAUSIBLE) for r in rejudged
        ),
        disagreements=rows,
    )
