"""Narrowing a candidate's tests to those that can notice it: the recording (real javac, JUnit and
bytecode probe, confined) and the plan made from it; verdicts with and without it on the example
benchmark."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from defects4j_adapter.engines import narrowing
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.runner_output import ReportedTest, RunnerReport, Status
from defects4j_adapter.workspaces.local import ProjectLayout, prepare_project
from nl2fix.core.domain import Bug, Verdict
from nl2fix.dataset.load import open_dataset
from nl2fix.validation.verdicts import failing_on_fix, passing_on_fix, record_of
from tests.helpers.minibench import engine_options

SHAPE = """\
package org.probe;

public class Shape extends Base {
    private final int sides;

    public Shape(int sides) {
        super(check(sides));
        this.sides = sides;
    }

    static int check(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative");
        }
        return n;
    }

    public String name() {
        int n = sides;
        while (true) {
            switch (n) {
                case 3: return "triangle";
                case 4: return "square";
                case 5: return "pentagon";
                case 6: return "hexagon";
                default: n = n > 6 ? 6 : 3;
            }
        }
    }

    public int perimeter(int side) {
        return sides * side;
    }
}
"""
FILES = {
    "src/main/java/org/probe/Base.java": "package org.probe;\npublic class Base {\n    Base(int n) {\n    }\n}\n",
    "src/main/java/org/probe/Shape.java": SHAPE,
    "src/main/java/org/probe/Shapes.java": (
        "package org.probe;\npublic class Shapes {\n    public static final Shape TRIANGLE = new Shape(3);\n}\n"
    ),
    "src/test/java/org/probe/ShapeTest.java": """\
package org.probe;
import static org.junit.Assert.assertEquals;
import org.junit.Test;
public class ShapeTest {
    @Test public void name() { assertEquals("square", new Shape(4).name()); }
    @Test public void perimeter() { assertEquals(12, new Shape(4).perimeter(3)); }
    @Test(expected = IllegalArgumentException.class) public void negative() { new Shape(-1); }
    @Test public void nothing() { assertEquals(2, 1 + 1); }
}
""",
    "src/test/java/org/probe/CachedTest.java": """\
package org.probe;
import static org.junit.Assert.assertEquals;
import org.junit.Test;
public class CachedTest {
    static String last;
    @Test public void fills() { last = new Shape(5).name(); }
    @Test public void reads() { assertEquals(2, 1 + 1); }
}
""",
    "src/test/java/org/probe/ConstantsTest.java": """\
package org.probe;
import static org.junit.Assert.assertEquals;
import org.junit.Test;
public class ConstantsTest {
    @Test public void triangle() { assertEquals(9, Shapes.TRIANGLE.perimeter(3)); }
}
""",
    "src/main/java/org/probe/Settings.java": (
        "package org.probe;\npublic class Settings {\n    public static int scale = 1;\n}\n"
    ),
    "src/test/java/org/probe/OrderTest.java": """\
package org.probe;
import static org.junit.Assert.assertEquals;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class OrderTest {
    @Test public void a_sets() { Settings.scale = 2; }
    @Test public void b_reads() { assertEquals(24, new Shape(4).perimeter(3) * Settings.scale); }
}
""",
}
RELEVANT = ("org.probe.ShapeTest", "org.probe.CachedTest", "org.probe.ConstantsTest")


def _method(name: str) -> str:
    """The declaration of ``name`` in Shape.java, as a dataset holds a buggy method, and its lines."""
    lines = SHAPE.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {name}(" in line and line.strip().startswith("public"))
    end = next(i for i in range(start, len(lines)) if lines[i] == "    }")
    return "\n".join(lines[start : end + 1]).strip()


def _shape_bug(method: str, relevant=RELEVANT) -> Bug:
    lines = SHAPE.splitlines()
    text = _method(method)
    start = next(i for i, line in enumerate(lines) if line.strip() == text.splitlines()[0].strip()) + 1
    return Bug(
        project="Probekit",
        number=len(method),
        path="src/main/java/org/probe/Shape.java",
        start_line=start,
        end_line=start + len(text.splitlines()) - 1,
        buggy_method=text,
        fixed_method=text,
        title="t",
        trigger_tests=("org.probe.ShapeTest::name",),
        relevant_tests=relevant,
        benchmark="user",
    )


@pytest.fixture(scope="module")
def engine(nl2fix_cache, confined):
    fast = FastEngine(engine_options(nl2fix_cache))
    yield fast
    fast.close()


@pytest.fixture(scope="module")
def probekit(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("probekit")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _recorded(engine, probekit, nl2fix_cache, method: str, relevant=RELEVANT):
    ws = prepare_project(_shape_bug(method, relevant), ProjectLayout(probekit), nl2fix_cache)
    return ws, engine.recording(ws)


def test_the_recording_names_the_tests_that_execute_the_method(engine, probekit, nl2fix_cache):
    # name(): a loop back to its first instruction (a stack map frame at offset 0) and a tableswitch,
    # which must keep its alignment
    ws, rec = _recorded(engine, probekit, nl2fix_cache, "name", RELEVANT[:2])
    assert rec.whole, rec.why_not_whole
    assert rec.hits == {
        "org.probe.ShapeTest": ["org.probe.ShapeTest::name"],
        "org.probe.CachedTest": ["org.probe.CachedTest::fills"],
    }
    assert rec.executing() == ["org.probe.ShapeTest::name", "org.probe.CachedTest::fills"]
    plan = narrowing.plan_for(rec, ws)
    # ShapeTest holds no static state: its other tests go; CachedTest shares `last`: it runs whole
    assert plan is not None and plan.relevant == ("org.probe.CachedTest",) and plan.only == {}
    assert plan.left_out == {
        "org.probe.ShapeTest::perimeter",
        "org.probe.ShapeTest::negative",
        "org.probe.ShapeTest::nothing",
    }
    # a candidate is judged on the narrowed tests, and need not name the ones left out
    fixed = record_of(engine.run(ws, ws.bug.fixed_method), bug_id=ws.bug.id, hash="h", engine="fast")
    assert fixed.verdict is Verdict.PLAUSIBLE and fixed.tests_run == 3, fixed


def test_a_constructor_records_before_its_super_call_and_a_static_initialiser_keeps_every_test(
    engine, probekit, nl2fix_cache
):
    ws, rec = _recorded(engine, probekit, nl2fix_cache, "Shape", RELEVANT[:1])
    assert rec.whole, rec.why_not_whole
    # negative() throws while super(...)'s argument is evaluated: the probe went first
    assert set(rec.hits["org.probe.ShapeTest"]) == {
        "org.probe.ShapeTest::name",
        "org.probe.ShapeTest::perimeter",
        "org.probe.ShapeTest::negative",
    }
    _, with_constants = _recorded(engine, probekit, nl2fix_cache, "Shape", RELEVANT)
    assert not with_constants.whole and "static initialiser" in with_constants.why_not_whole
    assert narrowing.plan_for(with_constants, ws) is None


def test_a_test_that_passes_only_after_tests_left_out_keeps_the_recording_from_narrowing(
    engine, probekit, nl2fix_cache
):
    # OrderTest::b_reads calls the method and reads a project class's static field, which a_sets (no
    # call) set before it: narrowed to b_reads it fails, as Cli-8's BugsTest::test13666 does
    ws, rec = _recorded(engine, probekit, nl2fix_cache, "perimeter", ("org.probe.ShapeTest", "org.probe.OrderTest"))
    assert rec.hits["org.probe.OrderTest"] == ["org.probe.OrderTest::b_reads"] and rec.checked
    assert not rec.whole and "org.probe.OrderTest::b_reads (fails narrowed)" in rec.why_not_whole
    assert narrowing.plan_for(rec, ws) is None and narrowing.load(nl2fix_cache, ws, rec.key) == rec
    fixed = record_of(engine.run(ws, ws.bug.fixed_method), bug_id=ws.bug.id, hash="h", engine="fast")
    assert fixed.verdict is Verdict.PLAUSIBLE, fixed


def test_a_recording_is_cached_under_its_key(engine, probekit, nl2fix_cache):
    ws, rec = _recorded(engine, probekit, nl2fix_cache, "perimeter", RELEVANT[:1])
    assert narrowing.load(nl2fix_cache, ws, rec.key) == rec
    other = replace(ws, relevant_tests=RELEVANT[:2])
    assert (
        narrowing.recording_key(other) != rec.key
        and narrowing.load(nl2fix_cache, other, narrowing.recording_key(other)) is None
    )


def _report(**kw) -> RunnerReport:
    report = RunnerReport(
        end="complete",
        instrumented=1,
        recorded={"RAN": [("C", "C::a"), ("C", "C::b"), ("D", "D::a"), ("E", "E::a")], "HIT": [("C", "C::a")]},
    )
    for key, value in kw.items():
        setattr(report, key, value)
    return report


@pytest.mark.parametrize(
    "change, why",
    [
        (dict(end="stopped"), "did not complete"),
        (dict(instrumented=0), "no method"),
        (dict(not_instrumented=1), "could not go into"),
        (dict(corrupt=["x"]), "corrupt"),
    ],
)
def test_a_recording_that_is_not_whole_narrows_nothing(change, why):
    rec = narrowing.from_report(_report(**change), "k")
    assert not rec.whole and why in rec.why_not_whole
    assert narrowing.from_report(None, "k").whole is False


def test_the_plan_keeps_whole_classes_where_a_test_timed_out_or_a_call_strayed():
    ws = replace(_fake_ws(), relevant_tests=("C", "D", "E"))
    rec = narrowing.from_report(_report(tests=[ReportedTest("D::a", Status.TIMEOUT)]), "k")
    plan = narrowing.plan(rec, ws, lambda label: False)
    assert plan is not None and plan.relevant == ("C", "D") and plan.only == {"C": ("C::a",)}
    assert plan.left_out == {"C::b", "E::a"}
    strayed = _report()
    strayed.recorded["STRAY"] = [("E", "")]
    plan = narrowing.plan(narrowing.from_report(strayed, "k"), ws, lambda label: False)
    assert plan is not None and plan.relevant == ("C", "E") and plan.left_out == {"C::b", "D::a"}


def _fake_ws():
    from defects4j_adapter.contract import Workspace

    bug = replace(_shape_bug("name"), trigger_tests=("C::t",))
    return Workspace(
        bug=bug,
        root=Path("/nonexistent"),
        src_dir=Path("/s"),
        test_dir=Path("/t"),
        classes_dir=Path("/c"),
        test_classes_dir=Path("/tc"),
        classpath=(),
        trigger_tests=("C::t",),
        relevant_tests=("C",),
    )


@pytest.mark.parametrize("bug_id", ["Textkit-1", "Rangekit-1"])
def test_narrowed_verdicts_are_the_unnarrowed_ones(bug_id, nl2fix_cache, confined, monkeypatch):
    bug = open_dataset("example").resolve(bug_id)
    verdicts = {}
    for switch in ("1", "0"):
        monkeypatch.setenv(narrowing.SWITCH, switch)
        fast = FastEngine(engine_options(nl2fix_cache, test_timeout=10.0, candidate_timeout=60.0))
        try:
            ws = fast.prepare(bug)
            fixed = record_of(
                fast.run(ws, bug.fixed_method, stop_at_first_failure=False),
                bug_id=bug.id,
                hash="f",
                engine="fast",
                keep_passed=True,
            )
            known, required = failing_on_fix(fixed, bug.trigger_tests), passing_on_fix(fixed)
            fast.run(ws, bug.buggy_method, known_failures=known, stop_at_first_failure=False)
            runs = []
            for code in _candidates(bug):
                outcome = fast.run(ws, code, known_failures=known)
                record = record_of(
                    outcome, bug_id=bug.id, hash="c", engine="fast", fails_on_fix=known, passes_on_fix=required
                )
                runs.append((record.verdict, tuple(record.failing_tests[:1]), outcome.tests_run))
            verdicts[switch] = runs
        finally:
            fast.close()
    narrowed, whole = verdicts["1"], verdicts["0"]
    assert [v[:2] for v in narrowed] == [v[:2] for v in whole]
    assert any(v[0] is Verdict.PLAUSIBLE for v in narrowed)
    assert sum(v[2] for v in narrowed) < sum(v[2] for v in whole)


def _candidates(bug: Bug) -> list[str]:
    """The fix, and one-edit mutants of the fix and of the buggy method."""
    edits = [("<", "<="), ("==", "!="), ("+ 1", "- 1"), ("return ", "return 0 == 1 ? null : ")]
    out = [bug.fixed_method]
    for method in (bug.fixed_method, bug.buggy_method):
        out += [method.replace(a, b, 1) for a, b in edits if a in method]
    return list(dict.fromkeys(out))
