"""A bug of the user's own project as a :class:`Bug` record: the issue text in place of the
benchmark's title and description, the method to fix, the failing test and the tests that cover
the method's file. Pure functions over text, apart from reading the issue file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nl2fix.core.domain import USER_BENCHMARK, Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.localise import MethodRef, methods_of, top_class
from nl2fix.java_source.lexer import Kind, code_tokens, matching_close
from nl2fix.java_source.text import remove_comments

_METHOD_SPEC = re.compile(r"^(?P<path>[^:]+\.java):(?P<cls>[\w.$]+)#(?P<name>[\w$]+)(?::(?P<line>\d+))?$")
_TEST_SPEC = re.compile(r"^(?P<cls>[\w.$]+)(?:::|#)(?P<name>[\w$]+)$")
_CLASS_KEYWORDS = frozenset({"class", "interface", "enum", "record"})
_ID_PART = re.compile(r"[^A-Za-z0-9]+")
_EXTENDS = re.compile(r"\bclass\s+[A-Za-z_$][\w$]*(?:\s*<[^{]*?>)?\s+extends\s+([\w.$]+)")
_FILE_LIKE = re.compile(r"^[^\s]*(?:[/\\][^\s]*|\.(?:md|txt|markdown|issue|rst|text))$", re.IGNORECASE)


@dataclass(frozen=True)
class MethodSpec:
    path: str
    cls: str
    """Simple (or ``Outer.Inner``/``Outer$Inner``) name of the class declaring the method."""
    name: str
    line: int | None = None
    """Any line inside the method: picks one of several overloads."""


def parse_method_spec(text: str) -> MethodSpec:
    """``path/File.java:Class#method`` or ``path/File.java:Class#method:LINE``."""
    m = _METHOD_SPEC.match(text.strip())
    if not m:
        raise Nl2FixError(
            f"--method {text!r} is not path/File.java:Class#method",
            "e.g. --method src/main/java/org/acme/Pager.java:Pager#pageCount (add :LINE for an overload)",
        )
    return MethodSpec(
        m.group("path"), m.group("cls"), m.group("name"), int(m.group("line")) if m.group("line") else None
    )


def parse_test_spec(text: str, test_classes: list[str], where: str = "the project's test sources") -> str:
    """``Class::method`` (or ``Class#method``) with the class qualified from the test sources'
    classes when given by its simple name; ``where`` names the folders looked in, for the error."""
    m = _TEST_SPEC.match(text.strip())
    if not m:
        raise Nl2FixError(f"--test {text!r} is not Class::method", "e.g. --test org.acme.PagerTest::partialLastPage")
    cls = m.group("cls")
    if cls not in test_classes:
        matches = [c for c in test_classes if c.rsplit(".", 1)[-1] == cls or c.endswith("." + cls)]
        if len(matches) > 1:
            raise Nl2FixError(
                f"several test classes are named {cls} in {where}",
                f"give the qualified name, one of: {', '.join(matches)}",
            )
        if not matches:
            simple = {c.rsplit(".", 1)[-1]: c for c in test_classes}
            close = [simple[n] for n in difflib.get_close_matches(cls.rsplit(".", 1)[-1], simple, n=3)]
            raise Nl2FixError(
                f"no test class {cls} in {where} ({len(test_classes)} test classes there)",
                f"did you mean {' or '.join(close)}?"
                if close
                else "give a class of those folders; --build/--test-src say where the tests are",
            )
        cls = matches[0]
    return f"{cls}::{m.group('name')}"


def check_test_method(test: str, test_sources: Mapping[str, str]) -> None:
    """Raise unless ``Class::method``'s class (or a superclass among the test sources) declares the
    method. A superclass outside the test sources (a library's) may declare it: that is let through."""
    cls, _, method = test.partition("::")
    by_class = {top_class(path, text): (path, text) for path, text in test_sources.items()}
    by_simple = {name.rsplit(".", 1)[-1]: name for name in by_class}
    seen: list[str] = []
    current: str | None = cls.split("$", 1)[0]
    declared: set[str] = set()
    while current and current in by_class and current not in seen:
        seen.append(current)
        path, text = by_class[current]
        declared |= {ref.name for ref in methods_of(path, text)}
        if method in declared:
            return
        parent = _EXTENDS.search(text)
        if parent is None:
            break
        name = parent.group(1)
        current = name if name in by_class else by_simple.get(name)
        if current is None:
            return  # inherits from outside the test sources: it may declare the test
    if not seen:
        return
    close = difflib.get_close_matches(method, sorted(declared), n=3)
    raise Nl2FixError(
        f"{cls} has no method {method} (looked in {by_class[seen[0]][0]}"
        + (f" and its superclasses {', '.join(seen[1:])}" if len(seen) > 1 else "")
        + ")",
        f"did you mean {' or '.join(close)}?" if close else "name a test method of that class",
    )


def _class_spans(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every class declaration, read from code tokens, so that a
    comment's words ("the given class failed") or a string's braces are never taken for code."""
    tokens = code_tokens(text)
    spans = []
    for i, token in enumerate(tokens[:-1]):
        if (
            token.text not in _CLASS_KEYWORDS
            or tokens[i + 1].kind is not Kind.WORD
            or (i > 0 and tokens[i - 1].text in (".", "::"))
        ):  # String.class, Foo::class
            continue
        open_at = next((j for j in range(i + 2, len(tokens)) if tokens[j].text in ("{", ";")), None)
        if open_at is None or tokens[open_at].text != "{":
            continue
        close = matching_close(tokens, open_at)
        end = tokens[close].start if close is not None else len(text)
        spans.append((tokens[i + 1].text, text.count("\n", 0, token.start) + 1, text.count("\n", 0, end) + 1))
    return spans


def find_method(spec: MethodSpec, text: str) -> MethodRef:
    """The declaration ``spec`` names in the file's text."""
    inner = re.split(r"[.$]", spec.cls)[-1]
    spans = _class_spans(text)
    found = []
    for ref in methods_of(spec.path, text):
        if ref.name != spec.name:
            continue
        enclosing = [s for s in spans if s[1] <= ref.start_line <= s[2]]
        owner = min(enclosing, key=lambda s: s[2] - s[1])[0] if enclosing else PurePosixPath(spec.path).stem
        if owner == inner:
            found.append(ref)
    named = found
    if spec.line is not None:
        found = [r for r in found if r.start_line <= spec.line <= r.end_line]
    if len(found) == 1:
        return found[0]
    if not found and named:
        options = ", ".join(
            f"{spec.path}:{spec.cls}#{spec.name}:{r.start_line} ({r.params}; lines {r.start_line}-{r.end_line})"
            for r in named
        )
        raise Nl2FixError(
            f"no method {spec.cls}#{spec.name} in {spec.path} spans line {spec.line}",
            f"give a line from its header to its closing brace: {options}",
        )
    if not found:
        raise Nl2FixError(
            f"no method {spec.cls}#{spec.name} in {spec.path}",
            "check the class and method names (constructors are named like their class)",
        )
    options = ", ".join(f"{spec.path}:{spec.cls}#{spec.name}:{r.start_line} ({r.params})" for r in found)
    raise Nl2FixError(f"{spec.cls}#{spec.name} is overloaded in {spec.path}", f"add the line: {options}")


def read_issue(value: str) -> tuple[str, str]:
    """The issue's title (its first non-empty line, Markdown heading marks dropped) and description
    (the rest), from a file when ``value`` names one, else from the text itself. A single word that
    looks like a path (a folder separator or a text file's suffix) and is not a file is an error:
    a mistyped file name would otherwise become the whole bug report."""
    path = Path(value)
    if _FILE_LIKE.match(value.strip()) and not path.is_file():
        raise Nl2FixError(
            f"the issue file {value} does not exist (looked in {Path.cwd()})",
            "pass the issue file's path, or its text in quotes",
        )
    try:
        text = path.read_text(encoding="utf-8") if len(value) < 4096 and path.is_file() else value
    except OSError as exc:
        raise Nl2FixError(f"cannot read the issue file {value}: {exc.strerror}") from exc
    lines = text.strip().splitlines()
    if not lines:
        raise Nl2FixError("the issue text is empty", "pass --issue FILE or --issue 'what goes wrong'")
    title = lines[0].lstrip("#").strip()
    return title, "\n".join(lines[1:]).strip()


def module_test_classes(test_sources: Mapping[str, str], triggers: tuple[str, ...]) -> tuple[str, ...]:
    """Every concrete test class of the module's test sources, the trigger tests' classes first: the
    relevant tests of a user's bug. The buggy version's run of them all records which tests execute
    the method (``defects4j_adapter.engines.narrowing``), and candidates run those: a test reaches the
    method through other classes as often as by naming its class (jsoup's ``ElementsTest`` catches a
    wrong ``Attributes#removeIgnoreCase`` without naming ``Attributes``)."""
    found = []
    for path, text in sorted(test_sources.items()):
        if "@Test" not in text and "extends TestCase" not in text:
            continue
        name = top_class(path, text)
        if not re.search(rf"\babstract\s+(?:\w+\s+)*class\s+{re.escape(name.rsplit('.', 1)[-1])}\b", text):
            found.append(name)
    first = [t.split("::")[0] for t in triggers]
    return tuple(dict.fromkeys([*first, *found]))


def bug_id_parts(project: Path, issue: str) -> tuple[str, int]:
    """A bug id for the report: the project folder's name and the first number in the issue's
    file name (``issue-42.md``), else 1."""
    name = _ID_PART.sub("", project.resolve().name.title()) or "Project"
    stem = Path(issue).name if len(issue) < 256 and Path(issue).is_file() else ""
    number = re.search(r"\d+", stem)
    return name, int(number.group()) if number else 1


def parse_bug_id(text: str) -> tuple[str, int]:
    name, _, digits = text.rpartition("-")
    if not _ID_PART.sub("", name) or not digits.isdigit():
        raise Nl2FixError(f"--id {text!r} is not NAME-NUMBER", "e.g. --id Acme-42")
    return name, int(digits)


def make_bug(
    *,
    project: str,
    number: int,
    ref: MethodRef,
    file_text: str,
    title: str,
    description: str,
    triggers: tuple[str, ...],
    relevant: tuple[str, ...],
    source_dir: str,
    test_dir: str,
) -> Bug:
    lines = file_text.splitlines()
    method = "\n".join(lines[ref.start_line - 1 : ref.end_line])
    return Bug(
        project=project,
        number=number,
        path=ref.path,
        start_line=ref.start_line,
        end_line=ref.end_line,
        buggy_method=method,
        fixed_method="",
        title=title,
        description=description,
        trigger_tests=triggers,
        relevant_tests=relevant,
        modified_classes=(ref.cls,),
        source_dir=source_dir,
        test_dir=test_dir,
        benchmark=USER_BENCHMARK,
        buggy_method_no_comments=remove_comments(method),
    )
