"""An answer becomes a stored sample: its stop sequence put back, its method extracted, the record written."""

from __future__ import annotations

from nl2fix.core.domain import Bug
from nl2fix.java_source.text import candidate_hash
from nl2fix.prompting.prompt import target_method
from nl2fix.sampling import stops
from nl2fix.sampling.backends.base import Choice
from nl2fix.sampling.extraction import extract_method
from nl2fix.store.records import SampleRecord
from nl2fix.store.run_store import RunStore


def store_answer(store: RunStore, bug: Bug, header: str, index: int, choice: Choice, **fields) -> int:
    """Extract the method from one answer (its matched stop sequence put back) and store it as sample
    ``index`` (``fields``: the record's other fields); returns 1 if it was new."""
    response = stops.restore(choice.text, choice.stop_reason)
    extraction = extract_method(response, target_method(bug), header)
    record = SampleRecord(
        bug_id=bug.id,
        index=index,
        response=response,
        finish_reason=choice.finish_reason,
        candidate_hash=candidate_hash(extraction.code) if extraction.code is not None else None,
        extraction_error=extraction.error,
        **fields,
    )
    return int(store.add_sample(record, extraction.code))
