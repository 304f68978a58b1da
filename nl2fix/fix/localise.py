"""Which method to fix, from a failing test's stack trace. Pure functions over text.

The frames that name the project's own main classes (not the JDK, libraries or the test sources,
helpers included) point at the suspects. A frame is mapped to a method by its file and line, so
lambdas (``lambda$name$0``), anonymous and inner classes (``Outer$Inner``) land in the method
whose text holds that line. Each throwable of the chain counts, the root cause (the last
``Caused by:``) most, and in each the frame nearest the throw most. When no frame names a main
class (an assertion in the test failed), the suspects are the main methods the failing test
method calls. The issue text's identifiers break ties.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from nl2fix.java_source.methods import find_methods

_FRAME = re.compile(r"^\s*at\s+(?:[\w.$-]*/)*(?P<cls>[\w.$]+)\.(?P<method>[\w$<>]+)\((?P<where>[^)]*)\)")
_HEADER = re.compile(
    r"^\s*(?:(?P<kind>Caused by|Suppressed):\s*)?"
    r"(?P<text>[\w.$]+(?:Exception|Error|Throwable|Failure)\b.*|[\w.$]+\.[\w$]+(?::.*)?)$"
)
_JUNIT_FAILURE = re.compile(r"^\d+\) (?P<method>[^(\s]+)\((?P<cls>[\w.$]+)\)$")
_LAMBDA = re.compile(r"^lambda\$(?P<name>\w+?)\$\d+$")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_CALL = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")


@dataclass(frozen=True)
class Frame:
    cls: str
    """Binary class name: ``org.acme.Outer$Inner``."""
    method: str
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class Throwable:
    header: str
    """``java.lang.ArithmeticException: / by zero``."""
    frames: tuple[Frame, ...]
    depth: int
    """0 for the thrown exception, 1 for its cause, and so on (suppressed ones keep their parent's)."""


def parse_trace(text: str) -> list[Throwable]:
    """The throwables of a printed stack trace, outermost first."""
    found: list[Throwable] = []
    header, frames, depth = None, [], 0
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _FRAME.match(line)
        if m:
            where = m.group("where")
            file, _, number = where.partition(":")
            frames.append(
                Frame(
                    m.group("cls"),
                    m.group("method"),
                    file if file.endswith(".java") else "",
                    int(number) if number.isdigit() else 0,
                )
            )
            continue
        h = _HEADER.match(line)
        if h and (h.group("kind") or header is None):
            if header is not None:
                found.append(Throwable(header, tuple(frames), depth))
            if h.group("kind") == "Caused by":
                depth += 1
            header, frames = h.group("text"), []
    if header is not None:
        found.append(Throwable(header, tuple(frames), depth))
    return found


def junit_failures(output: str) -> dict[str, str]:
    """The failures JUnit 4's ``JUnitCore`` printed: ``Class::method`` to its stack trace."""
    out: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in output.splitlines():
        m = _JUNIT_FAILURE.match(line)
        if m:
            if name:
                out[name] = "\n".join(lines)
            name, lines = f"{m.group('cls')}::{m.group('method')}", []
        elif name and (line.startswith("FAILURES!!!") or line.startswith("Tests run:")):
            out[name] = "\n".join(lines)
            name = None
        elif name:
            lines.append(line)
    if name:
        out[name] = "\n".join(lines)
    return out


@dataclass(frozen=True)
class MethodRef:
    """One method declaration of a source file."""

    path: str
    """Relative to the project root."""
    cls: str
    """Top-level class of the file, qualified: ``org.acme.Pager``."""
    name: str
    start_line: int
    end_line: int
    params: str = ""

    @property
    def label(self) -> str:
        return f"{self.path}:{self.cls.rsplit('.', 1)[-1]}#{self.name} (lines {self.start_line}-{self.end_line})"


def top_class(path: str, text: str) -> str:
    """The qualified top-level class of a source file, by its package and file name."""
    package = _PACKAGE.search(text)
    top = PurePosixPath(path).stem
    return f"{package.group(1)}.{top}" if package else top


def methods_of(path: str, text: str) -> list[MethodRef]:
    """Every method declaration of a Java file (those of named inner classes too)."""
    cls = top_class(path, text)
    return [
        MethodRef(
            path,
            cls,
            span.name,
            text.count("\n", 0, span.start) + 1,
            text.count("\n", 0, span.end if span.complete else len(text)) + 1,
            span.params,
        )
        for span in find_methods(text)
    ]


@dataclass
class SourceIndex:
    """The project's main and test sources (relative path -> text)."""

    main: Mapping[str, str]
    tests: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_class: dict[str, list[MethodRef]] = {}
        for path, text in self.main.items():
            for ref in methods_of(path, text):
                self._by_class.setdefault(ref.cls, []).append(ref)
        self._test_methods: dict[str, list[tuple[MethodRef, str]]] = {}
        for path, text in self.tests.items():
            lines = text.splitlines()
            for ref in methods_of(path, text):
                body = "\n".join(lines[ref.start_line - 1 : ref.end_line])
                self._test_methods.setdefault(ref.cls, []).append((ref, body))

    def method_at(self, frame: Frame) -> MethodRef | None:
        """The main method a frame ran in: the innermost declaration holding its line, else the only
        one of its name; None for a frame outside the main sources."""
        outer = frame.cls.split("$", 1)[0]
        refs = self._by_class.get(outer, [])
        if not refs and frame.file:  # a second top-level class of another file in the same package
            package = outer.rsplit(".", 1)[0] if "." in outer else ""
            stem = frame.file[: -len(".java")]
            refs = self._by_class.get(f"{package}.{stem}" if package else stem, [])
        if frame.line:
            holding = [r for r in refs if r.start_line <= frame.line <= r.end_line]
            if holding:
                return min(holding, key=lambda r: r.end_line - r.start_line)
        lam = _LAMBDA.match(frame.method)
        name = lam.group("name") if lam else frame.method
        named = [r for r in refs if r.name == name]
        return named[0] if len(named) == 1 else None

    def test_body(self, test: str) -> str:
        """The text of a test method ``Class::method``; empty when it is not in the test sources."""
        cls, _, method = test.partition("::")
        for ref, body in self._test_methods.get(cls.split("$", 1)[0], []):
            if ref.name == method:
                return body
        return ""

    def methods_named(self, names: set[str]) -> list[MethodRef]:
        return [r for refs in self._by_class.values() for r in refs if r.name in names]


@dataclass
class Suspect:
    method: MethodRef
    score: float = 0.0
    mentions: int = 0
    """How often the issue text names the method or its class."""
    reasons: list[str] = field(default_factory=list)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _mentions(ref: MethodRef, words: dict[str, int]) -> int:
    return words.get(ref.name, 0) + words.get(ref.cls.rsplit(".", 1)[-1], 0)


def _qualified_mentions(ref: MethodRef, issue: str) -> int:
    """How often the issue names the method with its class: ``StringUtils#equals``,
    ``StringUtils.equals(``, ``StringUtils::equals``."""
    simple = re.escape(ref.cls.rsplit(".", 1)[-1])
    return len(re.findall(rf"\b{simple}\s*(?:#|\.|::)\s*{re.escape(ref.name)}\b", issue))


def issue_weight(qualified: int, mentions: int) -> float:
    """What the issue's naming adds to a suspect's score. A frame's weight is 1 for the frame
    nearest the throw, 1/2 for the next...: a method the issue names with its class twice or more
    outweighs the first frame of a helper it calls; bare names (``equals``) count little."""
    return 0.6 * min(qualified, 3) + 0.05 * min(mentions, 4)


def rank_suspects(trace: str, index: SourceIndex, *, test: str = "", issue: str = "") -> list[Suspect]:
    """The main methods the failure points at, most suspect first."""
    words: dict[str, int] = {}
    for w in _WORD.findall(issue):
        words[w] = words.get(w, 0) + 1
    throwables = parse_trace(trace)
    deepest = max((t.depth for t in throwables), default=0)
    suspects: dict[MethodRef, Suspect] = {}
    for t in throwables:
        what = (
            "the root cause"
            if t.depth == deepest and deepest
            else ("the failure" if not t.depth else f"cause {t.depth}")
        )
        k = 0
        for frame in t.frames:
            ref = index.method_at(frame)
            if ref is None:
                continue
            k += 1
            s = suspects.setdefault(ref, Suspect(ref))
            s.score += 2.0**t.depth / k
            s.reasons.append(
                f"{_ordinal(k)} project frame of {what} ({t.header.strip()[:120]}) at "
                f"{frame.file or frame.cls}:{frame.line}"
            )
    if not suspects and test:
        calls = set(_CALL.findall(index.test_body(test)))
        for ref in index.methods_named(calls):
            s = suspects.setdefault(ref, Suspect(ref))
            s.score += 0.5
            s.reasons.append(f"no stack frame in the project's main code; {test} calls {ref.name}(...)")
    for s in suspects.values():
        s.mentions = _mentions(s.method, words)
        qualified = _qualified_mentions(s.method, issue)
        s.score += issue_weight(qualified, s.mentions)
        if qualified:
            name = f"{s.method.cls.rsplit('.', 1)[-1]}#{s.method.name}"
            s.reasons.insert(0, f"the issue names {name} {qualified} time(s)")
        if s.mentions:
            s.reasons.append(f"the issue names it or its class {s.mentions} time(s)")
    return sorted(suspects.values(), key=lambda s: (-s.score, -s.mentions, s.method.path, s.method.start_line))


AMBIGUOUS = 0.9
"""A runner-up scoring at least this share of the first's score makes the choice ambiguous."""


def ambiguous(suspects: list[Suspect]) -> bool:
    """Whether the first suspect is not clearly ahead of the second."""
    return len(suspects) > 1 and suspects[1].score >= AMBIGUOUS * suspects[0].score
