"""What a behaviour probe compares, on a tiny class run by the runner's own probe code (real javac and
java, no sandbox): a probe source made by :func:`probe_methods` around the developer's fix, the
candidate's class compiled apart and loaded by ``BehaviourProbe`` in a loader of its own, one call.
A candidate's outcome counts its return value, its arguments and the receiver's state a caller can
observe: every field but the private ones of the method's class that the fix neither reads nor writes."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.probe_source import probe_methods
from defects4j_adapter.engines import runner_output
from defects4j_adapter.jvm import os_wall
from defects4j_adapter.jvm.report_signing import JobKey
from defects4j_adapter.jvm.runner import SOURCES, junit_jars, runner_classes
from tests.helpers.javac import compile_java, javac

CLASS = """package h;

public class Holder {
    private int count;
    private int[] spare;
    int visible;
    private final int[] limits = {1, 2};

%s

    public int count() {
        return count;
    }
}
"""
FIX = """public int[] next(int step) {
    count += step;
    return new int[0];
}"""
HARNESS = """package nl2fix.runner;

public final class ProbeHarness {
    /** The methods an instrumented probe source numbers (CallInserter.Result#methods), as a job passes them. */
    static java.util.List<String> entries = java.util.List.of();

    public static void main(String[] args) throws Exception {
        BehaviourProbe.begin(Main.classFiles(java.nio.file.Paths.get(args[0])),
                new java.net.URL[] {java.nio.file.Paths.get(args[1]).toUri().toURL()},
                ClassLoader.getPlatformClassLoader(), java.util.Map.of(), true, java.util.Set.of(), java.util.Map.of(),
                entries);
        BehaviourProbe.watch(Thread.currentThread(), "h.HolderTest");
        %s;
        for (String[] row : BehaviourProbe.end()) {
            System.out.println(String.join("\\t", row));
        }
    }
}
"""


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Path:
    """The runner's classes on the class path (not as a module: the harness shares their package)."""
    sources = {
        p.relative_to(SOURCES).as_posix(): p.read_text(encoding="utf-8")
        for p in SOURCES.rglob("*.java")
        if p.name != "module-info.java"
    }
    root = tmp_path_factory.mktemp("runner")
    javac()
    classes = root / "classes"
    done = subprocess.run(
        [
            str(javac()),
            "-nowarn",
            "-encoding",
            "UTF-8",
            "--add-exports",
            "jdk.unsupported/sun.misc=ALL-UNNAMED",
            "-cp",
            ":".join(map(str, junit_jars())),
            "-d",
            str(classes),
            *(str(SOURCES / r) for r in sources),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return classes


def java_set(digests) -> str:
    """``digests`` as a Java expression of a set, as a harness passes ``BehaviourProbe.begin`` the inputs to skip."""
    return "java.util.Set.of(" + ", ".join(f'"{d}"' for d in sorted(digests)) + ")"


def java_map(steady) -> str:
    """``steady`` (input digest -> the fix's outcome digest) as a Java expression of a map, as a harness passes it."""
    pairs = ", ".join(f'java.util.Map.entry("{d}", "{o}")' for d, o in sorted(steady.items()))
    return f"java.util.Map.ofEntries({pairs})"


def run_harness(
    runner: Path,
    tmp_path: Path,
    fix: str,
    candidate: str,
    call: str,
    members: str = "",
    candidate_members: str | None = None,
    harness: str = HARNESS,
    sources: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """``call`` run by ``harness`` (``HARNESS``'s shape) in a plain JVM: ``fix`` behind the wrapper, ``candidate`` in
    its twin (``members``: more of the class, in both, unless ``candidate_members`` gives the twin's own; ``sources``:
    more of the tests' classes)."""
    wrapped = CLASS % (probe_methods(fix, candidate, "Holder", source=CLASS % members) + members)
    project = compile_java(
        {"h/Holder.java": wrapped, "nl2fix/runner/ProbeHarness.java": harness % call, **(sources or {})},
        tmp_path / "project",
        "-cp",
        str(runner),
    )
    theirs = members if candidate_members is None else candidate_members
    own = compile_java({"h/Holder.java": CLASS % (candidate + theirs)}, tmp_path / "candidate")
    return subprocess.run(
        [
            str(javac().with_name("java")),
            # the native agent every JVM that runs candidate code loads: the probe asks it whether a call ran
            # out of memory (Exhaustion.java)
            *os_wall.jvm_options(runner_classes(), confined=False),
            # the runner on the class path here, not its module: the probe names its loader as the JDK's
            # (LoaderName.java) through java.lang, which the engines open to the runner's module alone
            "--add-opens",
            "java.base/java.lang=ALL-UNNAMED",
            "--add-opens",
            "java.base/sun.reflect.generics.reflectiveObjects=ALL-UNNAMED",
            "-cp",
            ":".join(map(str, [project, runner, *junit_jars()])),
            "nl2fix.runner.ProbeHarness",
            str(own),
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def probe(
    runner: Path,
    tmp_path: Path,
    candidate: str,
    fix: str = FIX,
    call: str = "new h.Holder().next(3)",
    members: str = "",
) -> observations.ProbeRun:
    """One call (``next(3)`` on a fresh Holder), probed: ``fix`` behind the wrapper, ``candidate`` in its twin
    (``members``: more of the class, in both)."""
    done = run_harness(runner, tmp_path, fix, candidate, call, members)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows and rows[-1][0] == "BEHAVIOUREND", done.stdout
    return compared(observations.read([r[1:] for r in rows[:-1]], rows[-1][1:]))


def compared(run: observations.ProbeRun) -> observations.ProbeRun:
    """``run`` without the rows of inputs the fix gave no evidence on (``NO_EVIDENCE``: the candidate was not run
    there), which these tests of what is copied and compared do not look at."""
    run.observations = [o for o in run.observations if not o.no_evidence]
    return run


@pytest.mark.parametrize(
    "name, candidate, differs",
    [
        ("the fix itself", FIX, False),
        # the false alarm: the same empty array, kept in a private field the fix leaves alone
        ("kept in another private field", FIX.replace("new int[0]", "spare = new int[0]"), False),
        ("a private field the fix writes, written otherwise", FIX.replace("+= step", "+= 2 * step"), True),
        ("a field a caller in the package sees", FIX.replace("count += step;", "count += step; visible = 1;"), True),
        ("the returned array", FIX.replace("new int[0]", "new int[1]"), True),
    ],
)
def test_only_state_a_caller_can_observe_is_compared(runner, tmp_path, name, candidate, differs):
    run = probe(runner, tmp_path, candidate)
    assert not run.error and run.calls == 1 and run.derived >= 3, run  # the call and its step's neighbours
    assert any(o.candidate_digest != o.reference_digest for o in run.observations) is differs, name
    call = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    # the private fields the fix names (count) are shown, the one it does not (spare, limits) are not
    assert "count=" in call.reference and "visible=" in call.reference, call
    assert "spare=" not in call.candidate and "limits=" not in call.reference, call
    assert "spare=null" in call.input  # an input is written whole: its receiver's state picks it out


LENGTH = """public int length(String s) {
    return s.length();
}"""


def test_an_input_the_candidate_differs_on_comes_whole_where_its_row_shows_it_shortened(runner, tmp_path):
    # the divergence's JUnit test is written from the input: a row shows 1,000 characters of it
    candidate = LENGTH.replace("return s.length();", "return s.length() > 1200 ? 0 : s.length();")
    run = probe(runner, tmp_path, candidate, LENGTH, 'new h.Holder().length("' + "a" * 1500 + '")')
    call = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert call.candidate_digest != call.reference_digest and call.input.endswith("..."), call
    assert (
        call.whole_input == 'arg0="' + "a" * 1500 + '", this=h.Holder{count=0,spare=null,visible=0,limits=int[2]{1,2}}'
    )
    # inputs on which the candidate does what the fix does are never written whole
    assert all(not o.whole_input for o in run.observations if o.candidate_digest == o.reference_digest)


SQUARES = """public int[] squares(int[] xs) {
    int[] out = new int[xs.length];
    for (int i = 0; i < xs.length; i++) {
        out[i] = xs[i] * xs[i];
    }
    return out;
}"""


def test_where_the_candidate_differs_arrays_past_64_elements_come_whole_and_so_do_both_outcomes(runner, tmp_path):
    # a row writes 64 elements of an array and 300 characters of an outcome, from a little before where the two part:
    # Math-2's generator holds 624 ints, Math-28's tableau a matrix; a test needs the whole input and the fix's outcome
    candidate = SQUARES.replace("out[i] = xs[i] * xs[i];", "out[i] = i == 50 && xs.length > 100 ? 0 : xs[i] * xs[i];")
    call = "int[] xs = new int[200]; for (int i = 0; i < 200; i++) xs[i] = i; new h.Holder().squares(xs)"
    run = probe(runner, tmp_path, candidate, SQUARES, call)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert row.candidate_digest != row.reference_digest and ",...}" in row.input, row
    numbers = ",".join(map(str, range(200)))
    holder = "this=h.Holder{count=0,spare=null,visible=0,limits=int[2]{1,2}}"
    assert row.whole_input == f"arg0=int[200]{{{numbers}}}, {holder}"
    squares = [i * i for i in range(200)]
    assert row.whole_reference.startswith(f"return=int[200]{{{','.join(map(str, squares))}}}, this=h.Holder{{")
    squares[50] = 0
    assert row.whole_candidate.startswith(f"return=int[200]{{{','.join(map(str, squares))}}}, this=h.Holder{{")
    # what is compared is as before: the texts cut at 64 elements (a difference past them is not seen), of which a row
    # shows 300 characters from a little before where the two part
    assert row.reference.startswith("...") and len(row.reference) < 400, row.reference
    # the rows on which the candidate does what the fix does carry nothing whole
    alike = [o for o in run.observations if o.candidate_digest == o.reference_digest]
    assert alike and all(not (o.whole_input or o.whole_reference) for o in alike)


SQUARES_OF = """public java.util.List<Integer> squaresOf(java.util.List<Integer> xs) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int i = 0; i < xs.size(); i++) {
        out.add(xs.get(i) * xs.get(i));
    }
    return out;
}"""


@pytest.mark.parametrize("at, differs", [(50, True), (150, False)])
def test_a_list_is_compared_as_far_as_its_text_shows_it_and_comes_whole_where_the_candidate_differs(
    runner, tmp_path, at, differs
):
    # a list's elements past the 64 a text shows are not written for a digest (Math-57's 10,001 points were, three
    # times an input): a difference there is not seen, as in an array; where the two part, the whole texts have them all
    candidate = SQUARES_OF.replace(
        "out.add(xs.get(i) * xs.get(i));", f"out.add(i == {at} ? 0 : xs.get(i) * xs.get(i));"
    )
    call = (
        "java.util.List<Integer> xs = new java.util.ArrayList<>(); for (int i = 0; i < 200; i++) xs.add(i);"
        " new h.Holder().squaresOf(xs)"
    )
    run = probe(runner, tmp_path, candidate, SQUARES_OF, call)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert ",...}" in row.input and (row.candidate_digest != row.reference_digest) is differs, row
    if differs:
        squares = [i * i for i in range(200)]
        assert row.whole_reference.startswith(f"return=java.util.ArrayList[200]{{{','.join(map(str, squares))}}}, ")
        squares[at] = 0
        assert row.whole_candidate.startswith(f"return=java.util.ArrayList[200]{{{','.join(map(str, squares))}}}, ")
    else:
        assert not row.whole_reference and row.reference == row.candidate


def test_the_probe_says_it_can_make_no_more_rows_once_its_calls_are_all_probed(runner, tmp_path):
    # the runner then starts no other test (SimplexSolverTest's 26 tests gave Math-82's 40 calls in their first few);
    # inputs far apart, so that no call's input is an earlier one's derived neighbour (a call probed already)
    call = (
        "for (int i = 0; i < 45; i++) {"
        ' System.out.println("exhausted\\t" + i + "\\t" + BehaviourProbe.exhausted());'
        " new h.Holder().next(1000 * i + 7); }"
    )
    done = run_harness(runner, tmp_path, FIX, FIX, call)
    assert done.returncode == 0, done.stderr
    said = {
        int(f[1]): f[2] == "true"
        for f in (line.split("\t") for line in done.stdout.splitlines())
        if f[0] == "exhausted"
    }
    assert [i for i in range(45) if said[i]] == list(range(40, 45)), said
    calls = [line for line in done.stdout.splitlines() if line.startswith("BEHAVIOUR\tcall\t")]
    assert len(calls) == 40, done.stdout[-2000:]


HOOK = """
    public static final class Hook implements CharSequence {
        private final Holder h;
        private final String s;
        private boolean done;
        public Hook(Holder h, String s) { this.h = h; this.s = s; }
        public int length() { return s.length(); }
        public char charAt(int i) { return s.charAt(i); }
        public CharSequence subSequence(int a, int b) {
            if (h != null && !done) {
                done = true;
                h.count -= 1;
            }
            return s.subSequence(a, b);
        }
        public String toString() { return s; }
    }
"""
SET_OF = """public java.util.Set<Object> items(int n) {
    count += 1;
    java.util.Set<Object> out = new java.util.HashSet<>();
    for (int i = 0; i < Math.min(n, 100); i++) {
        out.add(String.format("s%03d", i));
    }
    return out;
}"""
BUFFER = """public CharSequence text(String s) {
    count += 1;
    return java.nio.CharBuffer.wrap(s);
}"""


@pytest.mark.parametrize(
    "fix, candidate, call",
    [
        # the result itself: a CharBuffer over the candidate's CharSequence, whose subSequence (run by the buffer's
        # toString) takes back the 1 the candidate added to the receiver, written after the result
        (
            BUFFER,
            BUFFER.replace("count += 1;", "count += 2;").replace("wrap(s)", "wrap(new Hook(this, s))"),
            'new h.Holder().text("abc")',
        ),
        # the same buffer in a hash set, whose elements are all written and sorted: it sorts past the 64 shown
        (
            SET_OF,
            SET_OF.replace("count += 1;", "count += Math.min(n, 100) > 64 ? 2 : 1;").replace(
                'out.add(String.format("s%03d", i));',
                "out.add(Math.min(n, 100) > 64 && i == Math.min(n, 100) - 1"
                ' ? java.nio.CharBuffer.wrap(new Hook(this, String.format("s%03d", i))) : String.format("s%03d", i));',
            ),
            "new h.Holder().items(70)",
        ),
        # the candidate's CharSequence under ten buffers, each wrapping the next
        (
            BUFFER,
            BUFFER.replace("count += 1;", "count += 2;").replace(
                "return java.nio.CharBuffer.wrap(s);",
                "CharSequence t = new Hook(this, s); for (int i = 0; i < 10; i++) t = java.nio.CharBuffer.wrap(t);"
                " return t;",
            ),
            'new h.Holder().text("abc")',
        ),
        # control: a buffer over a string is written by its text, and a different text differs
        (BUFFER, BUFFER.replace("wrap(s)", 'wrap(s + "!")'), 'new h.Holder().text("abc")'),
    ],
)
def test_a_jdk_object_over_the_candidate_s_code_is_written_without_running_it(runner, tmp_path, fix, candidate, call):
    # red team 22: a JDK object written by its text (String.valueOf) ran the candidate's code while the runner wrote
    # its outcome; now it is written as what it holds, field by field
    run = probe(runner, tmp_path, candidate, fix, call, members=HOOK)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert row.candidate_digest != row.reference_digest, row


def test_a_buffer_over_a_string_is_compared_by_its_text(runner, tmp_path):
    run = probe(runner, tmp_path, BUFFER, BUFFER, 'new h.Holder().text("abc")', members=HOOK)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert row.candidate_digest == row.reference_digest and 'CharBuffer("abc")' in row.reference, row.reference
    # the candidate's own buffer is written as what it holds: the hook's fields, never its text
    hooked = BUFFER.replace("wrap(s)", "wrap(new Hook(null, s))")
    row = next(
        o
        for o in probe(
            runner, tmp_path / "hooked", hooked, BUFFER, 'new h.Holder().text("abc")', members=HOOK
        ).observations
        if o.origin is observations.Origin.CALL
    )
    assert "java.nio.StringCharBuffer{over h.Holder$Hook{" in row.candidate, row.candidate


SIGNED = HARNESS.replace(
    """        for (String[] row : BehaviourProbe.end()) {
            System.out.println(String.join("\\t", row));
        }""",
    """        Report report = new Report();
        report.signed(1L, 2L, 0, "job", Words.START);
        int seq = Main.behaviour(report, 1L, 2L, 1, "job", BehaviourProbe.end());
        report.signed(1L, 2L, seq, "job", Words.END, Words.COMPLETE, Words.NO);""",
)


def test_whole_texts_come_through_the_signed_report_past_its_field_limit(runner, tmp_path):
    # the report clips a field at 4,000 characters (what code under test can make one hold): a whole input of 2,000
    # elements (Math-28's tableau, Math-2's generator) was cut there, and no test could be written from it
    assert SIGNED != HARNESS
    candidate = SQUARES.replace("out[i] = xs[i] * xs[i];", "out[i] = i == 50 && xs.length > 100 ? 0 : xs[i] * xs[i];")
    call = "int[] xs = new int[2000]; for (int i = 0; i < 2000; i++) xs[i] = i; new h.Holder().squares(xs)"
    done = run_harness(runner, tmp_path, SQUARES, candidate, call, harness=SIGNED)
    job = runner_output.read_job(done.stdout, JobKey(1, 2), "job")
    assert job.signed is not None, (done.stdout[-2000:], done.stderr[-2000:])
    run = observations.read(job.signed.behaviour_rows, job.signed.behaviour_end)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert row.whole_input.startswith("arg0=int[2000]{0,1,2,") and len(row.whole_input) > 8000, row.whole_input[-200:]
    assert row.whole_input.endswith(",1998,1999}, this=h.Holder{count=0,spare=null,visible=0,limits=int[2]{1,2}}")
    assert ",3992004,3996001}, this=" in row.whole_reference and len(row.whole_candidate) > 20000


def test_a_candidate_differing_on_every_long_input_cannot_keep_its_first_one_from_coming_whole(runner, tmp_path):
    # the fourteenth session's own attack: a candidate that differs on every long input, to spend the job's 1,200,018
    # characters of whole texts before the divergence the label names; rows are kept in their fixed order, so the first
    # differing row is the first to be written whole, whatever order they ran in
    candidate = LENGTH.replace("return s.length();", "return s.length() > 1200 ? -1 : s.length();")
    # 40 calls, each of a string of 10,000 characters, which a row cuts at 2,000 and a whole text writes whole
    calls = 'for (int i = 0; i < 40; i++) new h.Holder().length(i + "' + "a" * 10000 + '")'
    run = probe(runner, tmp_path, candidate, LENGTH, calls)
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest and o.repeatable]
    assert len(differing) > 40 and differing[0].whole_input.startswith('arg0="0aaa'), differing[:1]
    assert differing[0].whole_reference.startswith("return=10001,") and differing[0].whole_candidate.startswith(
        "return=-1,"
    )
    # the budget was met: later differing inputs come shortened only
    whole = sum(len(o.whole_input) + len(o.whole_reference) + len(o.whole_candidate) for o in differing)
    assert any(not o.whole_input for o in differing) and whole <= 6 * 200_003, whole


PICK = """public Object pick(int[] a, int[] b) {
    return a.length;
}"""


def test_a_candidate_that_makes_its_own_outcome_as_long_as_a_text_may_be_cannot_keep_the_fix_s_from_coming_whole(
    runner, tmp_path
):
    # this session's own attack on the whole texts: an input and a fix's outcome of about 89,000 characters each,
    # which a test can be written from, and a candidate that makes its own outcome run past 200,000; in a budget of
    # 256 KB the three did not fit, and the row came without any (no test); the budget holds two such rows
    candidate = PICK.replace(
        "return a.length;", "int[] r = new int[16384];\n    java.util.Arrays.fill(r, Integer.MIN_VALUE);\n    return r;"
    )
    call = "int[] a = new int[3700]; java.util.Arrays.fill(a, Integer.MIN_VALUE); new h.Holder().pick(a, a.clone())"
    run = probe(runner, tmp_path, candidate, PICK, call)
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert len(row.whole_input) > 88_000 and not row.whole_input.endswith("..."), len(row.whole_input)
    assert row.whole_reference.startswith("return=3700, ") and not row.whole_reference.endswith("..."), row.reference
    assert row.whole_candidate.startswith("return=int[16384]{-2147483648,") and row.whole_candidate.endswith("...")


CUT = """public double cut(double x) {
    return x < 0.5 ? 0 : x;
}"""


@pytest.mark.parametrize(
    "name, candidate, differs",
    [
        ("the same comparison turned round", CUT.replace("x < 0.5", "0.5 > x"), False),
        # issue 34: a boundary off by its edge, which no neighbour of the test's 3.0 reaches
        ("the boundary itself included", CUT.replace("x < 0.5", "x <= 0.5"), True),
        ("the boundary one ulp up", CUT.replace("x < 0.5", "x < 0.5000000000000001"), True),
    ],
)
def test_a_floating_point_literal_of_the_fix_is_tried_with_its_neighbours(runner, tmp_path, name, candidate, differs):
    run = probe(runner, tmp_path, candidate, CUT, "new h.Holder().cut(3.0)")
    assert not run.error and run.calls == 1, run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert bool(differing) is differs, name
    assert all("0.5" in o.input for o in differing), differing  # at the literal or one ulp from it


RATIO = """
    public static final class Ratio extends Number {
        final int num;
        final int den;

        public Ratio(int num, int den) {
            this.num = num;
            this.den = den;
        }

        public int intValue() {
            return num / den;
        }

        public long longValue() {
            return intValue();
        }

        public float floatValue() {
            return (float) doubleValue();
        }

        public double doubleValue() {
            return (double) num / den;
        }
    }
"""
COMPARE = """public int compare(Ratio a, Ratio b) {
    return Long.compare((long) a.num * b.den, (long) b.num * a.den);
}"""


def test_an_argument_of_a_project_subclass_of_number_is_copied_and_compared(runner, tmp_path):
    # Math-91's Fraction.compareTo: a Fraction extends java.lang.Number, which holds no state of its own,
    # so its copy is its project fields; a JDK superclass that does hold state still makes it uncopyable
    call = "new h.Holder().compare(new h.Holder.Ratio(1, 3), new h.Holder.Ratio(2, 6))"
    same = probe(runner, tmp_path / "same", COMPARE, COMPARE, call, RATIO)
    assert not same.error and same.calls == 1 and same.skipped == 0, same
    assert all(o.candidate_digest == o.reference_digest for o in same.observations), same
    assert any("num=1" in o.input and "den=3" in o.input for o in same.observations), same
    # a candidate comparing the integer parts: 1/3 and 1/2 are both 0 to it
    truncating = COMPARE.replace(
        "Long.compare((long) a.num * b.den, (long) b.num * a.den)", "Integer.compare(a.intValue(), b.intValue())"
    )
    run = probe(runner, tmp_path / "truncating", truncating, COMPARE, call.replace("(2, 6)", "(1, 2)"), RATIO)
    assert run.calls == 1 and run.skipped == 0, run
    differs = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert differs and differs[0].reference.startswith("return=-1") and differs[0].candidate.startswith("return=0"), run


LINES = """public int lines(java.io.Reader in) throws java.io.IOException {
    int n = 0;
    int last = '\\n';
    for (int c = in.read(); c != -1; c = in.read()) {
        if (c == '\\n') {
            n++;
        }
        last = c;
    }
    return last == '\\n' ? n : n + 1;
}"""


@pytest.mark.parametrize(
    "reader",
    [
        'new java.io.StringReader("ab\\ncd\\n\\nef")',
        # a reader over a reader, and one a test read from before the call: replayed from where it stood
        'new java.io.BufferedReader(new java.io.StringReader("ab\\ncd\\n\\nef"))',
        'h.Holder.read(h.Holder.read(new java.io.StringReader("xyab\\ncd\\n\\nef")))',
    ],
)
def test_a_reader_of_contents_in_memory_is_replayed_from_where_it_stood(runner, tmp_path, reader):
    # issue 34: a reader argument made the input uncopyable (6 of 17 Defects4J fixes had one); one whose
    # contents are in memory is copied field by field, its contents and position with it
    call = f"new h.Holder().lines({reader})"
    helper = (
        "\n    public static java.io.Reader read(java.io.Reader r) throws java.io.IOException { r.read(); return r; }\n"
    )
    same = probe(
        runner,
        tmp_path / "same",
        LINES.replace("last == '\\n' ? n : n + 1", "n + (last != '\\n' ? 1 : 0)"),
        LINES,
        call,
        helper,
    )
    assert not same.error and same.calls == 1 and same.skipped == 0, same
    assert all(o.candidate_digest == o.reference_digest for o in same.observations), same
    call_row = next(o for o in same.observations if o.origin is observations.Origin.CALL)
    assert call_row.reference.startswith("return=4"), call_row  # the lines from where the test left it
    # a candidate that counts line breaks only: the last line, without one, is lost
    breaks = probe(runner, tmp_path / "breaks", LINES.replace("last == '\\n' ? n : n + 1", "n"), LINES, call, helper)
    assert breaks.calls == 1 and breaks.skipped == 0, breaks
    differs = [o for o in breaks.observations if o.candidate_digest != o.reference_digest]
    assert differs and differs[0].reference.startswith("return=4") and differs[0].candidate.startswith("return=3")


def copied_and_compared(
    runner: Path, tmp_path: Path, fix: str, other: str, call: str, members: str = ""
) -> observations.ProbeRun:
    """``call`` probed with ``fix`` beside itself (its input copied whole: nothing skipped, every outcome alike) and
    beside ``other`` (an outcome differs); the first probe."""
    same = probe(runner, tmp_path / "same", fix, fix, call, members)
    assert not same.error and same.calls == 1 and same.skipped == 0, same
    assert all(o.candidate_digest == o.reference_digest for o in same.observations), same
    differs = probe(runner, tmp_path / "other", other, fix, call, members)
    assert differs.calls == 1 and differs.skipped == 0, differs
    assert any(o.candidate_digest != o.reference_digest for o in differs.observations), differs
    return same


WRITE = """public int write(java.io.OutputStream out) throws java.io.IOException {
    out.write(new byte[] {1, 2, 3});
    out.flush();
    return 3;
}"""


def test_an_output_stream_over_memory_is_copied_with_what_it_holds(runner, tmp_path):
    # a filter or buffered stream over a byte array (Compress-1's archive streams): before, its JDK class made the
    # input uncopyable, and the probe said "not-probed"
    call = "new h.Holder().write(new java.io.BufferedOutputStream(new java.io.ByteArrayOutputStream()))"
    # a candidate that forgets to flush leaves the bytes in the buffer: what the stream holds differs
    copied_and_compared(runner, tmp_path, WRITE, WRITE.replace("    out.flush();\n", ""), call)


READ = """public int read(java.lang.reflect.Field field) throws IllegalAccessException {
    return field.getInt(this);
}"""


def test_a_field_an_argument_names_is_the_twin_s_own_for_the_candidate(runner, tmp_path):
    # JacksonDatabind's bean property writers hold the Field or Method they read through; the candidate's copy of
    # the input names its own class's member, so the same body reads the same value
    call = 'new h.Holder().read(h.Holder.class.getDeclaredField("count"))'
    same = copied_and_compared(runner, tmp_path, READ, READ.replace("getInt(this)", "getInt(this) + 1"), call)
    assert "Field(h.Holder.count)" in same.observations[0].input, same.observations[0]


COUNT = """public int count(java.util.Collection<String> items) {
    int n = 0;
    for (String item : items) {
        n += item.startsWith("a") ? 1 : 0;
    }
    return n;
}"""


@pytest.mark.parametrize(
    "items",
    [
        # what project code hands out: JacksonDatabind-93's sets were unmodifiable views, 45's maps empty ones
        'java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(java.util.List.of("ab", "b", "ac")))',
        'java.util.Collections.unmodifiableList(new java.util.ArrayList<>(java.util.List.of("ab", "b", "ac")))',
        'java.util.Collections.unmodifiableCollection(new java.util.ArrayDeque<>(java.util.List.of("ab", "b", "ac")))',
        'java.util.List.of("ab", "b", "ac")',
        'java.util.Set.of("ab", "b", "ac")',
        'java.util.Arrays.asList("ab", "b", "ac")',
        'java.util.Collections.singletonList("ab")',
        'java.util.Collections.singleton("ab")',
    ],
)
def test_the_jdk_s_fixed_collections_and_unmodifiable_views_are_copied(runner, tmp_path, items):
    copied_and_compared(runner, tmp_path, COUNT, COUNT.replace('"a"', '"b"'), f"new h.Holder().count({items})")


@pytest.mark.parametrize(
    "items",
    [
        'java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(java.util.Map.of("ab", "x", "ac", "y")))',
        'java.util.Map.of("ab", "x", "b", "y", "ac", "z")',
        'java.util.Collections.singletonMap("ab", "x")',
    ],
)
def test_the_jdk_s_fixed_maps_and_unmodifiable_views_are_copied(runner, tmp_path, items):
    fix = COUNT.replace("java.util.Collection<String> items", "java.util.Map<String, String> map").replace(
        ": items", ": map.keySet()"
    )
    copied_and_compared(runner, tmp_path, fix, fix.replace('"a"', '"b"'), f"new h.Holder().count({items})")


def test_the_jdk_s_empty_collections_are_shared(runner, tmp_path):
    same = probe(runner, tmp_path, COUNT, COUNT, "new h.Holder().count(java.util.Collections.emptySet())")
    assert not same.error and same.calls == 1 and same.skipped == 0, same


PAIR = "public Object[] pair(int n) {\n    return new Object[] {n, n};\n}"


@pytest.mark.parametrize(
    "candidate, differs",
    [
        # the fix changed the return type (Math-8: T[] to Object[]); what is compared is the result itself
        ("public Object pair(int n) {\n    return new Object[] {n, n};\n}", False),
        ("public Integer[] pair(int n) {\n    return new Integer[] {n, n};\n}", True),
    ],
)
def test_a_candidate_with_another_return_type_is_probed_on_its_results(runner, tmp_path, candidate, differs):
    run = probe(runner, tmp_path, candidate, PAIR, "new h.Holder().pair(2)")
    assert not run.error and run.calls == 1 and run.skipped == 0, run
    assert any(o.candidate_digest != o.reference_digest for o in run.observations) is differs, run


NAMED = """public boolean named(String s) {
    return s == name || s != null && s.equals(name);
}"""


@pytest.mark.parametrize(
    "name, candidate, differs",
    [
        (
            "the same test turned round",
            NAMED.replace("s == name || s != null && s.equals(name)", "name.equals(s)"),
            False,
        ),
        # issue 34: the test builds the object with a literal and passes the literal again, so the argument is
        # the very string the receiver keeps and `==` answers for `equals`
        ("identity only", NAMED.replace(" || s != null && s.equals(name)", ""), True),
    ],
)
def test_an_argument_the_receiver_holds_is_also_tried_as_an_equal_copy(runner, tmp_path, name, candidate, differs):
    run = probe(runner, tmp_path, candidate, NAMED, 'new h.Holder().named("abc")', '\n    String name = "abc";\n')
    assert not run.error and run.calls == 1, run
    call = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert call.input.startswith('arg0="abc" (an object this holds)'), call
    copy = [o for o in run.observations if o.input.startswith('arg0="abc", this=')]
    assert len(copy) == 1 and copy[0].reference.startswith("return=true"), run
    assert (copy[0].candidate_digest != copy[0].reference_digest) is differs, name


OVER = """public boolean over(int x) {
    return x > LIMIT;
}"""


@pytest.mark.parametrize(
    "name, candidate, differs",
    [
        ("the same bound written otherwise", OVER.replace("x > LIMIT", "LIMIT < x"), False),
        # a bound the source names: compiled in, no literal of the body shows it, and the test's 3 is far off
        ("the bound included", OVER.replace("x > LIMIT", "x >= LIMIT"), True),
    ],
)
def test_a_named_constant_the_fix_compares_against_is_tried(runner, tmp_path, name, candidate, differs):
    run = probe(runner, tmp_path, candidate, OVER, "new h.Holder().over(3)", "\n    static final int LIMIT = 40;\n")
    assert not run.error and run.calls == 1, run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert bool(differing) is differs, name
    assert any(o.input.startswith("arg0=40,") for o in run.observations), run
    assert all(o.input.startswith("arg0=40,") for o in differing), differing


def test_the_neighbours_of_a_value_the_receiver_holds_are_tried(runner, tmp_path):
    # the receiver holds 2 (limits[1]); a candidate that hard-codes an exception just past it
    fix = "public int above(int x) {\n    return x > limits[1] ? 1 : 0;\n}"
    run = probe(
        runner, tmp_path, fix.replace("x > limits[1]", "x > limits[1] && x != 3"), fix, "new h.Holder().above(10)"
    )
    assert not run.error and run.calls == 1, run
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    assert [o.input.split(",")[0] for o in differing] == ["arg0=3"], run


@pytest.mark.parametrize(
    "find, call, held",
    [
        ("public int find(String[] xs, String x)", 'new h.Holder().find(new String[] {"a", "b"}, "b")', True),
        # a small box is the one valueOf hands out to all: an int element, read, is that very box too, and no
        # caller shares it; an equal copy would say nothing a value does not
        ("public int find(int[] xs, Integer x)", "new h.Holder().find(new int[] {1, 5}, 5)", False),
    ],
)
def test_a_string_an_argument_holds_is_marked_a_small_box_is_not(runner, tmp_path, find, call, held):
    method = find + " {\n    return xs.length;\n}"
    run = probe(runner, tmp_path, method, method, call)
    assert not run.error and run.calls == 1, run
    row = next(o for o in run.observations if o.origin is observations.Origin.CALL)
    assert ("(an object arg0 holds)" in row.input) is held, row


PUT = """public int put(java.util.Map<String, Integer> m) {
    m.put("a", 1);
    return m.size();
}"""


SWAP = """public String swap(java.util.concurrent.atomic.AtomicReference<Object> r) {
    Object old = r.getAndSet("x");
    return old instanceof Holder ? "a holder" : String.valueOf(old);
}"""


def test_a_concurrent_map_is_copied_with_what_it_holds(runner, tmp_path):
    # JacksonDatabind-45's and -93's contexts hold their caches in one: before, the probe said "not-probed"
    call = "new h.Holder().put(new java.util.concurrent.ConcurrentHashMap<String, Integer>())"
    copied_and_compared(runner, tmp_path, PUT, PUT.replace('"a"', '"b"'), call)


def test_an_atomic_reference_is_copied_with_what_it_holds(runner, tmp_path):
    # JacksonDatabind-45's next: a project object in an AtomicReference; the candidate's copy holds the twin's
    call = "new h.Holder().swap(new java.util.concurrent.atomic.AtomicReference<Object>(new h.Holder()))"
    same = copied_and_compared(runner, tmp_path, SWAP, SWAP.replace('"x"', '"y"'), call)
    assert '"a holder"' in same.observations[0].reference and '("x")' in same.observations[0].reference, same


WHEN = """public String when(java.text.DateFormat f) {
    return f.format(new java.util.Date(86_400_000L));
}"""
ZONED = WHEN.replace("    return", '    f.setTimeZone(java.util.TimeZone.getTimeZone("GMT+5"));\n    return')
OWN_CLASSES = """public static class Fmt extends java.text.DateFormat {
    public Fmt() {
        calendar = java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC"));
        numberFormat = java.text.NumberFormat.getIntegerInstance();
    }
    public StringBuffer format(java.util.Date d, StringBuffer b, java.text.FieldPosition p) {
        calendar.setTime(d);
        return b.append(calendar.get(java.util.Calendar.HOUR_OF_DAY));
    }
    public java.util.Date parse(String s, java.text.ParsePosition p) {
        return null;
    }
}
public static class Zone extends java.util.SimpleTimeZone {
    public Zone() {
        super(0, "Z");
    }
}
"""
HOUR = """public int hour(java.util.Calendar c) {
    return c.get(java.util.Calendar.HOUR_OF_DAY);
}"""


@pytest.mark.parametrize("made", ['new java.text.SimpleDateFormat("yyyy-MM-dd HH")', "new h.Holder.Fmt()"])
def test_a_date_format_the_jdk_s_or_a_project_s_is_copied_with_its_calendar(runner, tmp_path, made):
    # JacksonDatabind's StdDateFormat extends the JDK's DateFormat: its calendar and number format are copied (by
    # their own clone: nothing in them is the project's), so a candidate that moves the format's zone differs
    same = copied_and_compared(runner, tmp_path, WHEN, ZONED, f"new h.Holder().when({made})", OWN_CLASSES)
    assert "GMT+5" not in same.observations[0].reference


def test_a_calendar_holding_a_project_s_zone_is_not_copied_by_the_jdk(runner, tmp_path):
    # its clone would run the project's code and leave the twin the original's zone: the input is not copied
    call = "new h.Holder().hour(java.util.Calendar.getInstance(new h.Holder.Zone()))"
    run = probe(runner, tmp_path, HOUR, HOUR, call, OWN_CLASSES)
    assert run.calls == 0 and run.skipped == 1 and "Calendar" in run.uncopyable, run


TAG = """@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
public @interface Tag {
    String value();
    Class<?> kind() default Holder.class;
    java.lang.annotation.ElementType[] at() default {java.lang.annotation.ElementType.METHOD};
}
@Tag("x")
public void tagged() {
}
"""
ANNOTATED = """public String named(java.lang.annotation.Annotation a) {
    Tag t = (Tag) a;
    return t.value() + t.kind().getSimpleName() + t.at().length + (t.kind() == Holder.class);
}"""
TAGGED = 'h.Holder.class.getDeclaredMethod("tagged").getAnnotation(h.Holder.Tag.class)'


def test_an_annotation_is_copied_as_the_twin_s_own_with_the_same_values(runner, tmp_path):
    # JacksonDatabind-16 adds annotations to a map: before, the proxy made the input uncopyable. The candidate's
    # copy must be of its own class's annotation type (the cast), its class values its own classes (the ==)
    call = f"new h.Holder().named({TAGGED})"
    same = copied_and_compared(
        runner, tmp_path, ANNOTATED, ANNOTATED.replace("t.value() +", 't.value() + "!" +'), call, TAG
    )
    assert '"xHolder1true"' in same.observations[0].reference, same
    assert "@h.Holder$Tag(at=" in same.observations[0].input, same


def test_an_annotation_whose_handler_is_not_the_jdk_s_is_not_copied(runner, tmp_path):
    # a proxy of an annotation type with a handler of the project's: its handler would answer the candidate
    fake = (
        "(java.lang.annotation.Annotation) java.lang.reflect.Proxy.newProxyInstance(h.Holder.class.getClassLoader(), "
        'new Class<?>[] {h.Holder.Tag.class}, (p, m, a) -> m.getName().equals("value") ? "x" '
        ': m.getName().equals("kind") ? h.Holder.class : new java.lang.annotation.ElementType[0])'
    )
    run = probe(runner, tmp_path, ANNOTATED, ANNOTATED, f"new h.Holder().named({fake})", TAG)
    assert run.calls == 0 and "Proxy" in run.uncopyable, run


REPEATED = """@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
public @interface Tags {
    Tag[] value();
}
@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
@java.lang.annotation.Repeatable(Tags.class)
public @interface Tag {
    String value();
}
"""
CONTAINER = """public boolean container(java.lang.annotation.Annotation a) {
    return ((java.lang.annotation.Repeatable) a).value() == Tags.class;
}"""


def test_a_jdk_annotation_naming_a_project_class_names_the_twin_s(runner, tmp_path):
    # @Repeatable is the JDK's, its value a project class: shared, it would hand the candidate the original's class
    call = "new h.Holder().container(h.Holder.Tag.class.getAnnotation(java.lang.annotation.Repeatable.class))"
    other = CONTAINER.replace("== Tags.class", "!= Tags.class")
    same = copied_and_compared(runner, tmp_path, CONTAINER, other, call, REPEATED)
    assert "return=true" in same.observations[0].candidate, same


LRU = """public static class Lru<K, V> extends java.util.LinkedHashMap<K, V> {
    final int max;

    public Lru(int max) {
        super(4, 0.75f, true);
        this.max = max;
    }

    @Override
    protected boolean removeEldestEntry(java.util.Map.Entry<K, V> eldest) {
        return size() > max;
    }
}

public static Lru<String, Integer> lru(String... keys) {
    Lru<String, Integer> m = new Lru<>(3);
    for (String k : keys) {
        m.put(k, k.length());
    }
    return m;
}
"""
TOUCH = """public String touch(Lru<String, Integer> m, String key) {
    m.get(key);
    m.put("new", 0);
    return String.join(",", m.keySet());
}"""


def test_a_project_subclass_of_a_jdk_map_is_copied_with_its_order_and_contents(runner, tmp_path):
    # JacksonDatabind-1: its serializer provider's caches are Jackson's LRUMap, a LinkedHashMap in access order
    # that drops its eldest entry past its size; the input was uncopyable, and 14 of RepairBench's answers were
    # "not-probed". Rebuilt by the JDK's own constructor with the original's access order: a get moves the key
    # last, and the eldest one goes (b here, where a candidate that skips the get drops a)
    call = 'new h.Holder().touch(h.Holder.lru("a", "b", "c"), "a")'
    same = copied_and_compared(runner, tmp_path, TOUCH, TOUCH.replace("    m.get(key);\n", ""), call, LRU)
    row = next(o for o in same.observations if o.origin is observations.Origin.CALL)
    assert row.reference.startswith('return="c,a,new"'), row
    assert 'h.Holder$Lru{max=3}[3]{"a"=1,"b"=1,"c"=1}' in row.input, row  # its contents, in its order


@pytest.mark.parametrize("overridden", ["put", "get", "keySet", "entrySet"])
def test_a_subclass_of_a_jdk_map_that_overrides_its_methods_stays_uncopyable(runner, tmp_path, overridden):
    # copying it would run the project's own put, snapshotting it the project's own iteration: code of the
    # project's (a candidate's, when it is the class fixed) run by the probe outside any body it watches
    signature = {
        "put": "public V put(K k, V v) { return super.put(k, v); }",
        "get": "public V get(Object k) { return super.get(k); }",
        "keySet": "public java.util.Set<K> keySet() { return super.keySet(); }",
        "entrySet": "public java.util.Set<java.util.Map.Entry<K, V>> entrySet() { return super.entrySet(); }",
    }[overridden]
    members = LRU.replace(
        "    @Override\n    protected boolean removeEldestEntry",
        f"    {signature}\n\n    @Override\n    protected boolean removeEldestEntry",
    )
    run = probe(runner, tmp_path, TOUCH, TOUCH, 'new h.Holder().touch(h.Holder.lru("a", "b", "c"), "a")', members)
    assert run.calls == 0 and run.skipped == 1, run  # the test's call, passed over
    assert run.uncopyable == "h.Holder$Lru extends java.util.LinkedHashMap", run


GENERIC = """public java.util.List<Holder> items;
public java.util.List<Holder>[] lists;

public static class Box<T> {
    public T value;
}

public static java.lang.reflect.Type typeOf(Class<?> owner, String field) throws ReflectiveOperationException {
    return owner.getField(field).getGenericType();
}
"""
OWN = """public String own(java.lang.reflect.Type t) {
    if (t instanceof java.lang.reflect.ParameterizedType) {
        java.lang.reflect.Type first = ((java.lang.reflect.ParameterizedType) t).getActualTypeArguments()[0];
        return t.getTypeName() + " " + (first == Holder.class);
    }
    if (t instanceof java.lang.reflect.GenericArrayType) {
        return t.getTypeName() + " " + (((java.lang.reflect.ParameterizedType) ((java.lang.reflect.GenericArrayType) t)
                .getGenericComponentType()).getActualTypeArguments()[0] == Holder.class);
    }
    return t.getTypeName() + " " + (((java.lang.reflect.TypeVariable<?>) t).getGenericDeclaration() == Box.class);
}"""


@pytest.mark.parametrize(
    "owner, field, shown",
    [
        ("h.Holder.class", "items", "java.util.List<h.Holder> true"),
        ("h.Holder.class", "lists", "java.util.List<h.Holder>[] true"),
        ("h.Holder.Box.class", "value", "T true"),
    ],
)
def test_a_generic_type_of_the_project_s_classes_is_the_twin_s_own(runner, tmp_path, owner, field, shown):
    # JacksonDatabind-1: its bean properties' types hold the JDK's ParameterizedTypeImpl of project classes; the
    # input was uncopyable. The candidate's copy names its own classes, made by the JDK's own factories (a type
    # variable is its twin declaration's), so the same body sees its own Holder
    call = f'new h.Holder().own(h.Holder.typeOf({owner}, "{field}"))'
    same = copied_and_compared(runner, tmp_path, OWN, OWN.replace('+ " " +', '+ " ! " +'), call, GENERIC)
    row = next(o for o in same.observations if o.origin is observations.Origin.CALL)
    assert row.reference == row.candidate and row.reference.startswith(f'return="{shown}"'), row


OPENED = """static java.io.File file;

public static java.io.FileOutputStream opened() throws java.io.IOException {
    file = java.io.File.createTempFile("holder", ".bin");
    java.io.FileOutputStream out = new java.io.FileOutputStream(file);
    out.write("head".getBytes());
    return out;
}

public static void check(int expected) throws java.io.IOException {
    byte[] held = java.nio.file.Files.readAllBytes(file.toPath());
    file.delete();
    System.err.println("the test's file holds: " + new String(held));
    if (held.length != expected) {
        throw new IllegalStateException("the test's file holds " + held.length + " bytes");
    }
}
"""
FINISH = """public int finish(java.io.OutputStream out) throws java.io.IOException {
    out.write(new byte[] {'1', '2', '3'});
    out.close();
    return 3;
}"""


def test_a_stream_writing_a_file_is_copied_over_a_scratch_file_of_its_own(runner, tmp_path):
    # Compress-1: its archive stream writes into a FileOutputStream its test opened, and every call was
    # uncopyable ("not-probed" for 10 of RepairBench's answers). Each copy writes a scratch file holding what the
    # test's file held; what it holds after the body is compared, and the test's own file gets only the test's call
    call = "new h.Holder().finish(h.Holder.opened()); h.Holder.check(7)"
    before = set(Path(tempfile.gettempdir()).glob("nl2fix-copy*"))
    same = copied_and_compared(runner, tmp_path, FINISH, FINISH.replace("'2', ", ""), call, OPENED)
    row = next(o for o in same.observations if o.origin is observations.Origin.CALL)
    assert "java.io.FileOutputStream(open, 4 bytes " in row.input and '"head")' in row.input, row
    assert "java.io.FileOutputStream(closed, 7 bytes " in row.reference and '"head123")' in row.reference, row
    leftovers = set(Path(tempfile.gettempdir()).glob("nl2fix-copy*")) - before
    assert not leftovers, leftovers  # each input's scratch files go once its outcomes are written


ARCHIVE = """private final java.io.OutputStream out;
private boolean finished;

public Holder() {
    this(new java.io.ByteArrayOutputStream());
}

public Holder(java.io.OutputStream out) {
    this.out = out;
}

public void finish() throws java.io.IOException {
    if (!finished) {
        out.write("TRAILER".getBytes());
        finished = true;
    }
}
"""
CLOSE = """public void close() throws java.io.IOException {
    finish();
    out.flush();
}"""


def test_a_private_stream_a_method_the_fix_calls_writes_is_compared(runner, tmp_path):
    # Compress-1's close() calls finish(), which writes the archive's trailer through the private stream its caller
    # handed in: the fix's body never names it, yet what it holds is what the caller reads. A candidate that forgets
    # finish() leaves the caller's stream without the trailer
    call = "new h.Holder(new java.io.ByteArrayOutputStream()).close()"
    same = copied_and_compared(runner, tmp_path, CLOSE, CLOSE.replace("    finish();\n", ""), call, ARCHIVE)
    row = next(o for o in same.observations if o.origin is observations.Origin.CALL)
    assert "out=java.io.ByteArrayOutputStream{" in row.reference, row
