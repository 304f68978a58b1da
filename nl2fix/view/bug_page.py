"""Everything a bug's page shows, read from its run's store: the issue, the buggy method and the
developer's fix, every unique candidate grouped by verdict with its samples, ranks, diffs, test failure
or compiler errors placed in its lines and raw logs, and a conversation's rounds. Pure reading: one
bug's rows are a few indexed queries, so a page costs milliseconds at any run size."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.report.cost import Price, run_price
from nl2fix.report.data import UNVALIDATED
from nl2fix.report.metrics import exact_matches
from nl2fix.sampling.feedback import compiler_errors, expected_actual, feedback
from nl2fix.store.hidden_text import carried, flag
from nl2fix.store.records import (
    CandidateRecord,
    PromptRecord,
    RoundRecord,
    SampleRecord,
    ValidationRecord,
)
from nl2fix.store.run_store import RunStore
from nl2fix.validation.bug_work import BUGGY, FIXED
from nl2fix.validation.verdict_source import verdict_engine
from nl2fix.view.artifacts import log_names
from ranking.display import Line, code_lines, method_diff
from ranking.texts import buggy_text, candidate_text

VERDICT_ORDER = [
    Verdict.PLAUSIBLE.value,
    Verdict.WRONG.value,
    Verdict.UNCOMPILABLE.value,
    Verdict.REJECTED.value,
    Verdict.TIMEOUT.value,
    Verdict.ERROR.value,
    UNVALIDATED,
]
"""The order of a bug page's verdict groups: what passed first, what the harness could not judge last."""
BEHAVIOUR_ORDER = (*(b.value for b in Behaviour), "")
"""Plausible candidates grouped by behaviour: like the developer's fix first, unprobed last."""


@dataclass(frozen=True)
class CodeLine:
    """A line of a candidate, with the compiler's errors on it."""

    number: int
    text: str
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class SampleCost:
    """One sample and what it cost."""

    sample: SampleRecord
    dollars: float | None


@dataclass
class CandidateView:
    candidate: CandidateRecord
    record: ValidationRecord | None
    ranks: dict[str, int]
    """Ranker key -> its rank there (rankers that left it out are missing)."""
    samples: list[SampleCost]
    vs_buggy: list[Line]
    vs_fixed: list[Line]
    lines: list[CodeLine]
    """The candidate's lines, compile errors placed on theirs."""
    errors_elsewhere: list[str]
    """Compile errors outside the candidate's lines (or with no line)."""
    exact: bool
    """Identical to the developer's fix, whitespace and comments aside."""
    logs: list[str]
    """Names of the raw log files validation kept (``RUN/artifacts/<bug>/<hash>/``)."""
    told: str | None
    """What a conversation's model is told about this candidate (``nl2fix.sampling.feedback``)."""
    hidden: str = ""
    """The flag of a candidate that carries hidden characters (``nl2fix.store.hidden_text``), else empty."""

    @property
    def hash(self) -> str:
        return self.candidate.hash

    @property
    def verdict(self) -> str:
        return self.record.verdict.value if self.record else UNVALIDATED

    @property
    def behaviour(self) -> str:
        """A plausible candidate's behaviour label (``nl2fix.validation.behaviour``), or empty."""
        return self.record.behaviour.label.value if self.record and self.record.behaviour else ""

    @property
    def expected_actual(self) -> tuple[str, str] | None:
        return expected_actual(self.record.failure_message) if self.record and self.record.failure_message else None


@dataclass
class RoundView:
    record: RoundRecord
    answers: list[tuple[SampleRecord, CandidateView | None]]


@dataclass
class BugView:
    bug: Bug
    engine: str | None
    rankers: list[str]
    baselines: dict[str, ValidationRecord]
    """``fixed`` / ``buggy`` -> the baseline's verdict under the run's engine."""
    buggy: list[CodeLine]
    fix_diff: list[Line]
    groups: list[tuple[str, str, list[CandidateView]]]
    """(verdict, behaviour label or empty) -> its candidates, in ``VERDICT_ORDER``, plausible ones by
    :data:`BEHAVIOUR_ORDER`; within a group, most samples first."""
    unextracted: list[SampleCost]
    """Samples with no extractable method."""
    prompt: PromptRecord | None
    rounds: list[RoundView]
    price: Price | None
    totals: dict[str, float] = field(default_factory=dict)
    """prompt_tokens, completion_tokens, seconds, and dollars when priced."""

    @property
    def candidates(self) -> list[CandidateView]:
        return [c for _, _, group in self.groups for c in group]


def _lines(code: str, errors: dict[int, list[str]] | None = None) -> list[CodeLine]:
    errors = errors or {}
    return [CodeLine(i, text, tuple(errors.get(i, ()))) for i, text in enumerate(code_lines(code), start=1)]


def _placed(record: ValidationRecord | None, code: str, start_line: int) -> tuple[list[CodeLine], list[str]]:
    if record is None or not record.compile_errors:
        return _lines(code), []
    on_line: dict[int, list[str]] = defaultdict(list)
    elsewhere = []
    for error in compiler_errors(record.compile_errors):
        line = error.method_line(start_line, code)
        if line is None:
            where = f"line {error.file_line} of the file: " if error.file_line is not None else ""
            elsewhere.append(where + error.text)
        else:
            on_line[line].append(error.text)
    if not on_line and not elsewhere:
        elsewhere.append(record.compile_errors.strip())
    return _lines(code, on_line), elsewhere


def _cost(sample: SampleRecord, price: Price | None) -> SampleCost:
    return SampleCost(sample, price.dollars(sample.prompt_tokens, sample.completion_tokens) if price else None)


def bug_view(store: RunStore, bug_id: str) -> BugView:
    bug = store.bug(bug_id)
    engine = verdict_engine(store)
    records = {v.hash: v for v in store.validations(bug.id, engine)} if engine else {}
    rankers = store.rankers()
    ranks: dict[str, dict[str, int]] = defaultdict(dict)
    for key in rankers:
        for entry in store.ranking(bug.id, key):
            ranks[entry.hash][key] = entry.rank
    price = run_price(store.config) if store.has_config() else None
    samples = store.samples(bug.id)
    by_hash: dict[str, list[SampleCost]] = defaultdict(list)
    for s in samples:
        if s.candidate_hash is not None:
            by_hash[s.candidate_hash].append(_cost(s, price))
    buggy = buggy_text(bug)
    fixed = candidate_text(bug.fixed_method)
    candidates = store.candidates(bug.id)
    exact = exact_matches([c.code for c in candidates], bug.fixed_method)
    views = []
    for candidate, same in zip(candidates, exact):
        record = records.get(candidate.hash)
        lines, elsewhere = _placed(record, candidate.code, bug.start_line)
        code = candidate_text(candidate.code)
        views.append(
            CandidateView(
                candidate=candidate,
                record=record,
                ranks=ranks.get(candidate.hash, {}),
                samples=by_hash[candidate.hash],
                vs_buggy=method_diff(buggy, code, "candidate"),
                vs_fixed=method_diff(fixed, code, "candidate", "fixed"),
                lines=lines,
                errors_elsewhere=elsewhere,
                exact=same,
                logs=log_names(store.run_dir, bug.id, candidate.hash),
                told=feedback(record, candidate.code, bug.start_line) if record else None,
                hidden=flag(carried(candidate, record)),
            )
        )
    grouped: dict[tuple[str, str], list[CandidateView]] = defaultdict(list)
    for view in views:
        grouped[(view.verdict, view.behaviour)].append(view)
    groups = [
        (v, b, sorted(grouped[(v, b)], key=lambda c: (-c.candidate.count, c.candidate.first_index)))
        for v in VERDICT_ORDER
        for b in BEHAVIOUR_ORDER
        if grouped.get((v, b))
    ]
    of_hash = {v.hash: v for v in views}
    by_index = {s.index: s for s in samples}
    rounds = [
        RoundView(r, [(by_index[i], of_hash.get(by_index[i].candidate_hash or "")) for i in r.indices if i in by_index])
        for r in store.rounds(bug.id)
    ]
    totals: dict[str, float] = {
        "prompt_tokens": sum(s.prompt_tokens for s in samples),
        "completion_tokens": sum(s.completion_tokens for s in samples),
        "seconds": sum(s.generation_seconds for s in samples),
    }
    if price is not None:
        totals["dollars"] = price.dollars(int(totals["prompt_tokens"]), int(totals["completion_tokens"]))
    return BugView(
        bug=bug,
        engine=engine,
        rankers=rankers,
        baselines={h: records[h] for h in (FIXED, BUGGY) if h in records},
        buggy=_lines(buggy),
        fix_diff=method_diff(buggy, fixed, "fixed"),
        groups=groups,
        unextracted=[_cost(s, price) for s in samples if s.candidate_hash is None],
        prompt=store.prompt(bug.id),
        rounds=rounds,
        price=price,
        totals=totals,
    )
