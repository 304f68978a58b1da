"""Pure parsers for what the Defects4J command line prints and writes.

Every format here is Defects4J's own (rjust/defects4j, v2.0.x):

- ``defects4j test`` (``framework/bin/d4j/d4j-test``) prints ``Failing tests: N`` on stdout, then
  ``  - pkg.Class::method`` per failing method, after ``  - pkg.Class`` per class-level failure;
  it exits 0 even when tests fail. Its ant runs go to stderr as ``Running ant (target).... OK``.
- The ``failing_tests`` file it leaves in the work dir is written by Defects4J's JUnit formatter
  (``framework/lib/formatter/.../Formatter.java``): ``--- pkg.Class::method`` (or ``--- pkg.Class``)
  followed by the stack trace; ``all_tests`` gets one ``method(pkg.Class)`` line per started test.
  Defects4J reads the first with ``Utils::get_failing_tests``, whose regex we mirror.
- ``defects4j compile`` runs ant ``compile`` then ``compile.tests``; a failure prints ``FAIL``, the
  ant log (javac errors as ``[javac] path:line: error: ...``) and dies with ``Cannot compile
  sources!`` (or ``Cannot compile tests!``), exit code non-zero.
- ``defects4j export -p PROP`` prints the value on stdout: lists one item per line, classpaths
  ``:``-separated; ``defects4j info`` prints ``key: value`` lines and 80-dash-separated sections.

Failure signatures (imitating SWE-bench's log parsers) tell apart what the candidate caused
(compile failure, failing or timed-out tests) from what the harness or machine caused.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

FAILING_TESTS_FILE = "failing_tests"
ALL_TESTS_FILE = "all_tests"

# Utils::get_failing_tests: /--- ([^:]+)(::([^:]+))?/ -- unanchored, as Defects4J counts it.
_FAILING_ENTRY = re.compile(r"--- ([^:]+)(?:::([^:]+))?")
_FAILING_COUNT = re.compile(r"^Failing tests: (\d+)\s*$", re.MULTILINE)
_LISTED_TEST = re.compile(r"^  - (.+?)\s*$")
# junit.framework.TestCase.toString() and JUnit 4 descriptions: ``method(pkg.Class)``.
_STARTED_TEST = re.compile(r"^(.*)\((.*)\)\s*$")
_JAVAC_LINE = re.compile(r"^\s*\[javac\] ?(.*)$")
# ``path:line: error: msg`` (javac 7+) or ``path:line: msg`` (javac 6); warnings look alike.
_JAVAC_DIAGNOSTIC = re.compile(r"^\S.*?:\d+: \S")
_JAVAC_WARNING = re.compile(r"^(?:\S.*?:\d+: )?warning: ")
_JAVAC_SUMMARY = re.compile(r"^(?:\d+ (?:errors?|warnings?)|Compiling \d+ source files?\b.*|Note: .*)$")
# Utils::exec_cmd: the description padded with dots, then OK or FAIL.
_STEP = re.compile(r"^(?P<step>\S.*?)\.* (?P<status>OK|FAIL)\s*$", re.MULTILINE)
_INFO_SEPARATOR = re.compile(r"^-{20,}$")
_INFO_KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?):\s+(\S.*)$")


class FailureKind(str, enum.Enum):
    """Why a Defects4J command did not succeed."""

    COMPILE_FAILURE = "compile-failure"
    """The sources (or the tests against them) do not compile: the candidate's fault."""
    TEST_FAILURE = "test-failure"
    """Tests ran and some failed: the candidate's fault."""
    TEST_TIMEOUT = "test-timeout"
    """Defects4J's own JUnit watchdog (180 s in ``defects4j.build.xml``) killed the tests."""
    CHECKOUT_FAILURE = "checkout-failure"
    """``defects4j checkout`` could not produce the project version."""
    BROKEN_ENVIRONMENT = "broken-environment"
    """Java, Perl, ant or Defects4J itself is missing or misconfigured: never the candidate."""

    @property
    def candidates_fault(self) -> bool:
        return self in (FailureKind.COMPILE_FAILURE, FailureKind.TEST_FAILURE, FailureKind.TEST_TIMEOUT)


@dataclass(frozen=True)
class FailureSignature:
    kind: FailureKind
    name: str
    pattern: re.Pattern
    source: str
    """Where in Defects4J (or the JVM, ant, Perl) the message comes from."""


def _sig(kind: FailureKind, name: str, regex: str, source: str) -> FailureSignature:
    return FailureSignature(kind, name, re.compile(regex, re.MULTILINE), source)


_ENV = FailureKind.BROKEN_ENVIRONMENT
# Checked in this order: an environment failure also ends in "Cannot compile sources!", so the
# environment signatures come first; a timeout also lists a failing "test", so it precedes those.
SIGNATURES: tuple[FailureSignature, ...] = (
    _sig(
        _ENV,
        "tool-missing",
        r"\b(?:defects4j|java|javac|perl|ant|git|svn): (?:command )?not found|env: '?perl'?: No such file or directory"
        r"|JAVA_HOME is not defined correctly",
        "shell / ant launcher",
    ),
    _sig(
        _ENV,
        "perl-module-missing",
        r"Can't locate (?!Project/)\S+\.pm in @INC",
        "perl: run `cpanm --installdeps .` (an unknown project shows as Project/X.pm: a checkout failure)",
    ),
    _sig(
        _ENV,
        "java-version-mismatch",
        r"Unsupported major\.minor version|UnsupportedClassVersionError|has been compiled by a more recent version"
        r"|Class not found: javac1\.\d+|Unrecognized VM option '[^']+'"
        r"|[Ss]ource option \S+ is no longer supported|[Tt]arget option \S+ is no longer supported",
        "JVM / ant / javac: Defects4J 2.x needs Java 8, 3.x Java 11",
    ),
    _sig(
        _ENV,
        "jvm-start",
        r"Could not find or load main class|Could not create the Java Virtual Machine",
        "JVM launcher",
    ),
    _sig(
        _ENV,
        "defects4j-not-initialised",
        r"Couldn't find (?:project repositories|Major mutation framework|external libraries)! Did you run",
        "framework/core/Constants.pm",
    ),
    _sig(
        _ENV,
        "not-a-work-dir",
        r"is not a valid working directory!|Build file does not exist:",
        "framework/bin/d4j/d4j-*, Project.pm _ant_call",
    ),
    _sig(_ENV, "disk-full", r"No space left on device", "operating system"),
    _sig(
        FailureKind.CHECKOUT_FAILURE,
        "checkout",
        r"Cannot checkout program version!|Couldn't check out program version!|Invalid project_id: "
        r"|Wrong version_id: |Version id does not exist|Couldn't init local git repository"
        r"|Couldn't tag (?:post-fix|fixed|buggy|pre-fix) (?:revision|program version)",
        "framework/bin/d4j/d4j-checkout, Project.pm checkout_vid, Utils::check_vid",
    ),
    _sig(
        FailureKind.TEST_TIMEOUT,
        "junit-watchdog",
        r"Timeout occurred\. Please note the time in the report",
        "ant JUnitTask.logTimeout (junit timeout=180000 in defects4j.build.xml)",
    ),
    _sig(
        FailureKind.COMPILE_FAILURE,
        "compile",
        r"Cannot compile sources!|Cannot compile tests!|Cannot compile test suite!",
        "framework/bin/d4j/d4j-compile, d4j-test",
    ),
    _sig(
        FailureKind.TEST_FAILURE,
        "forked-vm-crash",
        r"Forked Java VM exited abnormally",
        "ant JUnitTask.logVmCrash (e.g. System.exit in the code under test)",
    ),
    _sig(
        _ENV,
        "cannot-run-tests",
        r"Cannot run tests!|Cannot determine triggering tests!",
        "framework/bin/d4j/d4j-test: the ant test target itself failed",
    ),
    _sig(FailureKind.TEST_FAILURE, "failing-tests", r"^Failing tests: [1-9]", "framework/bin/d4j/d4j-test summary"),
)


def signature(name: str) -> FailureSignature:
    return next(s for s in SIGNATURES if s.name == name)


def _javac(line: str) -> tuple[str, str] | None:
    """``(kind, message)`` for an ant ``[javac]`` line: kind is ``error`` (a diagnostic's first
    line), ``warning``, ``summary`` (``2 errors``, ``Compiling 3 source files``, notes) or ``body``
    (the source line and caret javac prints under a diagnostic)."""
    m = _JAVAC_LINE.match(line)
    if not m:
        return None
    msg = m.group(1).rstrip()
    if _JAVAC_WARNING.match(msg):
        return "warning", msg
    if _JAVAC_DIAGNOSTIC.match(msg) or msg.startswith("error: "):
        return "error", msg
    if _JAVAC_SUMMARY.match(msg.strip()):
        return "summary", msg
    return "body", msg


def _without_source_echo(text: str) -> str:
    """Drop the source lines javac echoes under an error: they hold the candidate's own text,
    which must not be able to pose as an environment failure."""
    return "\n".join(line for line in text.splitlines() if (_javac(line) or ("",))[0] != "body")


def classify_failure(text: str) -> FailureSignature | None:
    """The first signature (in priority order) that ``text`` (stdout + stderr + logs) shows."""
    cleaned = _without_source_echo(text)
    for sig in SIGNATURES:
        if sig.pattern.search(cleaned):
            return sig
    return None


@dataclass(frozen=True)
class FailingTests:
    """The ``failing_tests`` file, read the way ``Utils::get_failing_tests`` reads it."""

    classes: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    causes: dict[str, str] = field(default_factory=dict)
    """First line of each entry's stack trace (the exception and its message)."""

    @property
    def count(self) -> int:
        return len(self.classes) + len(self.methods)

    @property
    def names(self) -> tuple[str, ...]:
        """Classes first, then methods: the order ``defects4j test`` prints them in."""
        return self.classes + self.methods


def parse_failing_tests(text: str) -> FailingTests:
    classes: list[str] = []
    methods: list[str] = []
    causes: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _FAILING_ENTRY.search(line.rstrip("\r\n"))
        if not m:
            continue
        cls, method = m.group(1).strip(), m.group(2)
        name = f"{cls}::{method.strip()}" if method else cls
        (methods if method else classes).append(name)
        if i + 1 < len(lines) and name not in causes and not _FAILING_ENTRY.search(lines[i + 1]):
            causes[name] = lines[i + 1].strip()
    return FailingTests(tuple(classes), tuple(methods), causes)


@dataclass(frozen=True)
class TestReport:
    """What ``defects4j test`` printed on stdout."""

    count: int
    failing: tuple[str, ...]


def parse_test_output(stdout: str) -> TestReport | None:
    """``Failing tests: N`` and the listed tests; None when the summary line is missing
    (Defects4J died before reporting)."""
    m = _FAILING_COUNT.search(stdout)
    if not m:
        return None
    failing = []
    for line in stdout[m.end() :].splitlines()[1:]:
        item = _LISTED_TEST.match(line)
        if not item:
            break
        failing.append(item.group(1))
    return TestReport(int(m.group(1)), tuple(failing))


def parse_all_tests(text: str) -> tuple[str, ...]:
    """``Class::method`` for each ``method(Class)`` line of ``all_tests``; other lines as they are."""
    started = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _STARTED_TEST.match(line.strip())
        started.append(f"{m.group(2)}::{m.group(1)}" if m else line.strip())
    return tuple(started)


def failed_step(stderr: str) -> str:
    """The first Defects4J progress step that reported ``FAIL`` (``Running ant (compile)`` ...)."""
    for m in _STEP.finditer(stderr):
        if m.group("status") == "FAIL":
            return m.group("step").strip()
    return ""


def compile_errors(text: str, limit: int = 5) -> str:
    """The compiler's first ``limit`` errors, each with the lines javac printed under it."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        kind, msg = _javac(line) or ("", "")
        if kind == "error":
            if len(blocks) == limit:
                break
            current = [msg.strip()]
            blocks.append(current)
        elif kind == "body" and current is not None and msg.strip():
            current.append(msg)
        else:
            current = None
    return "\n".join("\n".join(b) for b in blocks)


def parse_export_list(value: str) -> tuple[str, ...]:
    """A list property (``tests.trigger``, ``tests.relevant`` ...): one item per line."""
    return tuple(line.strip() for line in value.splitlines() if line.strip())


def parse_classpath(value: str) -> tuple[str, ...]:
    """A ``:``-separated classpath, in order, without blanks, repeats or unexpanded ``${...}``
    entries (some projects' exports leave ant properties unresolved)."""
    seen: dict[str, None] = {}
    for entry in value.replace("\n", ":").split(":"):
        entry = entry.strip()
        if entry and "${" not in entry:
            seen.setdefault(entry, None)
    return tuple(seen)


@dataclass(frozen=True)
class BugInfo:
    """``defects4j info -p P [-b N]``."""

    project: dict[str, str]
    """``Project ID``, ``Program``, ``Build file``, ``Vcs``, ``Number of bugs`` ..."""
    bug: str = ""
    """``Lang-1`` when a bug was asked for."""
    sections: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each bug section's title (without the colon) and its lines."""
    root_causes: dict[str, str] = field(default_factory=dict)
    """Trigger test -> the first line of its failure."""

    def value(self, title: str) -> str:
        lines = self.sections.get(title, ())
        return lines[0] if lines else ""

    @property
    def modified_sources(self) -> tuple[str, ...]:
        return tuple(l[2:].strip() for l in self.sections.get("List of modified sources", ()) if l.startswith("- "))


def parse_info(stdout: str) -> BugInfo:
    project: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    bug = ""
    title: str | None = None
    for raw in stdout.splitlines():
        line = raw.strip()
        if not line or _INFO_SEPARATOR.match(line):
            title = None
            continue
        if line.startswith("Summary for Bug:"):
            bug = line.split(":", 1)[1].strip()
            continue
        if line.startswith("Summary of configuration"):
            continue
        if not bug:
            kv = _INFO_KEY_VALUE.match(line)
            if kv:
                project[kv.group(1).strip()] = kv.group(2).strip()
            continue
        if title is None and line.endswith(":"):
            title = line[:-1]
            sections[title] = []
        elif title is not None:
            sections[title].append(line)
    causes: dict[str, str] = {}
    last = None
    for line in sections.get("Root cause in triggering tests", ()):
        if line.startswith("- "):
            last = line[2:].strip()
            causes[last] = ""
        elif line.startswith("-->") and last:
            causes[last] = line[3:].strip()
    return BugInfo(project, bug, {k: tuple(v) for k, v in sections.items()}, causes)
