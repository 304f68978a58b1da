"""Narrowing a selection of bugs by when their issue was opened and by difficulty flags:
``--created-after/--created-before`` (contamination: was the issue older than the model?) and
``--flag [no-]NAME`` (see :mod:`nl2fix.dataset.hard_bugs`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.hard_bugs import DEFAULT_LONG_FIX_LINES, HardFlag, bug_flags


def parse_day(text: str, option: str) -> date:
    try:
        return date.fromisoformat(text.strip()[:10])
    except ValueError:
        raise Nl2FixError(f"{option} {text!r} is not a date", "write it as YYYY-MM-DD, e.g. 2021-09-01") from None


def created_day(bug: Bug) -> date | None:
    """The day (UTC) the bug's issue was opened; None when the dataset does not say."""
    try:
        return date.fromisoformat(bug.issue_created[:10]) if bug.issue_created else None
    except ValueError:
        return None


def parse_flags(values) -> tuple[tuple[HardFlag, bool], ...]:
    """``multi-hunk`` -> (MULTI_HUNK, True); ``no-long-fix`` -> (LONG_FIX, False)."""
    out = []
    for value in values:
        wanted = not value.startswith("no-")
        name = value[3:] if not wanted else value
        try:
            out.append((HardFlag(name), wanted))
        except ValueError:
            raise Nl2FixError(
                f"unknown flag {value!r}", "flags: " + ", ".join(f.value for f in HardFlag) + " (prefix no- to exclude)"
            ) from None
    return tuple(out)


@dataclass(frozen=True)
class BugFilter:
    created_after: date | None = None
    """Keep bugs whose issue was opened on or after this day."""
    created_before: date | None = None
    """Keep bugs whose issue was opened before this day."""
    flags: tuple[tuple[HardFlag, bool], ...] = ()
    long_fix_lines: int = DEFAULT_LONG_FIX_LINES

    @property
    def active(self) -> bool:
        return bool(self.created_after or self.created_before or self.flags)

    def apply(self, bugs: list[Bug]) -> tuple[list[Bug], list[str]]:
        """The bugs that pass, and notes on what was left out (bugs without a date cannot pass a date filter)."""
        kept, undated = [], []
        for bug in bugs:
            day = created_day(bug)
            if self.created_after or self.created_before:
                if day is None:
                    undated.append(bug.id)
                    continue
                if (self.created_after and day < self.created_after) or (
                    self.created_before and day >= self.created_before
                ):
                    continue
            if self.flags:
                have = set(bug_flags(bug, self.long_fix_lines))
                if any((flag in have) != wanted for flag, wanted in self.flags):
                    continue
            kept.append(bug)
        notes = []
        if undated:
            notes.append(
                f"{len(undated)} bug(s) have no issue creation date and are left out by the date filter "
                f"({', '.join(undated[:5])}{' ...' if len(undated) > 5 else ''}); "
                "a dataset made by `nl2fix dataset build` has the dates"
            )
        return kept, notes
