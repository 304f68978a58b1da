"""Ranking: order each bug's unique candidates so the first few are the ones worth validating or reading.

Entry point: :func:`ranking.run.rank_run` (``nl2fix rank``). Rankings are stored per bug under a ranker key,
read back with ``RunStore.ranking(bug_id, key)``; ``RunStore.rankers()`` lists the keys of a run
and :func:`ranking.spec.ranking_info` tells how each was made (threshold value, pruning counts).

Ranker keys (``:pruned`` is appended when uncompilable and rejected candidates were dropped first):

- ``paper:<embedder>:<threshold>``: the paper's ranker. Cosine similarity between the embedding of
  the comment-free buggy method and of each unique candidate; candidates below the threshold are
  dropped and the rest ordered from the lowest similarity to the highest. ``<threshold>`` is
  ``median`` (the median similarity over all unique candidates of all bugs in the run, which was
  0.95 in the paper) or the number given, e.g. ``paper:tfidf:median``, ``paper:tfidf:0.95:pruned``,
  ``paper:openai:text-embedding-ada-002:median``.
- ``similarity-desc:<embedder>``: highest similarity first, nothing dropped (the opposite bet).
- ``frequency``: most duplicated candidate first (majority vote over samples); no embeddings.

``<embedder>`` is ``tfidf``, ``openai:MODEL`` or ``st:MODEL_OR_PATH`` (see :mod:`ranking.embedders`).
Every order is total, ties broken by (score, first sample index, candidate hash), so the same
store always gives the same rankings.

May import nl2fix.core, nl2fix.java_source, nl2fix.store and nl2fix.validation (verdicts, for pruning).
"""
