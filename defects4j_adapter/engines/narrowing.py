"""The tests that can notice a change to the buggy method: the fast engine runs those (and the
trigger tests) instead of every relevant test class.

A candidate changes the method's body only (the class-file check holds it to that). A test that
never executes the method runs the same code under every candidate, so its outcome cannot change,
unless it reads state that a call of the method left behind (below). Which tests execute it is
recorded once per bug, on trusted code, in the run of every test that a baseline makes anyway: the
fixed version's (the buggy version's where there is no fix; either serves, since whether a test
calls the method at all is decided by code before its first call, outside the method), so the
buggy baseline, which runs after it, runs only the tests that can notice it as candidates do.
The runner puts a call of ``MethodReach.hit()`` at the start of the method's
bytecode (``CallInserter.java``: every method of that name in the file's classes, and the
constructors when it is one: more than the method is safe, it only keeps more tests) and
attributes each call to the test then running on the test thread (``MethodReach.java``). The
recording is kept in the machine's cache under a key of the workspace, the bug's method and tests,
and the recording logic (this module and the runner's sources), so a change to any of them records
afresh.

What stays safe, and how (docs/guides/validation.md, "Which tests can notice a change", says why):

- A call outside any test (a static initialiser, ``@BeforeClass``, a suite's set-up, another
  thread) leaves its effect for the tests after it: a call in a static initialiser keeps every
  test of the bug, one elsewhere keeps its test class whole.
- Tests of one class share its static fields (a ``static final ObjectMapper`` whose caches one test
  fills and the next reads): a class with any static field that is not a constant (``static final``
  primitive or ``String``), in itself, its nested classes or its test superclasses, runs whole
  when any of its tests executes the method; a class without runs only those tests.
- A recording that is not whole (the job did not complete, a test class failed to load or set up,
  the call did not go in) narrows nothing: every relevant test runs; a test that timed out keeps
  its class whole. So does a candidate whose declaration changes (it is rebuilt; other calls may
  bind to it).

- A test whose outcome depends on the tests before it through state outside the test classes
  (a project class's static fields one test sets and another reads without calling the method):
  right after recording, the buggy version's narrowed set runs once and must fail exactly the
  tests the whole run failed among them; otherwise the recording narrows nothing (Cli-8, -23, -24,
  -25: ``BugsTest::test13666`` fails alone).

Every other run is narrowed, the buggy baseline's too. A test left out fails or passes alike under
every version (it cannot notice the change), so its result is the fixed version's: one that fails
there is not held against a candidate, one that passes needs no run to pass again. Leaving it out
of ``--all-tests`` runs keeps Table 2's regression rate for the same reason.

Not covered: state that outlives a test outside the test classes (a project class's static
cache filled through the method in one test class and read without calling it in another, a
file, a system property) where the buggy version's narrowed run does not show it, and tests that
read the method's class file or time themselves. The
benchmark (``scripts/bench_real.py --narrowing``) compares every candidate's verdict with and
without narrowing.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from defects4j_adapter.bytecode import classfile
from defects4j_adapter.contract import Workspace
from defects4j_adapter.engines.runner_output import RunnerReport, Status
from defects4j_adapter.jvm import runner
from nl2fix.java_source.methods import main_method

SWITCH = "NL2FIX_NARROW_TESTS"
"""``0`` turns narrowing off (every relevant test class runs whole), e.g. to compare the two."""
SUBDIR = "recordings"
ACC_STATIC, ACC_FINAL = 0x0008, 0x0010
CONSTANT_TYPES = frozenset("ZBCSIJFD") | {"Ljava/lang/String;"}


def enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


class Recording(BaseModel):
    """Which tests executed the method, in a baseline's run of every test."""

    key: str
    """:func:`recording_key` of the workspace it was made on."""
    whole: bool
    """Every test ran to its end and every call was attributed; when False nothing is narrowed."""
    why_not_whole: str = ""
    """What made it not whole (for the log)."""
    ran: dict[str, list[str]] = Field(default_factory=dict)
    """Each test class run (trigger classes included) -> its tests (``pkg.Class::method``), in order."""
    hits: dict[str, list[str]] = Field(default_factory=dict)
    """Each test class run -> its tests that executed the method."""
    whole_classes: list[str] = Field(default_factory=list)
    """Test classes with a call outside their tests, a test that timed out, or a failure to load or set up."""
    checked: bool = False
    """Whether the buggy version's narrowed run was held to the whole run (:func:`checked`)."""
    failed: list[str] = Field(default_factory=list)
    """The tests that did not pass in the whole run (on the buggy version): what the narrowed run of the
    same version must find among its own tests (:func:`checked`)."""

    def executing(self) -> list[str]:
        """Every test that executed the method (what ``nl2fix fix`` needs to know of a user's project)."""
        return list(dict.fromkeys(t for tests in self.hits.values() for t in tests))


def reach_method(ws: Workspace) -> str | None:
    """The name the recording's call goes in by: the buggy method's (a constructor's is its class's
    simple name)."""
    span = main_method(ws.bug.buggy_method)
    return span.name if span else None


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode())
        h.update(b"\0")
    return h.hexdigest()


def recording_key(ws: Workspace) -> str:
    """What a recording depends on: the workspace, the bug's method and tests, and the recording
    logic (this module and the runner, probe included)."""
    return _digest(
        str(ws.root),
        str(ws.classes_dir),
        ws.bug.id,
        ws.bug.buggy_method,
        *ws.trigger_tests,
        "|",
        *ws.relevant_tests,
        _logic(),
    )[:24]


@functools.cache
def _logic() -> str:
    return _digest(Path(__file__).read_bytes(), *(p.read_bytes() for p in sorted(runner.SOURCES.rglob("*.java"))))


def _path(cache_dir: Path, ws: Workspace, key: str) -> Path:
    return cache_dir / SUBDIR / ws.bug.id / f"{key}.json"


def load(cache_dir: Path, ws: Workspace, key: str) -> Recording | None:
    path = _path(cache_dir, ws, key)
    try:
        return Recording.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def save(cache_dir: Path, ws: Workspace, recording: Recording) -> None:
    path = _path(cache_dir, ws, recording.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(recording.model_dump_json(indent=1), encoding="utf-8")
    tmp.replace(path)


def from_report(report: RunnerReport | None, key: str) -> Recording:
    """The recording a recording job's signed report holds (``report`` None: the job did not end)."""
    if report is None:
        return Recording(key=key, whole=False, why_not_whole="the recording job did not end")
    recorded = report.recorded
    ran: dict[str, list[str]] = {}
    for label, test in recorded.get("RAN", []):
        ran.setdefault(label, []).append(test)
    hits: dict[str, list[str]] = {}
    for label, test in recorded.get("HIT", []):
        hits.setdefault(label, []).append(test)
    label_of = {test: label for label, tests in ran.items() for test in tests}
    timed = [t.name for t in report.tests if t.status is Status.TIMEOUT]
    whole_classes = {label for label, _ in recorded.get("STRAY", [])}
    whole_classes |= {label_of.get(t, t.split("::")[0]) for t in timed}
    whole_classes |= {failure.name for failure in report.class_failures}
    why = (
        "the job did not complete"
        if report.end != "complete"
        else "the recording's call went into no method"
        if not report.instrumented
        else f"the recording's call could not go into {report.not_instrumented} method(s)"
        if report.not_instrumented
        else "the method ran in a static initialiser"
        if recorded.get("INIT")
        else "the report was corrupt"
        if report.corrupt or report.errors
        else ""
    )
    failed = sorted(
        {t.name for t in report.tests if t.status in (Status.FAIL, Status.TIMEOUT)}
        | {failure.name for failure in report.class_failures}
    )
    return Recording(
        key=key,
        whole=not why,
        why_not_whole=why,
        ran=ran,
        hits=hits,
        whole_classes=sorted(whole_classes),
        failed=failed,
    )


def narrowed_tests(plan: Plan, recording: Recording, ws: Workspace) -> set[str]:
    """Every test a run of ``plan`` runs, by the recording's names (classes too, for class-level failures)."""
    tests = set(ws.trigger_tests) | {t.split("::")[0] for t in ws.trigger_tests}
    for label in plan.relevant:
        tests.add(label)
        tests.update(plan.only.get(label) or recording.ran.get(label, []))
    return tests


def checked(recording: Recording, plan: Plan, ws: Workspace, failing: list[str]) -> Recording:
    """``recording``, unless the buggy version's narrowed run (``failing``: the tests it failed) differs
    from its whole run on the tests both ran: then a test's outcome depended on the tests left out
    before it (Cli-8's ``BugsTest::test13666`` fails alone and passes after the tests before it,
    which leave ``OptionBuilder``'s static fields set), state the recording cannot see, and the
    recording narrows nothing."""
    ran = narrowed_tests(plan, recording, ws)
    expected = {t for t in recording.failed if t in ran}
    got = set(failing)
    if got == expected:
        return recording
    differ = sorted(got ^ expected)
    shown = ", ".join(f"{t} ({'fails' if t in got else 'passes'} narrowed)" for t in differ[:3])
    more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
    return recording.model_copy(
        update={
            "whole": False,
            "why_not_whole": f"the buggy version's narrowed run differs from its whole run: {shown}{more}; "
            "a test depends on tests left out before it",
        }
    )


def _class_bytes(roots: tuple[Path, ...], name: str) -> bytes | None:
    for root in roots:
        path = root / (name.replace(".", "/") + ".class")
        if path.is_file():
            return path.read_bytes()
    return None


def shares_state(test_roots: tuple[Path, ...], name: str) -> bool:
    """Whether test class ``name`` (binary name), a class nested in it or one of its superclasses
    among the tests declares a static field that is not a constant: state its tests share. A class
    that cannot be read counts as sharing."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen or current.startswith(("java.", "junit.", "org.junit.")):
            continue
        seen.add(current)
        data = _class_bytes(test_roots, current)
        if data is None:
            if current == name:
                return True
            continue  # a superclass outside the tests (a library's TestCase)
        try:
            parsed = classfile.parse(data)
        except classfile.ClassFileError:
            return True
        for f in parsed.fields:
            if f.access & ACC_STATIC and not (f.access & ACC_FINAL and f.descriptor in CONSTANT_TYPES):
                return True
        if parsed.super_name:
            todo.append(parsed.super_name.replace("/", "."))
        todo += [
            inner.name.replace("/", ".") for inner in parsed.inner_classes if inner.name.startswith(parsed.name + "$")
        ]
    return False


@dataclass(frozen=True)
class Plan:
    """The relevant tests a candidate runs instead of every relevant class, whole."""

    relevant: tuple[str, ...]
    """The relevant classes that run, in their order."""
    only: dict[str, tuple[str, ...]]
    """Of these, the ones that run only some of their tests, and which."""
    left_out: frozenset[str]
    """The tests the recording ran that this plan does not: a candidate need not pass them."""


def plan(recording: Recording, ws: Workspace, shares: Callable[[str], bool]) -> Plan | None:
    """The narrowed relevant tests of ``ws`` from ``recording``; None when nothing can be narrowed."""
    if not recording.whole:
        return None
    triggers = set(ws.trigger_tests)
    relevant: list[str] = []
    only: dict[str, tuple[str, ...]] = {}
    kept: set[str] = set()
    for label in ws.relevant_tests:
        hits = [t for t in recording.hits.get(label, []) if t not in triggers]
        if label in recording.whole_classes or label not in recording.ran:
            relevant.append(label)  # kept whole; one never run is run, as without narrowing
            kept.update(recording.ran.get(label, []))
        elif hits and shares(label):
            relevant.append(label)
            kept.update(recording.ran[label])
        elif hits:
            relevant.append(label)
            only[label] = tuple(hits)
            kept.update(hits)
    ran = {t for label, tests in recording.ran.items() if label in ws.relevant_tests for t in tests}
    return Plan(tuple(relevant), only, frozenset(ran - kept - triggers))


def plan_for(recording: Recording, ws: Workspace) -> Plan | None:
    """:func:`plan` with the workspace's compiled tests telling which classes share state."""
    roots = (ws.test_classes_dir,)
    return plan(recording, ws, lambda label: shares_state(roots, label))
