"""What a model is told about one of its candidates: the verdict's structured fields as short text. Pure.

Built only from what the validation stored (verdict, first failing test, its failure message and the
test's source line, the compiler's first error), never from raw logs, and bounded: each field has
its own limit and the whole text ``FEEDBACK_CHARS``, so one candidate cannot fill the context window.
A compiler error's line number is in the spliced file; it is turned into the line of the candidate
method (and that line quoted), which is what the model wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2fix.core.domain import Verdict
from nl2fix.store.records import ValidationRecord

FEEDBACK_CHARS = 900
"""Most characters of one candidate's feedback."""
FIELD_CHARS = 300
"""Most characters of one field (a message, an expected or actual value, a source line)."""
CUT = " [...]"

_EXPECTED = re.compile(r"expected:\s?<(.*)> but was:\s?<(.*)>\s*$", re.DOTALL)
_DETAIL = ("symbol:", "location:", "required:", "found:", "reason:")
"""The lines javac writes under an error that say what it means (not the echoed source and caret)."""
_COMPILER_ERROR = re.compile(r"^(?:[\w$]+\.java:(\d+): )?error: (.*)$")


def _bounded(text: str, limit: int = FIELD_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - len(CUT)] + CUT


def expected_actual(message: str) -> tuple[str, str] | None:
    """The expected and actual values of a JUnit equality failure (``expected:<a> but was:<b>``,
    JUnit 5's ``expected: <a> but was: <b>``), else None."""
    found = _EXPECTED.search(message)
    return (found.group(1), found.group(2)) if found else None


@dataclass(frozen=True)
class CompilerError:
    """One error javac reported: where, and what it means."""

    file_line: int | None
    """Its line in the compiled (spliced) file, when javac named one."""
    text: str
    """The message with the detail lines javac writes under it (``symbol:``, ``location:`` ...), joined by ``; ``."""

    def method_line(self, start_line: int, code: str) -> int | None:
        """Its 1-based line in the candidate ``code`` spliced at ``start_line``, or None when it lies outside it."""
        if self.file_line is None:
            return None
        line = self.file_line - start_line + 1
        return line if 1 <= line <= len(code.splitlines()) else None


def compiler_errors(errors: str) -> list[CompilerError]:
    """Every error in the compiler's output, in its order."""
    lines = errors.strip().splitlines()
    starts = [(i, m) for i, line in enumerate(lines) if (m := _COMPILER_ERROR.match(line.strip()))]
    found = []
    for (i, match), end in zip(starts, [i for i, _ in starts[1:]] + [len(lines)]):
        # its detail lines come before the next error's (javac's echoed source and caret are left out)
        detail = [d.strip() for d in lines[i + 1 : min(i + 5, end)] if d.strip().startswith(_DETAIL)]
        found.append(
            CompilerError(int(match.group(1)) if match.group(1) else None, "; ".join([match.group(2), *detail]))
        )
    return found


def compiler_error(errors: str, code: str, start_line: int) -> str:
    """The compiler's first error, placed in the candidate method when it lies there, with the
    detail lines javac writes under it (``symbol:``, ``location:`` ...)."""
    found = compiler_errors(errors)
    if not found:
        lines = errors.strip().splitlines()
        return _bounded(lines[0]) if lines else "(the compiler named no error)"
    first = found[0]
    if first.file_line is None:
        return _bounded(first.text)
    in_method = first.method_line(start_line, code)
    if in_method is None:
        return f"outside the method: {_bounded(first.text)}"
    return f"line {in_method} of the method, `{_bounded(code.splitlines()[in_method - 1])}`: {_bounded(first.text)}"


def feedback(record: ValidationRecord, code: str, start_line: int, limit: int = FEEDBACK_CHARS) -> str | None:
    """What to tell the model about candidate ``code`` judged by ``record``; None for an ``error``
    verdict (the harness failed, which says nothing about the candidate). ``start_line``: the first
    line of the buggy method in its file, where the candidate was spliced."""
    if record.verdict is Verdict.ERROR:
        return None
    if record.verdict is Verdict.PLAUSIBLE:
        return "This version compiles and passes all the tests."
    if record.verdict is Verdict.REJECTED:
        return _bounded("This version was rejected without running its tests: " + record.detail, limit)
    if record.verdict is Verdict.UNCOMPILABLE:
        return _bounded(
            "This version does not compile: " + compiler_error(record.compile_errors, code, start_line), limit
        )
    test = record.failing_tests[0] if record.failing_tests else ""
    if record.verdict is Verdict.TIMEOUT:
        what = f"the test {test} did not finish in time" if test else "the tests did not finish in time"
        parts = [f"This version does not terminate: {what} (an endless loop?)."]
    else:
        parts = [f"This version fails the test {test}." if test else "This version fails the tests."]
    if record.failure_message:
        parts.append("Failure: " + _bounded(record.failure_message))
        values = expected_actual(record.failure_message)
        if values is not None:
            parts += [f"Expected: {_bounded(values[0])}", f"Actual: {_bounded(values[1])}"]
    if record.failure_source:
        where = f"line {record.failure_line}" if record.failure_line else "the line"
        parts.append(f"The test failed at {where}: {_bounded(record.failure_source)}")
    others = len(record.failing_tests) - 1
    if others > 0:
        parts.append(f"({others} more test{'s' if others > 1 else ''} fail{'' if others > 1 else 's'}.)")
    return _bounded("\n".join(parts), limit)
