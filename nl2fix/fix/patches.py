"""A user's bug's candidates as patches of their working tree, best first.

The order: plausible candidates first, then the rest (each group in the paper's ranking order,
then those its threshold dropped, by samples). A rank is a place among the plausible candidates
only: the ranker's threshold is about similarity to the buggy method, and a wrong candidate
"ranked 1" above a plausible one "below the threshold" would say the opposite of the verdicts.
``nl2fix show`` of a fix run prints this same order. Each candidate
becomes a unified diff of the file in the working tree (``a/<path>``/``b/<path>``, as ``git apply``
and ``patch -p1`` take it), re-indented to sit where the method sits.

A candidate that carries hidden characters (``nl2fix.store.hidden_text``) is flagged wherever it is
listed and shown with them escaped. Its diff file is for reading, not applying: a warning naming
them, then the diff as shown, every line quoted (``git apply`` and ``patch`` find no patch in it);
and it is written into the working tree only when the user says so
(``--accept-hidden-characters``), since an editor or a terminal would hide or reorder what they do.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core.domain import Bug, Verdict
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.visible_text import describe, visible
from nl2fix.java_source import splice
from nl2fix.store.hidden_text import carried, flag
from nl2fix.store.records import CandidateRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.behaviour import clusters, disagreements
from nl2fix.validation.verdict_source import verdict_engine
from ranking.display import Line, Style, by_samples, method_diff
from ranking.texts import buggy_text, candidate_text

BACKUP_SUFFIX = ".nl2fix-backup"
ACCEPT_OPTION = "--accept-hidden-characters"
"""What the user passes to have a flagged candidate written into the working tree."""
QUOTE = "| "
"""Before every line of a flagged candidate's diff file, so that no tool applies it."""


@dataclass(frozen=True)
class FixChoice:
    position: int
    """1-based place in the order shown."""
    candidate: CandidateRecord
    verdict: ValidationRecord | None
    rank: int | None
    """The candidate's place among the plausible ones (1 = the ranker's first); None when not plausible."""
    plausible_count: int = 0
    """How many candidates of the bug are plausible."""

    @property
    def plausible(self) -> bool:
        return self.verdict is not None and self.verdict.verdict is Verdict.PLAUSIBLE

    @property
    def hidden(self) -> Counter[str]:
        """The hidden characters it carries, in its code or its verdict's record."""
        return carried(self.candidate, self.verdict)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def reindent(candidate: str, indent: str) -> str:
    """The candidate moved so its first line starts at ``indent`` (models often answer at column 0);
    text blocks are left alone, where leading space is content."""
    lines = candidate.strip("\r\n").replace("\r\n", "\n").split("\n")
    if '"""' in candidate or not lines:
        return candidate
    own = _indent(lines[0])
    rest = [l for l in lines[1:] if l.strip()]
    if rest and min(len(_indent(l)) for l in rest) < len(own):
        own = ""  # the first line was indented alone: keep the others where they are
    out = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif line.startswith(own):
            out.append(indent + line[len(own) :])
        else:
            out.append(indent + line.lstrip(" \t"))
    return "\n".join(out)


def patched(source: str, bug: Bug, code: str) -> str:
    """The file's text with the candidate in the buggy method's place."""
    location = splice.locate(source, bug.buggy_method, bug.start_line, bug.end_line)
    first = source.splitlines()[location.start_line - 1]
    return splice.splice_at(source, location, reindent(code, _indent(first)))


def unified_diff(path: str, before: str, after: str) -> str:
    """A ``git apply``-able diff of one file."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=3):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def ordered(store: RunStore, bug: Bug, ranker: str | None, engine: str | None) -> list[FixChoice]:
    """Every unique candidate of the bug in the order shown to the user."""
    candidates = {c.hash: c for c in store.candidates(bug.id)}
    verdicts = {v.hash: v for v in store.validations(bug.id, engine)} if engine else {}
    ranked = [e.hash for e in store.ranking(bug.id, ranker)] if ranker else []
    rest = by_samples([c for h, c in candidates.items() if h not in ranked])
    order = [*ranked, *(c.hash for c in rest)]
    good = [h for h in order if h in verdicts and verdicts[h].verdict is Verdict.PLAUSIBLE]
    order = [*good, *(h for h in order if h not in good)]
    return [
        FixChoice(i, candidates[h], verdicts.get(h), i if h in good else None, len(good))
        for i, h in enumerate(order, start=1)
    ]


def diff_for(project: Path, bug: Bug, choice: FixChoice, encoding: str = "UTF-8", *, shown: bool = False) -> str:
    """The candidate's diff of the file in the working tree; ``shown``: of both sides with their hidden
    characters escaped (what a person reads: an escape is one line's text, where a line separator
    among them would have split it)."""
    source = (project / bug.path).read_bytes().decode(encoding)
    try:
        after = patched(source, bug, choice.candidate.code)
    except (splice.SpliceError, splice.RefusedCandidate) as exc:
        raise Nl2FixError(
            f"{bug.path} no longer holds the method as it was when sampled: {exc}",
            "re-run `nl2fix fix` on the tree as it is now",
        ) from exc
    return unified_diff(bug.path, visible(source), visible(after)) if shown else unified_diff(bug.path, source, after)


def diff_file(project: Path, bug: Bug, choice: FixChoice, encoding: str = "UTF-8") -> str:
    """What ``--out`` writes: the diff, or for a flagged candidate a warning and its diff as shown,
    quoted."""
    found = choice.hidden
    if not found:
        return diff_for(project, bug, choice, encoding)
    shown = diff_for(project, bug, choice, encoding, shown=True)
    warning = [
        f"nl2fix: candidate #{choice.position} ({choice.candidate.hash}) carries {describe(found)}.",
        "They act on a terminal or reorder text in an editor, so what they do cannot be read as it is:",
        "each is shown escaped below (\\x1b, \\u202e ...). This file is for reading, not applying: every line",
        f"is quoted with {QUOTE.strip()!r}, so git apply and patch find no patch in it. To write the candidate as",
        f"validated into the working tree: nl2fix fix ... --apply {choice.position} {ACCEPT_OPTION}",
        "",
    ]
    return "".join(line + "\n" for line in warning) + "".join(QUOTE + line for line in shown.splitlines(True))


def refuse_hidden(choice: FixChoice, path: str) -> None:
    """``--apply`` of a flagged candidate without :data:`ACCEPT_OPTION`: an error that says why."""
    found = choice.hidden
    if found:
        raise Nl2FixError(
            f"#{choice.position} carries {describe(found)}: written into {path}, they would hide or "
            "reorder text in an editor or terminal, so what it does cannot be read there",
            f"read it above (shown escaped); to write it anyway pass {ACCEPT_OPTION}",
        )


def apply(project: Path, bug: Bug, choice: FixChoice, encoding: str = "UTF-8") -> Path:
    """Write the candidate into the working tree, the file as it was kept beside it; the backup's path."""
    target = project / bug.path
    backup = target.with_name(target.name + BACKUP_SUFFIX)
    if backup.exists():
        raise Nl2FixError(
            f"{backup} exists (an earlier --apply?)",
            f"restore it with `mv {backup} {target}` or delete it, then apply again",
        )
    data = target.read_bytes()
    text = patched(data.decode(encoding), bug, choice.candidate.code)
    backup.write_bytes(data)
    target.write_bytes(splice.encode_source(text, encoding))
    return backup


def diff_lines(diff: str) -> list[Line]:
    styles = {"+": Style.ADDED, "-": Style.REMOVED, "@": Style.HUNK}
    return [
        Line(d, Style.TITLE if d.startswith(("--- ", "+++ ")) else styles.get(d[:1], Style.PLAIN))
        for d in diff.splitlines()
    ]


def cluster_lines(choices: list[FixChoice]) -> list[Line]:
    """How many behaviourally distinct plausible fixes there are and where they disagree (nothing when
    all probed ones behave alike): the tests' calls to the method and inputs derived from them, each
    candidate's results there (``nl2fix.validation.behaviour``)."""
    plausible = [c for c in choices if c.plausible and c.verdict is not None and c.verdict.behaviour is not None]
    position = {c.candidate.hash: c.position for c in plausible}
    behaviours = {c.candidate.hash: c.verdict.behaviour for c in plausible if c.verdict and c.verdict.behaviour}
    found = clusters(behaviours, {c.candidate.hash: c.candidate.count for c in plausible}, order=list(position))
    if len(found) < 2:
        return []
    inputs = len(found[0].results)
    lines = [
        Line(""),
        Line(
            f"{len(found)} behaviourally distinct plausible fixes (on {inputs} input(s): the tests' "
            "calls to the method and inputs derived from them), the largest group first:",
            Style.TITLE,
        ),
    ]
    for i, c in enumerate(found, start=1):
        members = ", ".join(f"#{position[h]}" for h in c.members)
        lines.append(Line(f"  group {i}: {members} ({c.samples} sample{'s' if c.samples != 1 else ''})"))
    for where in disagreements(found):
        lines.append(Line(f"  they disagree on {where.input}:"))
        lines += [Line(f"    group {i}: {result}") for i, result in enumerate(where.results, start=1)]
    return lines


def choice_lines(choice: FixChoice, diff: str | None) -> list[Line]:
    """One candidate as shown by ``nl2fix fix``, with its diff of the working tree."""
    return _head(choice) + (
        diff_lines(diff)
        if diff is not None
        else [Line("    (no diff: the file changed since sampling)", Style.UNKNOWN)]
    )


def _head(choice: FixChoice) -> list[Line]:
    """Place, verdict, place among the plausible ones, why it failed; the first candidate that is
    not plausible is preceded by a line that says so."""
    record = choice.verdict
    verdict = record.verdict.value if record else "not validated"
    samples = "sample" if choice.candidate.count == 1 else "samples"
    rank = f"{choice.rank} of {choice.plausible_count} plausible; " if choice.rank else ""
    lines = [Line("")]
    if choice.rank is None and choice.position == choice.plausible_count + 1:
        lines += [Line("not plausible (for reference, not to apply):", Style.UNKNOWN), Line("")]
    found = choice.hidden
    lines.append(
        Line(
            f"#{choice.position}  {verdict}  ({rank}{choice.candidate.count} {samples}; "
            f"{choice.candidate.hash}){'  [HIDDEN CHARACTERS]' if found else ''}",
            Style.GOOD if choice.plausible and not found else Style.BAD,
        )
    )
    if found:
        lines.append(Line(f"    {flag(found)}", Style.BAD))
    if record is not None and record.failing_tests:
        lines.append(Line(f"    failing: {', '.join(record.failing_tests[:5])}"))
    why = record.detail or record.compile_errors if record is not None else ""
    if why.strip():
        lines.append(Line(f"    {why.strip().splitlines()[0][:300]}"))
    return lines


def fix_view(store: RunStore, bug: Bug, ranker: str | None, k: int) -> list[Line]:
    """``nl2fix show`` of a fix run: the first ``k`` candidates in the order ``nl2fix fix`` printed
    them, each as a diff of the method (by samples when the run is not ranked yet)."""
    choices = ordered(store, bug, ranker, verdict_engine(store))
    plausible = choices[0].plausible_count if choices else 0
    order = f"the order of {ranker}" if ranker else "most samples first: `nl2fix rank` has not run on this run"
    lines = [
        Line(f"{bug.id}: {bug.title}", Style.TITLE),
        Line(
            f"as `nl2fix fix` orders them: {plausible} plausible of {len(choices)} (plausible first, in "
            f"{order}); showing {min(k, len(choices))}"
        ),
    ]
    buggy = buggy_text(bug)
    for choice in choices[:k]:
        lines += _head(choice) + method_diff(buggy, candidate_text(choice.candidate.code), f"#{choice.position}")
    return lines
