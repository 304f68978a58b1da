"""The paper's metrics as pure functions of counts and verdicts.

pass@k uses the unbiased estimator of Chen et al. (2021), ``1 - C(n-c, k) / C(n, k)``, in the
product form ``1 - prod(1 - k / arange(n-c+1, n+1))`` so that n = 100 never builds a
binomial coefficient; it is averaged over bugs, for the k every bug has samples for.
Duplicates count as samples (the paper's rule); a sample with no extractable method, or whose
candidate was never validated, counts as incorrect: what did not run is never scored as a pass.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

import numpy as np

from nl2fix.core.domain import Verdict
from nl2fix.java_source.text import normalise

PAPER_KS = (1, 5, 10, 20, 100)
"""The k the paper reports pass@k for."""


def estimate_pass_at_k(num_samples: int | Sequence[int], num_correct: Sequence[int], k: int) -> np.ndarray:
    """Unbiased pass@k of each problem, as evalplus/human-eval compute it (vectorised over problems)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    correct = [int(c) for c in num_correct]
    totals = (
        itertools.repeat(int(num_samples), len(correct)) if isinstance(num_samples, (int, np.integer)) else num_samples
    )
    out = []
    for n, c in zip(totals, correct, strict=True):
        n = int(n)
        if not 0 <= c <= n:
            raise ValueError(f"correct samples ({c}) must lie between 0 and the sample count ({n})")
        if n < k:
            raise ValueError(f"pass@{k} needs at least {k} samples, this problem has {n}")
        out.append(1.0 if n - c < k else 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1))))
    return np.asarray(out, dtype=float)


def reportable_ks(sample_counts: Sequence[int], ks: Iterable[int] = PAPER_KS) -> list[int]:
    """The k every bug has at least k samples for (human-eval's rule: no bug is left out of an average)."""
    if not sample_counts:
        return []
    least = min(sample_counts)
    return [k for k in ks if k <= least]


def pass_at_k(
    sample_counts: Sequence[int], correct_counts: Sequence[int], ks: Iterable[int] = PAPER_KS
) -> dict[int, float]:
    """Mean pass@k over bugs, for each reportable k."""
    return {
        k: float(estimate_pass_at_k(sample_counts, correct_counts, k).mean()) for k in reportable_ks(sample_counts, ks)
    }


def pass_at_k_curve(sample_counts: Sequence[int], correct_counts: Sequence[int]) -> list[float]:
    """Mean pass@k for k = 1 .. the smallest sample count (the paper's Figure 2)."""
    if not sample_counts:
        return []
    return list(pass_at_k(sample_counts, correct_counts, range(1, min(sample_counts) + 1)).values())


def ranked_pass_at_k(first_plausible_ranks: Sequence[int | None], k: int) -> float:
    """r.pass@k: the fraction of bugs whose ranking has a plausible candidate among its top k.

    ``first_plausible_ranks`` holds, per bug, the 1-based rank of its best-placed plausible
    candidate, or None when no ranked candidate is plausible (or the bug has no ranking)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    if not first_plausible_ranks:
        return 0.0
    return sum(r is not None and r <= k for r in first_plausible_ranks) / len(first_plausible_ranks)


def first_plausible_rank(ranked_hashes: Sequence[str], plausible: set[str]) -> int | None:
    return next((i for i, h in enumerate(ranked_hashes, start=1) if h in plausible), None)


def exact_matches(candidates: Iterable[str], reference: str) -> list[bool]:
    """Per candidate: the same code as ``reference`` once whitespace and comments are ignored."""
    target = normalise(reference)
    return [normalise(c) == target for c in candidates]


class RegressionStatus(str, enum.Enum):
    """Whether a candidate passed the regression (relevant, non-trigger) tests."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_REACHED = "not-reached"
    """Validation stopped before the regression tests (a trigger test failed first)."""


def regression_status(
    verdict: Verdict, failing_tests: Sequence[str], trigger_tests: Sequence[str], all_tests_ran: bool = False
) -> RegressionStatus:
    """Plausible candidates passed everything; a failure outside the trigger tests is a regression;
    a candidate that only failed trigger tests passed the regression tests when every test ran
    (``validate --all-tests``), else it stopped before they ran.
    Anything that did not compile or finish did not pass."""
    if verdict is Verdict.PLAUSIBLE:
        return RegressionStatus.PASSED
    if verdict is not Verdict.WRONG:
        return RegressionStatus.FAILED
    triggers = set(trigger_tests)
    if any(t not in triggers for t in failing_tests) or not failing_tests:
        return RegressionStatus.FAILED
    return RegressionStatus.PASSED if all_tests_ran else RegressionStatus.NOT_REACHED


@dataclass(frozen=True)
class SampleOutcome:
    """One sample as the metrics see it."""

    extracted: bool
    duplicate: bool = False
    """Its candidate equals that of an earlier sample of the same bug."""
    verdict: Verdict | None = None
    """None when its candidate has no verdict (yet) under the report's engine."""
    regression: RegressionStatus | None = None

    @property
    def plausible(self) -> bool:
        return self.verdict is Verdict.PLAUSIBLE

    @property
    def compiled(self) -> bool:
        return self.verdict in (Verdict.PLAUSIBLE, Verdict.WRONG, Verdict.REJECTED)


@dataclass(frozen=True)
class BugCandidateRates:
    """Table 2's rates for one bug, as fractions of its samples."""

    samples: int
    duplicates: float
    unextractable: float
    compile: float
    regression_pass: float
    regression_not_reached: float
    plausible: float
    unvalidated: float
    """Extracted samples whose candidate has no verdict, or an ``error`` verdict."""


_RATES = tuple(f.name for f in fields(BugCandidateRates) if f.name != "samples")


def candidate_rates(outcomes: Sequence[SampleOutcome]) -> BugCandidateRates:
    n = len(outcomes)
    if n == 0:
        return BugCandidateRates(0, *[0.0] * len(_RATES))

    def frac(pred) -> float:
        return sum(1 for o in outcomes if pred(o)) / n

    return BugCandidateRates(
        samples=n,
        duplicates=frac(lambda o: o.duplicate),
        unextractable=frac(lambda o: not o.extracted),
        compile=frac(lambda o: o.compiled),
        regression_pass=frac(lambda o: o.regression is RegressionStatus.PASSED),
        regression_not_reached=frac(lambda o: o.regression is RegressionStatus.NOT_REACHED),
        plausible=frac(lambda o: o.plausible),
        unvalidated=frac(lambda o: o.extracted and o.verdict in (None, Verdict.ERROR)),
    )


def mean_rates(per_bug: Sequence[BugCandidateRates]) -> dict[str, float]:
    """Table 2: each rate averaged over bugs (bugs without samples are left out)."""
    rows = [r for r in per_bug if r.samples]
    if not rows:
        return {name: 0.0 for name in _RATES}
    return {name: float(np.mean([getattr(r, name) for r in rows])) for name in _RATES}


def wilson_interval(successes: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); (0, 1) when there is no data."""
    if total == 0:
        return (0.0, 1.0)
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_mean_interval(
    values: Sequence[float] | np.ndarray, *, level: float = 0.95, rounds: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean over bugs; seeded so reports are reproducible."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (0.0, 1.0)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(rounds, data.size))].mean(axis=1)
    tail = (1 - level) / 2
    return (float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail)))


# -- adaptive sampling: where the first plausible sample came ------------------------------------
# pass@k's estimator assumes a bug's n samples are independent draws; a conversation, whose later
# samples depend on the verdicts of earlier ones, breaks that. What stays honest for both is the
# order the samples were drawn in: the position of the first plausible one, and what was spent
# (samples, tokens) to reach it.


@dataclass(frozen=True)
class SampleSequence:
    """One bug's samples in the order they were drawn."""

    plausible: tuple[bool, ...]
    tokens: tuple[int, ...]
    """Prompt + completion tokens of each sample."""


def first_plausible_position(plausible: Sequence[bool]) -> int | None:
    """1-based position of the first plausible sample, None when there is none."""
    return next((i for i, p in enumerate(plausible, start=1) if p), None)


def fixed_within_k(positions: Sequence[int | None], k: int) -> float:
    """The fraction of bugs whose first plausible sample is among their first ``k``."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    return sum(p is not None and p <= k for p in positions) / len(positions) if positions else 0.0


@dataclass(frozen=True)
class BudgetOutcome:
    """What a run achieved, and spent, within a budget of samples per bug."""

    budget: int
    bugs: int
    fixed: int
    """Bugs with a plausible sample among their first ``budget``."""
    samples: int
    """Samples drawn within the budget, over all bugs (a bug that stopped early spends less)."""
    tokens: int
    """Their prompt + completion tokens."""

    @property
    def samples_per_fix(self) -> float | None:
        return self.samples / self.fixed if self.fixed else None

    @property
    def tokens_per_fix(self) -> float | None:
        return self.tokens / self.fixed if self.fixed else None


def at_budget(sequences: Sequence[SampleSequence], budget: int) -> BudgetOutcome:
    """Each bug's first ``budget`` samples: the bugs fixed and what they cost."""
    if budget < 1:
        raise ValueError(f"a budget is at least 1 sample, not {budget}")
    return BudgetOutcome(
        budget=budget,
        bugs=len(sequences),
        fixed=sum(any(s.plausible[:budget]) for s in sequences),
        samples=sum(min(budget, len(s.plausible)) for s in sequences),
        tokens=sum(sum(s.tokens[:budget]) for s in sequences),
    )
