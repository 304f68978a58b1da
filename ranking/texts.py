"""The texts that are embedded, compared and shown: both sides without comments.

The buggy method is the comment-free one the model was given (the paper's rule); candidates lose
their comments too, so a model's added explanation does not move a candidate's similarity.
"""

from __future__ import annotations

from nl2fix.core.domain import Bug
from nl2fix.java_source.text import remove_comments


def buggy_text(bug: Bug) -> str:
    return bug.buggy_method_no_comments or remove_comments(bug.buggy_method)


def candidate_text(code: str) -> str:
    return remove_comments(code)
