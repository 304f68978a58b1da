"""``nl2fix export``: a run's samples as JSON lines, or in the NL2Fix reference patch format.

One JSON object per sample: bug, strategy, model, temperature, sample index, the extracted
method (or why there is none), its candidate hash, and - once the later stages have stored
them - its verdict (from the engine the run is judged by), a plausible candidate's behaviour beside
the developer's fix (``same-behaviour`` or ``diverges`` with the first differing input and both
results), its rank under each ranker, what the verdict rests on (the tests that failed, the
compiler's errors, the tests run, and the wall-clock and CPU seconds validation took), and
``hidden_characters``: whether its code or its verdict's record carries control, escape,
bidirectional or invisible format characters (``nl2fix.store.hidden_text``). An imported answer
(``nl2fix import``) names its own model and carries ``published``: the publisher's verdict and where
in its set it came from. The text is JSON with every non-ASCII character and DEL escaped, so no
terminal or editor acts on them.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.visible_text import json_visible
from nl2fix.prompting.prompt import Prompt
from nl2fix.sampling import replay_format as replay
from nl2fix.store.hidden_text import carried
from nl2fix.store.records import ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdict_source import verdict_engine


class Format(str, enum.Enum):
    JSONL = "jsonl"
    NL2FIX = "nl2fix"


def sample_rows(store: RunStore) -> Iterator[dict]:
    config = store.config
    engine = verdict_engine(store)
    rankers = store.rankers()
    for bug in store.bugs():
        candidates = {c.hash: c for c in store.candidates(bug.id)}
        records = {v.hash: v for v in store.validations(bug.id, engine)} if engine else {}
        hidden = {h: bool(carried(c, records.get(h))) for h, c in candidates.items()}
        ranks = {r: {e.hash: e.rank for e in store.ranking(bug.id, r)} for r in rankers}
        for s in store.samples(bug.id):
            record = records.get(s.candidate_hash) if s.candidate_hash else None
            yield {
                "bug": bug.id,
                "strategy": config.strategy.value,
                "model": s.model or config.model,
                "backend": config.backend,
                "temperature": config.temperature,
                "index": s.index,
                "method": candidates[s.candidate_hash].code if s.candidate_hash in candidates else None,
                "extraction_error": s.extraction_error,
                "candidate_hash": s.candidate_hash,
                "finish_reason": s.finish_reason,
                "prompt_tokens": s.prompt_tokens,
                "completion_tokens": s.completion_tokens,
                "verdict": record.verdict.value if record else None,
                "verdict_engine": engine if record else None,
                **_evidence(record),
                "behaviour": _behaviour(record),
                "ranks": {r: ranks[r][s.candidate_hash] for r in rankers if s.candidate_hash in ranks[r]},
                "hidden_characters": hidden.get(s.candidate_hash, False) if s.candidate_hash else False,
                "published": s.published.model_dump() if s.published else None,
            }


def _evidence(record: ValidationRecord | None) -> dict:
    """What a verdict rests on, as the run store keeps it (None throughout for an unjudged sample):
    a reader should not have to open ``run.sqlite`` to learn which tests failed or what it cost."""
    fields = (
        "failing_tests",
        "ignored_failures",
        "compile_errors",
        "failure_message",
        "detail",
        "tests_run",
        "wall_seconds",
        "cpu_seconds",
    )
    return {f: getattr(record, f) if record else None for f in fields}


def _behaviour(record: ValidationRecord | None) -> dict | None:
    """A plausible candidate's behaviour beside the developer's fix: label, inputs compared, and where
    it diverges (the candidate's results per input are left to the run store)."""
    b = record.behaviour if record else None
    if b is None:
        return None
    return b.model_dump(mode="json", exclude={"observations"})


def nl2fix_patches(store: RunStore) -> dict:
    """The run in the NL2Fix reference format, keyed by dataset key; raw answers as patches."""
    config = store.config
    out = {}
    for bug in store.bugs():
        record = store.prompt(bug.id)
        prompt = Prompt.from_record(record, config.model_style, bug).text() if record else ""
        out[bug.key or bug.id] = replay.entry(prompt, [s.response for s in store.samples(bug.id)])
    return out


def export_run(run_dir: Path, fmt: str = "jsonl", out: Path | None = None) -> Path | str:
    """Write the export to ``out`` (returns the path) or return it as text."""
    try:
        fmt = Format(fmt)
    except ValueError:
        raise Nl2FixError(f"unknown export format {fmt!r}", "use jsonl or nl2fix") from None
    with RunStore(run_dir, read_only=True) as store:
        # every non-ASCII character escaped (ensure_ascii), and DEL, which JSON lets through
        if fmt is Format.JSONL:
            text = "".join(json_visible(json.dumps(row, ensure_ascii=True)) + "\n" for row in sample_rows(store))
        else:
            text = json_visible(json.dumps(nl2fix_patches(store), indent=2, ensure_ascii=True)) + "\n"
    if out is None:
        return text
    Path(out).write_text(text, encoding="utf-8")
    return Path(out)
