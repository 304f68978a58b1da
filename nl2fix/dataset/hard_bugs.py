"""Per-bug difficulty flags, as peers report them: a fix in several hunks, a long fix, a fix that
also needs code outside the method. Computed from the dataset entry (and, for the last, from what
``nl2fix dataset build`` saw of the ground-truth patch)."""

from __future__ import annotations

import enum

from nl2fix.core.domain import Bug
from nl2fix.java_source.method_diff import fix_shape

DEFAULT_LONG_FIX_LINES = 10
"""A fix is long when more than this many lines of the method are removed plus added."""


class HardFlag(str, enum.Enum):
    MULTI_HUNK = "multi-hunk"
    """The fix changes the method in more than one place."""
    LONG_FIX = "long-fix"
    """More than N lines removed plus added (comments and blank lines not counted)."""
    OUTSIDE_METHOD = "outside-method"
    """The developer's fix also changes code outside the method (imports, fields, other methods);
    known only for datasets built with ``--keep-outside-changes``."""


def bug_flags(bug: Bug, long_fix_lines: int = DEFAULT_LONG_FIX_LINES) -> tuple[HardFlag, ...]:
    shape = fix_shape(bug.buggy_method, bug.fixed_method)
    flags = []
    if shape.hunks > 1:
        flags.append(HardFlag.MULTI_HUNK)
    if shape.changed_lines > long_fix_lines:
        flags.append(HardFlag.LONG_FIX)
    if bug.fix_outside_method:
        flags.append(HardFlag.OUTSIDE_METHOD)
    return tuple(flags)
