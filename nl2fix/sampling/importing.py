"""Published answers (:mod:`nl2fix.sampling.published_sets`) stored in a run as samples, so that
``validate``, ``rank``, ``report``, ``compare`` and ``view`` work on them as on sampled ones.

Each sample keeps its model and the publisher's verdict. A run of imports has backend ``import`` and
n = 0: a bug's n is what the set holds for it. Importing again adds only answers not stored yet (by
model and place in the set), so several sets (one per model) can go into one run, and a re-run is a
no-op. Bugs the dataset does not hold are counted and left out.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nl2fix.core import bug_ids
from nl2fix.core.domain import Bug, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.java_source.text import candidate_hash, normalise
from nl2fix.prompting.prompt import target_method
from nl2fix.sampling.extraction import Extraction, Failure, apply_diff, extract_method
from nl2fix.sampling.published_sets import Answer, Kind, new_side, whole
from nl2fix.store.records import PublishedVerdict, RunConfig, SampleRecord
from nl2fix.store.run_store import STORE_FILE, RunStore, discard_if_empty

IMPORT_BACKEND = "import"
IMPORT_MODEL = "published"
"""The run's model: its samples name their own."""
PUBLISHED_COSTS = "published_costs"
"""Run store meta key: dollars per model, as the publisher reports them."""


def import_config(dataset: str, metadata_dir: str | None) -> RunConfig:
    """The configuration of a run of imported answers (the same for every import into it)."""
    return RunConfig(
        dataset=dataset,
        metadata_dir=metadata_dir,
        backend=IMPORT_BACKEND,
        model=IMPORT_MODEL,
        strategy=Strategy.PUBLISHED,
        temperature=0.0,
        n=0,
        context_window=None,
    )


def is_import(config: RunConfig | None) -> bool:
    return config is not None and config.backend == IMPORT_BACKEND


@dataclass
class ImportSummary:
    read: int = 0
    imported: int = 0
    already: int = 0
    """Answers the run held already (an import run again)."""
    unknown_bugs: Counter[str] = field(default_factory=Counter)
    """Answers per bug the dataset does not hold."""
    unextractable: int = 0
    outside_method: int = 0
    """File diffs that also changed lines outside the method (left out)."""
    base_differs: int = 0
    """Answers whose publisher's buggy method is not the dataset's."""
    by_model: Counter[str] = field(default_factory=Counter)
    unique_candidates: int = 0

    def __str__(self) -> str:
        lines = [
            f"imported {self.imported} answer(s) of {len(self.by_model)} model(s) "
            f"({', '.join(f'{m}: {n}' for m, n in sorted(self.by_model.items()))}); "
            f"{self.unique_candidates} unique candidate(s) for these bugs in the run"
        ]
        if self.already:
            lines.append(f"{self.already} answer(s) were in the run already")
        if self.unextractable:
            lines.append(f"{self.unextractable} answer(s) yield no method (kept as samples that are not plausible)")
        if self.outside_method:
            lines.append(
                f"{self.outside_method} diff(s) also change lines outside the buggy method: "
                "those changes were left out, the method taken alone"
            )
        if self.base_differs:
            lines.append(
                f"{self.base_differs} answer(s) were made from a buggy method other than the dataset's "
                "(another revision): published verdicts may differ for that reason"
            )
        if self.unknown_bugs:
            names = sorted(self.unknown_bugs)
            lines.append(
                f"{sum(self.unknown_bugs.values())} answer(s) of {len(names)} bug(s) not in the dataset "
                f"were left out ({', '.join(names[:8])}{' ...' if len(names) > 8 else ''})"
            )
        return "\n".join(lines)


def changed_lines(diff: str) -> list[int]:
    """The old-side line numbers a unified diff changes (1-based): each removed line; an added line
    counts as the line it replaces (the last one removed just before it), else the line it goes before."""
    out: list[int] = []
    line, replaced = 0, None
    for text in diff.split("\n"):
        if text.startswith("@@"):
            head = text.split()[1] if len(text.split()) > 1 else "-1"
            line, replaced = int(head[1:].split(",")[0] or 1), None
        elif text.startswith("-") and not text.startswith("---"):
            out.append(line)
            line, replaced = line + 1, line
        elif text.startswith("+") and not text.startswith("+++"):
            out.append(line if replaced is None else replaced)
        elif text.startswith(" "):
            line, replaced = line + 1, None
    return out


@functools.lru_cache(maxsize=256)
def _same_code(a: str, b: str) -> bool:
    """Comments and whitespace aside (cached: a bug's answers of one model share their buggy function)."""
    return normalise(a) == normalise(b)


def extract_answer(answer: Answer, bug: Bug, buggy_file: Callable[[Bug], str]) -> tuple[Extraction, str, bool]:
    """The candidate method, a note on what was done, and whether changes outside the method were left out."""
    target = target_method(bug)
    if answer.kind is Kind.FUNCTION_DIFF:
        base = answer.base or bug.buggy_method
        if not answer.text.strip():
            applied: str | None = base  # an empty diff: the function unchanged
        else:
            applied = new_side(answer.text) if whole(answer.text) else apply_diff(answer.text, base)
        if applied is None:
            return (
                Extraction(None, Failure.NO_METHOD, "the diff does not apply to the publisher's buggy function"),
                "",
                False,
            )
        return extract_method(applied, target), "", False
    if answer.kind is Kind.FILE_DIFF:
        source = buggy_file(bug)
        applied = apply_diff(answer.text, source)
        if applied is None:
            return Extraction(None, Failure.NO_METHOD, f"the diff does not apply to {bug.path}"), "", False
        outside = sorted({n for n in changed_lines(answer.text) if not bug.start_line <= n <= bug.end_line})
        note = (
            f"the diff also changes {len(outside)} line(s) outside the method (lines {bug.start_line}-"
            f"{bug.end_line} of {bug.path}), left out"
            if outside
            else ""
        )
        return extract_method(applied, target), note, bool(outside)
    return extract_method(answer.text, target), "", False


def import_answers(
    run_dir: Path,
    config: RunConfig,
    bugs: list[Bug],
    answers: list[Answer],
    *,
    buggy_file: Callable[[Bug], str],
    costs: dict[str, float] | None = None,
) -> ImportSummary:
    """Store ``answers`` (for ``bugs``, the dataset's) in ``run_dir`` as samples; ``buggy_file`` gives a
    bug's source file, for file diffs; ``costs``: dollars per model, as published. A run directory this
    call creates is removed again when nothing was stored in it."""
    new_dir, new_store = not run_dir.exists(), not (run_dir / STORE_FILE).exists()
    try:
        return _import(run_dir, config, bugs, answers, buggy_file, costs or {})
    except BaseException:
        if new_store:
            discard_if_empty(run_dir, directory=new_dir)
        raise


def _import(
    run_dir: Path,
    config: RunConfig,
    bugs: list[Bug],
    answers: list[Answer],
    buggy_file: Callable[[Bug], str],
    costs: dict[str, float],
) -> ImportSummary:
    known = {bug_ids.canonical_key(b.id): b for b in bugs}
    summary = ImportSummary(read=len(answers))
    per_bug: dict[str, list[Answer]] = defaultdict(list)
    by_id: dict[str, Bug] = {}
    for answer in answers:
        bug = known.get(bug_ids.canonical_key(answer.bug))
        if bug is None:
            summary.unknown_bugs[answer.bug] += 1
            continue
        per_bug[bug.id].append(answer)
        by_id[bug.id] = bug
    with RunStore(run_dir, create=True) as store:
        if store.has_config() and not is_import(store.config):
            raise Nl2FixError(
                f"{run_dir} is a run of sampled answers, not of imported ones",
                "import into a new --run directory (a run of imports holds only published answers)",
            )
        store.set_config(config)
        store.add_bugs(b for b in bugs if b.id in per_bug)  # in the dataset's order
        for bug_id, todo in per_bug.items():
            bug = by_id[bug_id]
            stored = store.samples(bug_id)
            have = {(s.model, s.published.source) for s in stored if s.published is not None}
            index = max((s.index for s in stored), default=-1) + 1
            new: list[tuple[SampleRecord, str | None]] = []
            for answer in todo:
                if (answer.model, answer.source) in have:
                    summary.already += 1
                    continue
                extraction, note, outside = extract_answer(answer, bug, buggy_file)
                base_differs = answer.base is not None and not _same_code(answer.base, bug.buggy_method)
                record = SampleRecord(
                    bug_id=bug_id,
                    index=index,
                    response=answer.text,
                    candidate_hash=candidate_hash(extraction.code) if extraction.code is not None else None,
                    extraction_error=extraction.error,
                    model=answer.model,
                    published=PublishedVerdict(
                        verdict=answer.verdict,
                        plausible=answer.plausible,
                        compiled=answer.compiled,
                        source=answer.source,
                        note=note,
                        outside_method=outside,
                        base_differs=base_differs,
                    ),
                )
                new.append((record, extraction.code))
                index += 1
                summary.imported += 1
                summary.by_model[answer.model] += 1
                summary.unextractable += extraction.code is None
                summary.outside_method += outside
                summary.base_differs += base_differs
            store.add_samples(new)
        if costs:
            store.set_meta_json(PUBLISHED_COSTS, {**(store.get_meta_json(PUBLISHED_COSTS) or {}), **costs})
        summary.unique_candidates = sum(len(store.candidates(b)) for b in per_bug)
    return summary
