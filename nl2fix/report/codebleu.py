"""CodeBLEU of each unique candidate against the buggy and the fixed method (the paper's Figure 4).

Comments are removed from all three texts first, as the model saw the buggy method without them.
Scores are cached in the run store when its directory can be written, so a report computes each
pair once; when the Java grammar of tree-sitter cannot load, the report says CodeBLEU is
unavailable and why instead of failing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from nl2fix.core.domain import Bug
from nl2fix.core.progress import progress_bar
from nl2fix.java_source.text import remove_comments
from nl2fix.store.records import CandidateRecord
from nl2fix.store.run_store import RunStore, writable

REFERENCES = ("buggy", "fixed")
_SAVE_EVERY = 200
_WEIGHT = 0.25
"""codebleu's default: its four components weigh the same."""

ScoreKey = tuple[str, str, str]
"""(bug id, candidate hash, reference)."""


def unavailable_reason() -> str | None:
    """None when CodeBLEU can parse Java here, else why it cannot."""
    try:
        _java()
    except Exception as exc:  # any import/ABI failure of the grammar means the same thing to the user
        return (
            f"CodeBLEU for Java is unavailable ({type(exc).__name__}: {exc}); "
            "it needs codebleu 0.7 with tree-sitter<0.23 and tree-sitter-java 0.21"
        )
    return None


def _java():
    from codebleu.utils import get_tree_sitter_language

    return get_tree_sitter_language("java")


@functools.cache
def _keywords() -> frozenset[str]:
    from codebleu.codebleu import PACKAGE_DIR

    return frozenset((PACKAGE_DIR / "keywords" / "java.txt").read_text(encoding="utf-8").split())


def _dataflow_match(candidate: str, reference: str) -> float:
    """codebleu's data-flow match, with each variable's sources in name order. codebleu lists them
    from a set, whose order follows string hashing, which Python seeds anew in every process; that
    order numbers the variables and so decides which flows match: the same pair scored 0.9727 in
    one run and 0.9619 in the next."""
    from codebleu.dataflow_match import get_data_flow, normalize_dataflow
    from codebleu.parser import DFG_java
    from tree_sitter import Parser

    parser = [Parser(_java()), DFG_java]

    def flows(code: str) -> list:
        return normalize_dataflow([(*d[:3], sorted(d[3]), d[4]) for d in get_data_flow(code, parser)])

    expected, found = flows(reference), flows(candidate)
    matched = 0
    for flow in expected:
        if flow in found:
            found.remove(flow)
            matched += 1
    return matched / len(expected) if expected else 0.0


def codebleu(candidate: str, reference: str) -> float:
    """CodeBLEU (equal weights) of one comment-free Java method against one reference method:
    ``calc_codebleu`` of codebleu 0.7 but for its data-flow match (see ``_dataflow_match``)."""
    from codebleu import bleu, syntax_match, weighted_ngram_match

    candidate, reference = candidate.strip(), reference.strip()
    hyp, ref = candidate.split(), reference.split()
    weights = {token: 1 if token in _keywords() else 0.2 for token in ref}
    return _WEIGHT * (
        bleu.corpus_bleu([[ref]], [hyp])
        + weighted_ngram_match.corpus_bleu([[[ref, weights]]], [hyp])
        + syntax_match.corpus_syntax_match([[reference]], [candidate], "java", tree_sitter_language=_java())
        + (_dataflow_match(candidate, reference) or 1.0)  # as codebleu: no data-flow match counts as a full one
    )


def references(bug: Bug) -> dict[str, str]:
    return {
        "buggy": bug.buggy_method_no_comments or remove_comments(bug.buggy_method),
        "fixed": remove_comments(bug.fixed_method),
    }


def run_scores(
    store: RunStore, candidates: Mapping[str, Sequence[CandidateRecord]], *, progress: bool = False
) -> tuple[dict[ScoreKey, float], int]:
    """Scores of every candidate against both references, computing (and caching) the missing ones.

    Returns the scores and how many pairs CodeBLEU could not score (e.g. text it cannot tokenise)."""
    scores = store.codebleu_scores()
    bugs = {bug.id: bug for bug in store.bugs()}
    todo = [
        (bug_id, cand, ref, text)
        for bug_id, cands in candidates.items()
        for ref, text in references(bugs[bug_id]).items()
        for cand in cands
        if (bug_id, cand.hash, ref) not in scores
    ]
    if not todo:
        return scores, 0
    fresh: dict[ScoreKey, float] = {}
    failed = 0
    with _cache(store) as save:
        for bug_id, cand, ref, text in progress_bar(todo, desc="CodeBLEU", unit="pair", enabled=progress):
            try:
                fresh[(bug_id, cand.hash, ref)] = codebleu(remove_comments(cand.code), text)
            except (ZeroDivisionError, ValueError, IndexError, AssertionError):
                failed += 1
            if len(fresh) >= _SAVE_EVERY:
                save(fresh)
                scores.update(fresh)
                fresh = {}
        save(fresh)
    scores.update(fresh)
    return scores, failed


@contextmanager
def _cache(store: RunStore) -> Iterator[Callable[[dict[ScoreKey, float]], None]]:
    """Where new scores are kept: the run store, through a connection of its own (reports read the
    run read-only), when its directory can be written; else nowhere, and the next report rescores."""
    if not writable(store.run_dir):
        yield lambda scores: None
        return
    with RunStore(store.run_dir) as writer:
        yield writer.save_codebleu_scores
