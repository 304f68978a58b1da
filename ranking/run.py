"""Rank every bug of a run from the store, and write the rankings back."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.java_source.text import text_hash
from nl2fix.store.records import CandidateRecord, RankingEntry, RankingInfo
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdict_source import verdict_engine
from ranking.embedders.base import Embedder, embed_texts
from ranking.embedders.providers import parse_embedder
from ranking.ranker import Scored, cluster_order, cosine_similarities, drop_unfit, order, resolve_threshold
from ranking.spec import INFO_PREFIX, MEDIAN, Method, RankerSpec, parse_methods, parse_threshold, ranker_specs
from ranking.texts import buggy_text, candidate_text


def _similarities(
    store: RunStore, embedder: Embedder, bugs: list[Bug], pools: dict[str, list[CandidateRecord]]
) -> dict[str, dict[str, float]]:
    """Cosine similarity of each candidate with its bug's buggy method, by bug id and candidate hash.

    All texts of the run go to the embedder in one call: TF-IDF is fitted on that corpus, and a
    model embedder sees each distinct text once.
    """
    texts: dict[str, str] = {}

    def row_key(text: str) -> str:
        h = text_hash(text)
        texts.setdefault(h, text)
        return h

    queries = {bug.id: row_key(buggy_text(bug)) for bug in bugs}
    rows_of = {bug.id: [row_key(candidate_text(c.code)) for c in pools[bug.id]] for bug in bugs}
    order_of = {h: i for i, h in enumerate(texts)}
    matrix = embed_texts(embedder, list(texts.values()), store)
    sims: dict[str, dict[str, float]] = {}
    for bug in bugs:
        if not pools[bug.id]:
            sims[bug.id] = {}
            continue
        values = cosine_similarities(matrix[order_of[queries[bug.id]]], matrix[[order_of[h] for h in rows_of[bug.id]]])
        sims[bug.id] = {c.hash: float(v) for c, v in zip(pools[bug.id], values)}
    return sims


def _scored(spec: RankerSpec, pool: list[CandidateRecord], sims: dict[str, float]) -> list[Scored]:
    if spec.method is Method.FREQUENCY:
        return [Scored(c.hash, float(c.count), c.first_index) for c in pool]
    return [Scored(c.hash, sims[c.hash], c.first_index) for c in pool]


def _write(store: RunStore, spec: RankerSpec, bugs: list[Bug], pools, sims, info: RankingInfo) -> None:
    scored = {bug.id: _scored(spec, pools[bug.id], sims.get(bug.id, {})) for bug in bugs}
    threshold = None
    if spec.method.uses_threshold:
        assert spec.threshold is not None  # ranker_specs gives every method that uses one a threshold
        threshold = resolve_threshold(spec.threshold, (s.score for items in scored.values() for s in items))
    ranked = 0
    engine = verdict_engine(store) if spec.method is Method.CLUSTER else None
    for bug in bugs:
        if spec.method is Method.CLUSTER:
            records = {r.hash: r for r in store.validations(bug.id, engine)} if engine else {}
            ordered = cluster_order(scored[bug.id], records, {c.hash: c.count for c in pools[bug.id]})
        else:
            ordered = order(spec.method, scored[bug.id], threshold)
        ranked += len(ordered)
        entries = [
            RankingEntry(bug_id=bug.id, ranker=spec.key, rank=i, hash=s.hash, score=s.score)
            for i, s in enumerate(ordered, start=1)
        ]
        store.save_ranking(bug.id, spec.key, entries)
    done = info.model_copy(
        update=dict(
            ranker=spec.key,
            method=spec.method.value,
            embedder=spec.embedder,
            threshold=spec.threshold,
            threshold_value=threshold,
            ranked=ranked,
        )
    )
    store.set_meta_json(INFO_PREFIX + spec.key, done.model_dump(mode="json"))


def _pools(store: RunStore, bugs: list[Bug], pruned: bool) -> tuple[dict[str, list[CandidateRecord]], RankingInfo]:
    """Each bug's candidates to rank (without the uncompilable and rejected ones when ``pruned``), and the counts."""
    pools = {bug.id: store.candidates(bug.id) for bug in bugs}
    info = RankingInfo(ranker="", method="", bugs=len(bugs), bugs_with_candidates=[b for b, p in pools.items() if p])
    if pruned:
        engine = verdict_engine(store)
        if engine is None:
            raise Nl2FixError(
                f"--pruned needs verdicts, and no candidate of {store.run_dir} has been validated",
                f"run `nl2fix validate --run {store.run_dir}` first, or rank without --pruned",
            )
        verdicts: dict[str, dict] = defaultdict(dict)
        for record in store.validations(engine=engine):
            verdicts[record.bug_id][record.hash] = record.verdict
        dropped = unvalidated = 0
        for bug_id, pool in pools.items():
            pools[bug_id], d, u = drop_unfit(pool, verdicts[bug_id])
            dropped, unvalidated = dropped + d, unvalidated + u
        info = info.model_copy(update=dict(engine=engine, pruned=dropped, unvalidated=unvalidated))
    return pools, info.model_copy(update=dict(candidates=sum(len(p) for p in pools.values())))


def rank_run(
    run_dir: Path,
    *,
    embedder: str = "tfidf",
    method: str = "paper",
    threshold: str | float = MEDIAN,
    pruned: bool = False,
    base_url: str | None = None,
) -> list[str]:
    """Rank every bug of the run under each method asked for; returns the ranker keys written.

    ``method`` is a :class:`~ranking.spec.Method` value or ``all``. ``threshold="median"`` is the
    median similarity over all unique candidates of all bugs of the run (after pruning), as the
    paper's 0.95 was; a number is a fixed threshold. ``pruned`` first drops candidates whose verdict
    under the run's engine (:func:`nl2fix.validation.verdict_source.verdict_engine`) is
    ``uncompilable`` or ``rejected``; candidates without a verdict stay. ``base_url`` is for ``openai:MODEL`` embedders.
    How each ranking came out is kept beside it: :func:`ranking.spec.ranking_info`.
    """
    methods = parse_methods(method)
    threshold = parse_threshold(threshold)
    chosen = parse_embedder(embedder, base_url=base_url) if any(m.uses_embeddings for m in methods) else None
    with RunStore(run_dir) as store:
        bugs = store.bugs()
        pools, info = _pools(store, bugs, pruned)
        sims = _similarities(store, chosen, bugs, pools) if chosen is not None else {}
        specs = ranker_specs(methods, chosen.name if chosen is not None else None, threshold, pruned)
        for spec in specs:
            _write(store, spec, bugs, pools, sims, info)
    return [spec.key for spec in specs]
