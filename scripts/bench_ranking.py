"""How well each ranker puts a plausible candidate first, on a run whose candidates have verdicts:
r.pass@1/5/10 of every embedder (TF-IDF; all-MiniLM-L6-v2, offline; an OpenAI-compatible embedding
endpoint) with and without pruning, and the paper's threshold rule against its alternatives, beside
pass@k of the unranked samples.

    python3 scripts/bench_ranking.py --run RUN [--embedder tfidf --embedder minilm
        --embedder openai:MODEL --base-url URL] [--json OUT.json] [--results DIR]

RUN is any run store with verdicts (``nl2fix validate`` done): a model's run, or a published set
imported with ``nl2fix import``. The run itself is not changed: its store is copied to a scratch
folder and ranked there. An embedder that cannot be used here (its extra not installed, no endpoint)
is reported as skipped, with the reason, and the others are measured.

The rankers (``nl2fix rank --method``):

- ``paper, median``: the paper's rule: drop candidates less similar to the buggy method than the
  median similarity of the run, then the least similar first;
- ``paper, 0.95``: the paper's published threshold as a fixed number;
- ``paper, no threshold``: the paper's order, nothing dropped;
- ``similarity-desc``: the most similar first, nothing dropped;
- ``frequency``: the most often sampled candidate first (majority vote; no embedder).

``cluster`` is left out: it orders by the verdicts themselves, so its r.pass@k here would be the
oracle's. ``pruned`` drops the uncompilable and rejected candidates first (it needs a compiler,
not the tests).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import bench_results

from nl2fix.core.errors import Nl2FixError
from nl2fix.report.data import collect
from nl2fix.store.run_store import STORE_FILE, RunStore
from nl2fix.validation.verdict_source import verdict_engine
from ranking.run import rank_run
from ranking.spec import MEDIAN, Method, RankerSpec

KS = (1, 5, 10)
DEFAULT_EMBEDDERS = ("tfidf", "minilm")
NO_THRESHOLD = -1.0
"""A threshold no cosine similarity is below: the paper's order with nothing dropped."""
THRESHOLDS = ((MEDIAN, "median"), (0.95, "0.95"), (NO_THRESHOLD, "no threshold"))
"""The paper's rule (the run's median similarity), the paper's number as a fixed threshold, none."""


@dataclass(frozen=True)
class Row:
    ranker: str
    """How it ranks, in words."""
    embedder: str
    pruned: bool
    key: str
    """The ranker key in the run store (``paper:tfidf:median:pruned``)."""
    ranked_pass_at_k: dict[int, float]


@dataclass
class Result:
    run: str
    bugs: int
    """Bugs the numbers are over (those whose developer fix passes its tests, as the report's)."""
    samples_per_bug: tuple[int, int]
    """Fewest and most samples of a bug."""
    pass_at_k: dict[int, float]
    """Of the unranked samples: the chance that k of them, drawn at random, hold a plausible one."""
    plausible_bugs: int
    """Bugs with at least one plausible candidate: no ranker can do better than this many."""
    rows: list[Row]
    skipped: dict[str, str]
    """Embedder -> why it could not be measured here."""


def rankers(embedder: str) -> list[tuple[str, RankerSpec]]:
    """Each ranker measured with ``embedder``, named, unpruned (the pruned ones are the same with pruned=True)."""
    out = [(f"paper, {label}", RankerSpec(Method.PAPER, embedder, threshold)) for threshold, label in THRESHOLDS]
    out.append(("similarity-desc", RankerSpec(Method.SIMILARITY_DESC, embedder)))
    return out


def _rank(work: Path, spec: RankerSpec, base_url: str | None) -> str:
    (key,) = rank_run(
        work,
        embedder=spec.embedder or "tfidf",
        method=spec.method.value,
        threshold=spec.threshold if spec.threshold is not None else MEDIAN,
        pruned=spec.pruned,
        base_url=base_url,
    )
    return key


def keep_only(store_file: Path, bug_ids: list[str]) -> None:
    """Drop every bug but ``bug_ids`` from a scratch copy of a store: a published set imported whole holds
    answers for every bug it covers, of which only those validated can be scored."""
    with sqlite3.connect(store_file) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        marks = ", ".join("?" * len(bug_ids))
        for table in tables:
            if any(column[1] == "bug_id" for column in db.execute(f"PRAGMA table_info({table})")):
                db.execute(f"DELETE FROM {table} WHERE bug_id NOT IN ({marks})", bug_ids)


def measure(
    run: Path,
    embedders: list[str],
    base_url: str | None = None,
    work: Path | None = None,
    bug_ids: list[str] | None = None,
) -> Result:
    """Rank a copy of ``run`` in ``work`` (a scratch folder when None) every way, and read the numbers;
    ``bug_ids``: only these bugs of it."""
    with RunStore(run, read_only=True) as store:
        if verdict_engine(store) is None:
            raise Nl2FixError(f"no candidate of {run} has a verdict", f"run `nl2fix validate --run {run}` first")
    with tempfile.TemporaryDirectory(prefix="nl2fix-bench-ranking-") as scratch:
        work = Path(work or scratch)
        work.mkdir(parents=True, exist_ok=True)
        # SQLite's own backup: the store keeps recent writes in its write-ahead log, which a file copy
        # leaves behind (a run still being validated would be measured without its latest verdicts)
        with (
            sqlite3.connect(f"file:{Path(run) / STORE_FILE}?mode=ro", uri=True) as source,
            sqlite3.connect(work / STORE_FILE) as copy,
        ):
            source.backup(copy)
        if bug_ids:
            keep_only(work / STORE_FILE, bug_ids)
        planned: list[tuple[str, str, bool, RankerSpec]] = []
        skipped: dict[str, str] = {}
        for embedder in embedders:
            for name, spec in rankers(embedder):
                planned += [
                    (name, embedder, pruned, RankerSpec(spec.method, spec.embedder, spec.threshold, pruned))
                    for pruned in (False, True)
                ]
        planned += [("frequency", "-", pruned, RankerSpec(Method.FREQUENCY, pruned=pruned)) for pruned in (False, True)]
        keys: dict[tuple[str, str, bool], str] = {}
        for name, embedder, pruned, spec in planned:
            if embedder in skipped:
                continue
            try:
                keys[(name, embedder, pruned)] = _rank(work, spec, base_url)
            except Nl2FixError as exc:  # this embedder cannot run here: say so, measure the others
                skipped[embedder] = exc.message + (f" ({exc.hint})" if exc.hint else "")
        report = collect(work, codebleu=False)
    scored = report.scored_bugs
    counts = [b.samples for b in scored]
    rows = [
        Row(name, embedder, pruned, key, {k: report.ranked_pass_at_k[key][k] for k in KS})
        for (name, embedder, pruned), key in keys.items()
    ]
    return Result(
        run=str(run),
        bugs=len(scored),
        samples_per_bug=(min(counts, default=0), max(counts, default=0)),
        pass_at_k={k: v for k, v in report.pass_at_k.items() if k in KS},
        plausible_bugs=sum(b.plausible_samples > 0 for b in scored),
        rows=rows,
        skipped=skipped,
    )


def table(result: Result) -> str:
    least, most = result.samples_per_bug
    head = [
        f"run: {result.run}",
        f"bugs: {result.bugs}, samples per bug: {least}"
        + (f" to {most}" if most != least else "")
        + f"; bugs with a plausible candidate: {result.plausible_bugs} "
        f"({result.plausible_bugs / result.bugs:.3f} of them, the best any ranker can do)"
        if result.bugs
        else "bugs: 0",
    ]
    ks = "  ".join(f"{f'@{k}':>6}" for k in KS)
    lines = head + [
        "",
        f"{'':44}{ks}",
        f"{'pass (unranked samples)':44}"
        + "  ".join(f"{result.pass_at_k[k]:6.3f}" if k in result.pass_at_k else f"{'-':>6}" for k in KS),
        "",
        f"{'r.pass: ranker':24}{'embedder':14}{'pruned':6}{ks}",
    ]
    for row in sorted(result.rows, key=lambda r: (r.pruned, r.embedder, r.ranker)):
        values = "  ".join(f"{row.ranked_pass_at_k[k]:6.3f}" for k in KS)
        lines.append(f"{row.ranker:24}{row.embedder:14}{'yes' if row.pruned else 'no':6}{values}")
    for embedder, why in result.skipped.items():
        lines.append(f"skipped {embedder}: {why}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, type=Path, help="A run folder whose candidates have verdicts.")
    parser.add_argument(
        "--embedder",
        action="append",
        default=None,
        help=f"Embedder to measure (repeatable; default: {', '.join(DEFAULT_EMBEDDERS)}); "
        "openai:MODEL uses --base-url.",
    )
    parser.add_argument("--base-url", default=None, help="The OpenAI-compatible endpoint of openai:MODEL.")
    parser.add_argument(
        "--bug", dest="bug_ids", action="append", default=None, help="Only this bug of the run (repeatable)."
    )
    parser.add_argument("--json", type=Path, default=None, help="Also write the numbers here as JSON.")
    bench_results.add_option(parser)
    args = parser.parse_args(argv)
    bench_results.start(args.results)
    try:
        result = measure(args.run, args.embedder or list(DEFAULT_EMBEDDERS), args.base_url, bug_ids=args.bug_ids)
    except Nl2FixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(asdict(result), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
