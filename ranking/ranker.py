"""Ranking maths: cosine similarity, the threshold, and a total order on candidates.

Every order is total: ties in the score are broken by the candidate's first sample index and
then its hash, so the same input gives the same order in any process, on any machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from nl2fix.core.domain import Verdict
from nl2fix.store.records import CandidateRecord, ValidationRecord
from nl2fix.validation.behaviour import clusters
from ranking.spec import MEDIAN, Method

SCORE_DECIMALS = 10
"""Similarities are rounded so that floating-point noise (BLAS summation order) cannot reorder candidates."""


@dataclass(frozen=True)
class Scored:
    """One unique candidate with the score its ranking follows."""

    hash: str
    score: float
    first_index: int


def _dense(matrix) -> np.ndarray:
    import scipy.sparse

    return matrix.toarray() if scipy.sparse.issparse(matrix) else np.asarray(matrix)


def cosine_similarities(query, rows) -> np.ndarray:
    """Cosine similarity of each row of ``rows`` with ``query`` (dense arrays or scipy sparse rows).

    A zero vector (a text with no tokens) has similarity 0 with everything.
    """
    q = _dense(query).astype(np.float64).ravel()
    m = _dense(rows).astype(np.float64).reshape(-1, q.size)
    norms = np.linalg.norm(m, axis=1) * np.linalg.norm(q)
    dots = m @ q
    sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return np.round(sims, SCORE_DECIMALS)


def median_similarity(scores: Iterable[float]) -> float | None:
    """The median of ``scores``, or None when there are none."""
    values = list(scores)
    return round(float(np.median(values)), SCORE_DECIMALS) if values else None


def resolve_threshold(threshold: str | float, all_scores: Iterable[float]) -> float | None:
    """The numeric threshold: the median of ``all_scores`` for ``"median"``, else the number itself."""
    return median_similarity(all_scores) if threshold == MEDIAN else float(threshold)


def _ascending(s: Scored) -> tuple:
    return (s.score, s.first_index, s.hash)


def _descending(s: Scored) -> tuple:
    return (-s.score, s.first_index, s.hash)


def order(method: Method, scored: Iterable[Scored], threshold: float | None = None) -> list[Scored]:
    """Candidates in ranked order under ``method``.

    ``paper``: drop scores below ``threshold`` (None keeps all), then lowest similarity first. The
    paper orders this way because, among candidates close enough to the buggy method to be on
    topic, the least similar ones are the ones that changed something; a candidate identical to
    the buggy method (similarity 1.0) is kept but comes last.
    ``frequency`` and ``similarity-desc``: highest score first (duplicate count or similarity).
    """
    items = list(scored)
    if method is Method.PAPER:
        kept = [s for s in items if threshold is None or s.score >= threshold]
        return sorted(kept, key=_ascending)
    return sorted(items, key=_descending)


def cluster_order(
    scored: Iterable[Scored], records: dict[str, ValidationRecord], samples: dict[str, int]
) -> list[Scored]:
    """The cluster ranker's order (see :attr:`Method.CLUSTER`): each behaviour cluster's most typical
    member (most samples, then the paper's order), largest cluster first; then every other plausible
    candidate; then the rest. ``scored`` holds similarities; ``records`` the verdicts by hash."""
    paper = order(Method.PAPER, scored)
    plausible = [s.hash for s in paper if (r := records.get(s.hash)) is not None and r.verdict is Verdict.PLAUSIBLE]
    behaviours = {h: b for h in plausible if (b := records[h].behaviour) is not None}
    first = [c.members[0] for c in clusters(behaviours, samples, order=plausible)]
    rank = {h: i for i, h in enumerate(first)}
    rank.update({h: len(first) + i for i, h in enumerate(h for h in plausible if h not in rank)})
    return sorted(paper, key=lambda s: rank.get(s.hash, len(rank)))


UNFIT = (Verdict.UNCOMPILABLE, Verdict.REJECTED)
"""Verdicts that say a candidate is no fix whatever the tests say: it does not compile, or it was
rejected for changing more than its method or reaching for the harness."""


def drop_unfit(
    candidates: list[CandidateRecord], verdicts: dict[str, Verdict]
) -> tuple[list[CandidateRecord], int, int]:
    """The candidates not known to be unfit (``verdicts`` by hash), how many were dropped, and how
    many were kept only because they have no verdict yet."""
    kept = [c for c in candidates if verdicts.get(c.hash) not in UNFIT]
    unvalidated = sum(c.hash not in verdicts for c in kept)
    return kept, len(candidates) - len(kept), unvalidated
