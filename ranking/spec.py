"""What a ranking is: its method, embedder, threshold and pruning, and the key it is stored under."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nl2fix.core.errors import Nl2FixError
from nl2fix.store.records import RankingInfo

if TYPE_CHECKING:
    from nl2fix.store.run_store import RunStore

MEDIAN = "median"
INFO_PREFIX = "ranking:"
"""Meta key prefix of each ranker's :class:`RankingInfo` in the run store."""


class Method(str, enum.Enum):
    PAPER = "paper"
    """Drop candidates below the similarity threshold, then lowest similarity first (the paper's ranker)."""
    FREQUENCY = "frequency"
    """Most duplicated candidate first (self-consistency / majority vote); needs no embeddings."""
    SIMILARITY_DESC = "similarity-desc"
    """Highest similarity to the buggy method first, nothing dropped (the opposite of the paper's order)."""
    CLUSTER = "cluster"
    """Plausible candidates by behaviour cluster (AlphaCode / CodeT): the largest cluster's most typical
    member first, then each other cluster's; then the other plausible candidates, then the rest, each
    group in the paper's order without its threshold. Needs verdicts; behaviour from the probes."""

    @property
    def uses_embeddings(self) -> bool:
        return self is not Method.FREQUENCY

    @property
    def uses_threshold(self) -> bool:
        return self is Method.PAPER


ALL_METHODS = "all"
"""``method="all"`` writes one ranking per method from one embedding pass."""


def parse_methods(text: str) -> list[Method]:
    if text == ALL_METHODS:
        return list(Method)
    try:
        return [Method(text)]
    except ValueError:
        choices = ", ".join([m.value for m in Method] + [ALL_METHODS])
        raise Nl2FixError(f"unknown ranking method {text!r}", f"choose one of {choices}") from None


def parse_threshold(value: str | float) -> str | float:
    """``"median"`` or a finite number (a string such as ``"0.95"`` is read as one)."""
    if isinstance(value, str) and value.strip().lower() == MEDIAN:
        return MEDIAN
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise Nl2FixError(f"threshold {value!r} is neither `median` nor a number", "e.g. --threshold 0.95")
    return number


@dataclass(frozen=True)
class RankerSpec:
    """One ranking to compute; ``embedder`` and ``threshold`` are None for methods that do not use them."""

    method: Method
    embedder: str | None = None
    threshold: str | float | None = None
    pruned: bool = False

    @property
    def key(self) -> str:
        """``paper:<embedder>:<threshold>``, ``similarity-desc:<embedder>``, ``frequency``; ``:pruned`` appended."""
        parts = [self.method.value]
        if self.embedder is not None:
            parts.append(self.embedder)
        if self.threshold is not None:
            parts.append(self.threshold if isinstance(self.threshold, str) else f"{self.threshold:g}")
        if self.pruned:
            parts.append("pruned")
        return ":".join(parts)


def ranker_specs(methods: list[Method], embedder: str | None, threshold: str | float, pruned: bool) -> list[RankerSpec]:
    return [
        RankerSpec(
            method=m,
            embedder=embedder if m.uses_embeddings else None,
            threshold=parse_threshold(threshold) if m.uses_threshold else None,
            pruned=pruned,
        )
        for m in methods
    ]


DEFAULT_KEY = RankerSpec(Method.PAPER, "tfidf", MEDIAN).key
"""What ``nl2fix rank`` writes with no options: ``paper:tfidf:median``."""


def ranking_info(store: RunStore, key: str) -> RankingInfo | None:
    """How the rankings under ``key`` were made; here, not in ``ranking.run``, so reports read it without
    loading the embedders."""
    data = store.get_meta_json(INFO_PREFIX + key)
    return None if data is None else RankingInfo.model_validate(data)
