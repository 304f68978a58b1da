"""CodeBLEU of each unique candidate against the buggy and the fixed method (the paper's Figure 4).

Comments are removed from all three texts first, as the model saw the buggy method without them.
Scores are cached in the run store, so a report computes each pair once; when the Java grammar of
tree-sitter cannot load, the report says CodeBLEU is unavailable and why instead of failing.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator, Sequence


from nl2fix.java_text import remove_comments
from nl2fix.progress import progress_bar
from nl2fix.models import Bug
from nl2fix.records import CandidateRecord
from nl2fix.store import RunStore

REFERENCES = ("buggy", "fixed")
_SAVE_EVERY = 200

ScoreKey = tuple[str, str, str]
"""(bug id, candidate hash, reference)."""


class _DropDataflowWarning(logging.Filter):
    # codebleu warns on the root logger for every method without data flow; it is not news per pair.
    def filter(self, record: logging.LogRecord) -> bool:
        return "data-flow" not in record.getMessage()


@contextmanager
def _quiet() -> Iterator[None]:
    root, flt = logging.getLogger(), _DropDataflowWarning()
    root.addFilter(flt)
    try:
        yield
    finally:
        root.removeFilter(flt)


def unavailable_reason() -> str | None:
    """None when CodeBLEU can parse Java here, else why it cannot."""
    try:
        from codebleu.utils import get_tree_sitter_language

        get_tree_sitter_language("java")
    except Exception as exc:  # any import/ABI failure of the grammar means the same thing to the user
        return (
            f"CodeBLEU for Java is unavailable ({type(exc).__name__}: {exc}); "
            "it needs codebleu 0.7 with tree-sitter<0.23 and tree-sitter-java 0.21"
        )
    return None


def codebleu(candidate: str, reference: str) -> float:
    """CodeBLEU (equal weights) of one Java method against one reference method."""
    from codebleu import calc_codebleu

    with _quiet():
        return float(calc_codebleu([reference], [candidate], lang="java")["codebleu"])


def references(bug: Bug) -> dict[str, str]:
    return {
        "buggy": bug.buggy_method_no_comments or remove_comments(bug.buggy_method),
        "fixed": remove_comments(bug.fixed_method),
    }


def run_scores(
    store: RunStore, candidates: dict[str, Sequence[CandidateRecord]], *, progress: bool = False
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
    fresh: dict[ScoreKey, float] = {}
    failed = 0
    for bug_id, cand, ref, text in progress_bar(todo, desc="CodeBLEU", unit="pair", enabled=progress and bool(todo)):
        try:
            fresh[(bug_id, cand.hash, ref)] = codebleu(remove_comments(cand.code), text)
        except (ZeroDivisionError, ValueError, IndexError, AssertionError):
            failed += 1
        if len(fresh) >= _SAVE_EVERY:
            store.save_codebleu_scores(fresh)
            scores.update(fresh)
            fresh = {}
    store.save_codebleu_scores(fresh)
    scores.update(fresh)
    return scores, failed
