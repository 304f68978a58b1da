"""Whether a candidate carries hidden characters (``nl2fix.core.visible_text``) in anything its own
code controls: its text, and whatever its validation recorded from running it (failure messages,
compiler errors quoting it, the probe's values). A candidate whose code builds an escape sequence at
run time and throws it carries it as much as one that spells it."""

from __future__ import annotations

from collections import Counter

from nl2fix.core.visible_text import describe, hidden_characters, strings_in
from nl2fix.store.records import CandidateRecord, ValidationRecord


def carried(candidate: CandidateRecord, record: ValidationRecord | None) -> Counter[str]:
    """The hidden characters of the candidate's code and of its verdict's record."""
    return hidden_characters(candidate.code, *strings_in(record.model_dump(mode="json") if record else ()))


def flag(found: Counter[str]) -> str:
    """The words shown beside a flagged candidate wherever it is listed (empty when it carries none)."""
    return f"HIDDEN CHARACTERS: {describe(found)}, shown escaped" if found else ""
