"""One-shot example choice: the other bug whose comment-free buggy method is closest by edit distance.

Distance is Levenshtein over code tokens (whitespace and comments ignored). Finding the nearest of
283 methods for each of 283 bugs takes seconds: a cheap lower bound (token-count differences)
orders and prunes the candidates, each exact comparison is bit-parallel and stops as soon as it
cannot beat the best distance found so far.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nl2fix.core.domain import Bug
from nl2fix.java_source.lexer import words
from nl2fix.java_source.text import remove_comments


def bit_masks(seq: Sequence[int]) -> dict[int, int]:
    """For each symbol, the bit mask of its positions in ``seq`` (input to :func:`edit_distance`)."""
    masks: dict[int, int] = {}
    for i, symbol in enumerate(seq):
        masks[symbol] = masks.get(symbol, 0) | (1 << i)
    return masks


def edit_distance(a: Sequence[int], b: Sequence[int], cutoff: int | None = None, b_masks: dict | None = None) -> int:
    """Levenshtein distance between two sequences; any value above ``cutoff`` means "more than
    cutoff" (the computation stops as soon as that is certain). Fastest with ``a`` the shorter.

    Myers' bit-parallel algorithm (Hyyro's formulation for edit distance): one column of the
    dynamic-programming table per symbol of ``a``, the whole column in one Python integer.
    """
    m = len(b)
    if m == 0:
        return len(a)
    masks = b_masks if b_masks is not None else bit_masks(b)
    full, top = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = full, 0, m
    remaining = len(a)
    limit = len(a) + m if cutoff is None else cutoff
    for symbol in a:
        remaining -= 1
        eq = masks.get(symbol, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        if score - remaining > limit:
            return limit + 1
        ph = ((ph << 1) | 1) & full
        pv = ((mh << 1) & full) | (~(xv | ph) & full)
        mv = ph & xv
    return score


class ExampleIndex:
    """Nearest-neighbour lookup over a pool of bugs (usually the whole dataset)."""

    def __init__(self, pool: Sequence[Bug]):
        self.pool = list(pool)
        vocab: dict[str, int] = {}
        self._seqs = [[vocab.setdefault(w, len(vocab)) for w in words(_method(b))] for b in self.pool]
        self._masks = [bit_masks(seq) for seq in self._seqs]
        self._counts = np.zeros((len(self.pool), max(len(vocab), 1)), dtype=np.int32)
        for row, seq in enumerate(self._seqs):
            np.add.at(self._counts[row], np.array(seq, dtype=np.int64), 1)
        self._lengths = np.array([len(seq) for seq in self._seqs])
        self._vocab = vocab
        self._position = {b.id: i for i, b in enumerate(self.pool)}
        self._nearest: dict[str, tuple[Bug, int] | None] = {}

    def _query(self, bug: Bug) -> tuple[list[int], dict[int, int], np.ndarray, np.ndarray]:
        """The bug's token ids, their bit masks, and its token counts over the vocabulary's used columns."""
        if bug.id in self._position:
            row = self._position[bug.id]
            seq, masks = self._seqs[row], self._masks[row]
        else:
            seq = [self._vocab.get(w, -1 - i) for i, w in enumerate(words(_method(bug)))]
            masks = bit_masks(seq)
        known = np.array([s for s in seq if s >= 0], dtype=np.int64)
        columns, counts = np.unique(known, return_counts=True)
        return seq, masks, columns, counts

    def nearest(self, bug: Bug, allow: Callable[[Bug], bool] | None = None) -> tuple[Bug, int] | None:
        """The closest other bug (that ``allow`` accepts), with its distance; ties go to the earlier
        bug in the pool. Never ``bug`` itself."""
        if allow is None:
            if bug.id not in self._nearest:
                self._nearest[bug.id] = self._search(bug, lambda _: True)
            return self._nearest[bug.id]
        return self._search(bug, allow)

    def _search(self, bug: Bug, allow: Callable[[Bug], bool]) -> tuple[Bug, int] | None:
        seq, masks, columns, counts = self._query(bug)
        # Tokens the two methods share (as a multiset); every other token of either needs an edit.
        shared = np.minimum(self._counts[:, columns], counts).sum(axis=1)
        lower = np.maximum(self._lengths - shared, len(seq) - shared)
        best: tuple[int, int] | None = None
        for row in np.lexsort((np.arange(len(self.pool)), lower)):
            if best is not None and lower[row] > best[0]:
                break
            other = self.pool[row]
            if other.id == bug.id:
                continue
            cutoff = None if best is None else best[0]
            if len(seq) <= len(self._seqs[row]):
                d = edit_distance(seq, self._seqs[row], cutoff, self._masks[row])
            else:
                d = edit_distance(self._seqs[row], seq, cutoff, masks)
            if (best is None or (d, row) < best) and allow(other):  # allow may be costly: ask last
                best = (d, int(row))
        return None if best is None else (self.pool[best[1]], best[0])


def _method(bug: Bug) -> str:
    return bug.buggy_method_no_comments or remove_comments(bug.buggy_method)
