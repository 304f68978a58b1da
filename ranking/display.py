"""Text for `nl2fix rank` and `nl2fix show`: ranking summaries and a bug's top candidates as diffs.

Lines carry a style, not colour codes, so the CLI decides whether to colour them.
"""

from __future__ import annotations

import difflib
import enum
from dataclasses import dataclass

from nl2fix.core.domain import Behaviour, Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.store.hidden_text import carried, flag
from nl2fix.store.records import BehaviourRecord, CandidateRecord, RankingInfo, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdict_source import verdict_engine
from ranking.spec import DEFAULT_KEY
from ranking.texts import buggy_text, candidate_text

COMPILE_ERROR_LINES = 3


class Style(str, enum.Enum):
    PLAIN = "plain"
    TITLE = "title"
    ADDED = "added"
    REMOVED = "removed"
    HUNK = "hunk"
    GOOD = "good"
    BAD = "bad"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Line:
    text: str
    style: Style = Style.PLAIN


def describe(info: RankingInfo) -> str:
    """One line on how a ranker's rankings came out."""
    text = f"{info.ranker}: {info.ranked} of {info.candidates} candidates ranked over {info.bugs} bugs"
    if info.threshold_value is not None:
        how = "the run's median similarity" if info.threshold == "median" else "fixed"
        text += f" (threshold {info.threshold_value:.4f}, {how})"
    if info.engine is not None:
        text += f"; {info.pruned} uncompilable or rejected dropped ({info.engine} verdicts)"
        if info.unvalidated:
            text += f", {info.unvalidated} kept without a verdict yet"
    return text


def code_lines(text: str) -> list[str]:
    """The lines of code as javac and an editor count them: at newlines only (``str.splitlines`` also
    breaks at form feeds, U+2028 and other characters a candidate may carry, which would then vanish
    from what is shown instead of showing escaped)."""
    text = text.replace("\r\n", "\n")
    return text.removesuffix("\n").split("\n") if text else []


def method_diff(buggy: str, candidate: str, label: str, base: str = "buggy") -> list[Line]:
    """Unified diff from the ``base`` method (the buggy one unless named) to a candidate (both comment-free:
    the change, not the commentary)."""
    styles = {"+": Style.ADDED, "-": Style.REMOVED, "@": Style.HUNK}
    diff = list(difflib.unified_diff(code_lines(buggy), code_lines(candidate), base, label, lineterm=""))
    if not diff:
        return [Line(f"(same code as the {base} method)", Style.UNKNOWN)]
    return [Line(d, Style.TITLE if i < 2 else styles.get(d[:1], Style.PLAIN)) for i, d in enumerate(diff)]


def _verdict_lines(record: ValidationRecord | None) -> tuple[Line, list[Line]]:
    if record is None:
        return Line("not validated", Style.UNKNOWN), []
    good = record.verdict is Verdict.PLAUSIBLE
    details = [Line(f"    failing: {', '.join(record.failing_tests)}")] if record.failing_tests else []
    if record.compile_errors:
        details += [Line(f"    {l}") for l in record.compile_errors.strip().splitlines()[:COMPILE_ERROR_LINES]]
    if record.detail:
        details.append(Line(f"    {record.detail}"))
    details += behaviour_lines(record)
    word = record.verdict.value + (f", {record.behaviour.label.value}" if record.behaviour else "")
    return Line(word, Style.GOOD if good else Style.BAD), details


def behaviour_lines(record: ValidationRecord) -> list[Line]:
    """What a plausible candidate's behaviour probe found (nothing when it was not probed)."""
    b = record.behaviour
    if b is None:
        return []
    if b.label is Behaviour.DIVERGES:
        return [
            Line(f"    diverges from the developer's fix on: {b.shown_input}", Style.BAD),
            Line(f"      developer's fix: {b.reference_result}"),
            Line(f"      this candidate:  {b.candidate_result}"),
            *junit_lines(b),
        ]
    if b.label is Behaviour.SAME:
        return [Line(f"    behaves as the developer's fix on all {b.inputs} input(s) probed", Style.GOOD)]
    if b.label is Behaviour.NOT_PROBED:
        return [Line(f"    behaviour not probed: {b.note}", Style.UNKNOWN)]
    return []


def junit_lines(b: BehaviourRecord) -> list[Line]:
    """The JUnit test that shows a divergence (it passes on the developer's fix, fails on the candidate),
    or why there is none."""
    if b.junit_test:
        head = Line("      a JUnit 4 test that shows it (passes on the developer's fix, fails on this candidate):")
        return [head, *(Line(f"        {line}") for line in b.junit_test.rstrip("\n").splitlines())]
    if b.junit_note:
        return [Line(f"      no JUnit test of it: {b.junit_note}", Style.UNKNOWN)]
    return []


@dataclass(frozen=True)
class Shown:
    """One candidate as ``nl2fix show`` lists it: its place (and score, when ranked)."""

    place: str
    """``#3  score 0.912`` in a ranking, ``#3`` in an unranked list."""
    label: str
    """The diff's label for the candidate's side."""
    candidate: CandidateRecord
    record: ValidationRecord | None


def format_ranked(bug: Bug, header: str, shown: list[Shown], empty: str) -> list[Line]:
    """A bug's header, then each shown candidate: place, duplicates, verdict, failing tests, diff;
    ``empty`` says why nothing is shown."""
    lines = [Line(f"{bug.id}: {bug.title}", Style.TITLE), Line(header)]
    if not shown:
        lines.append(Line(empty, Style.UNKNOWN))
    buggy = buggy_text(bug)
    for s in shown:
        verdict, details = _verdict_lines(s.record)
        samples = "sample" if s.candidate.count == 1 else "samples"
        found = carried(s.candidate, s.record)
        lines.append(Line(""))
        lines.append(
            Line(
                f"{s.place}  {s.candidate.count} {samples}  "
                f"{s.candidate.hash}  {verdict.text}{'  [HIDDEN CHARACTERS]' if found else ''}",
                Style.BAD if found else verdict.style,
            )
        )
        if found:
            lines.append(Line(f"    {flag(found)}", Style.BAD))
        lines += details
        lines += method_diff(buggy, candidate_text(s.candidate.code), s.label)
    return lines


def choose_ranker(store: RunStore, key: str | None) -> str | None:
    """``key`` if the run has it; with no key, the default ranker, or else the run's only one, or None
    when ``nl2fix rank`` has not run (candidates are then shown unranked)."""
    keys = store.rankers()
    if not keys:
        if key is None:
            return None
        raise Nl2FixError(f"{store.run_dir} has no rankings yet", f"run `nl2fix rank --run {store.run_dir}`")
    if key is None:
        if DEFAULT_KEY in keys or len(keys) == 1:
            return DEFAULT_KEY if DEFAULT_KEY in keys else keys[0]
        raise Nl2FixError("this run has several rankings", f"pass --ranker, one of: {', '.join(keys)}")
    if key not in keys:
        raise Nl2FixError(f"no ranking {key!r} in {store.run_dir}", f"rankings here: {', '.join(keys)}")
    return key


def by_samples(candidates: list[CandidateRecord]) -> list[CandidateRecord]:
    """Candidates in the order shown before any ranking: most samples first, then the first sampled."""
    return sorted(candidates, key=lambda c: (-c.count, c.first_index, c.hash))


def bug_view(store: RunStore, bug_id: str, ranker: str | None, k: int) -> list[Line]:
    """The top ``k`` of a bug's ranking under ``ranker``, with the run's verdicts; with no ranker (the
    run is not ranked yet), its first ``k`` candidates by samples."""
    bug = store.bug(bug_id)
    engine = verdict_engine(store)
    candidates = {c.hash: c for c in store.candidates(bug.id)}
    verdicts = {v.hash: v for v in store.validations(bug.id, engine)} if engine else {}
    if ranker is None:
        order = by_samples(list(candidates.values()))
        shown = [Shown(f"#{i}", f"#{i}", c, verdicts.get(c.hash)) for i, c in enumerate(order[:k], start=1)]
        header = (
            f"not ranked: `nl2fix rank` has not run on this run; verdicts: {engine or 'none yet'}; "
            f"showing {len(shown)} of {len(order)} candidates, most samples first"
        )
        return format_ranked(bug, header, shown, "no candidates sampled")
    entries = store.ranking(bug.id, ranker)
    shown = [
        Shown(f"#{e.rank}  score {e.score:.4g}", f"rank {e.rank}", candidates[e.hash], verdicts.get(e.hash))
        for e in entries[:k]
    ]
    header = (
        f"ranker {ranker}; verdicts: {engine or 'none yet'}; showing {len(shown)} of {len(entries)} ranked candidates"
    )
    return format_ranked(bug, header, shown, "no candidates in this ranking")
