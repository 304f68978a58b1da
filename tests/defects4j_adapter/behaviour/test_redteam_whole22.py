"""Red team 22 (fifteenth session) against the whole texts a divergence's JUnit test is written from, and the test
itself, as a hostile candidate would attack them: each attack run for real (the runner's probe in a plain JVM, the
test compiled with javac and run with JUnit on the fix and on the candidate) and shown closed.

- A JDK view (``Collections.unmodifiableList``) over the candidate's own list ran its ``toArray`` inside the runner's
  snapshot: it rewrote the receiver while it was written (every row alike: ``same-behaviour`` for a candidate that
  differs), wrote the whole text otherwise than the compared one (a test that passed on the candidate), or threw
  ``StackOverflowError`` there (the row lost). A view over what is not the JDK's is now written field by field.
- A thread of the candidate's that caught its stop rewrote its objects before their whole texts were written: whole
  texts are kept only where what was compared still reads so, before and after.
- A set of 4,000 arrays of one 20,000-character string filled the heap in the whole pass: the whole contents of a
  collection stop at the text's length.
- A ``LongAdder`` was shared with the test, not copied: the candidate's increments reached the test's own object.
- The test: an argument the candidate returned itself (``arg0=@return``), a ``BigInteger`` subclass, a ``Pattern``
  (no ``equals``: the test failed on the fix), a fixed-size list inside an array, a text cut right after a whole value,
  a parameter named ``result``, and 3,000 strings (``code too large``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.jvm.runner import junit_jars
from tests.defects4j_adapter.behaviour.test_observable_state import CLASS, probe, runner  # noqa: F401
from tests.helpers.javac import JDKS, compile_java

pytestmark = pytest.mark.sandbox


def differing(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.candidate_digest != o.reference_digest and o.repeatable]


def written(fix: str, members: str, row: observations.Observation):
    source = CLASS % (fix + "\n" + members)
    start = source.splitlines().index(fix.splitlines()[0]) + 1
    return divergence_test(
        source,
        fix,
        start,
        start + len(fix.splitlines()) - 1,
        fix,
        row.whole_input or row.input,
        row.whole_reference or row.reference,
        row.whole_candidate or row.candidate,
    )


def junit(holder: str, test: str, tmp: Path) -> str:
    """What JUnit printed running ``test`` against ``h.Holder`` of source ``holder``."""
    java = next((j for j in JDKS if j.is_file()), None)
    if java is None:
        pytest.skip("no JDK 11 or 17")
    jars = ":".join(map(str, junit_jars()))
    classes = compile_java(
        {"h/Holder.java": holder, "h/HolderNl2fixDivergenceTest.java": test}, tmp, "--release", "8", "-cp", jars
    )
    done = subprocess.run(
        [str(java), "-cp", f"{classes}:{jars}", "org.junit.runner.JUnitCore", "h.HolderNl2fixDivergenceTest"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def shows(fix: str, candidate: str, members: str, row: observations.Observation, tmp: Path) -> bool | None:
    """Whether the test written from ``row`` passes on the fix and fails on the candidate (None: none written)."""
    explained = written(fix, members, row)
    if not explained.test:
        return None
    on_fix = junit(CLASS % (fix + "\n" + members), explained.test, tmp / "fix")
    on_candidate = junit(CLASS % (candidate + "\n" + members), explained.test, tmp / "candidate")
    assert "OK (1 test)" in on_fix, (explained.test, on_fix)
    return "OK (1 test)" not in on_candidate


ITEMS = """
    java.util.List<Object> items;
    int after;
"""
VIEW_FIX = """public int[] next(int step) {
    items = java.util.Collections.unmodifiableList(new java.util.ArrayList<Object>());
    return new int[] {step};
}"""
LIST = """    final Holder self = this;
    class Lst extends java.util.AbstractList<Object> implements java.util.RandomAccess {
        int calls;
        public Object get(int i) { throw new IndexOutOfBoundsException(); }
        public int size() { return 0; }
        public Object[] toArray() {
            %s
        }
    }
    items = java.util.Collections.unmodifiableList(new Lst());
"""
HIDDEN = (
    "public int[] next(int step) {\n"
    + LIST % "self.after = 0;  // only the runner's snapshot calls it\n            return new Object[0];"
    + "    after = 7;  // what every caller sees: the fix leaves 0\n    return new int[] {step};\n}"
)
REWRITTEN = (
    "public int[] next(int step) {\n    final int[] out = {step + 1};\n    final int right = step;\n"
    + LIST
    % """if (++calls == 1) {
                out[0] = right;  // the return value, already written, now reads as the fix's
                return new Object[] {"..."};  // so that whole() writes it again
            }
            self.after = 7;
            return new Object[0];"""
    + "    return out;\n}"
)
THROWN = (
    "public int[] next(int step) {\n"
    + LIST % "throw new StackOverflowError();  // not a RuntimeException"
    + "    return new int[] {step + 1};  // differs on every input\n}"
)


def test_a_view_over_the_candidate_s_own_list_cannot_run_its_code_in_the_snapshot(runner, tmp_path):
    # the candidate's toArray set `after` back to the fix's 0 while the runner wrote the receiver: every row alike
    hidden = probe(runner, tmp_path / "hidden", HIDDEN, VIEW_FIX, members=ITEMS)
    rows = differing(hidden)
    assert rows and "List{over h.Holder$1Lst{" in rows[0].candidate and "after=7" in rows[0].candidate, rows[:1]
    # the compared text and the whole one written from other objects: a test of a field that does not differ
    rewritten = probe(runner, tmp_path / "rewritten", REWRITTEN, VIEW_FIX, members=ITEMS)
    row = differing(rewritten)[0]
    assert row.candidate.startswith("return=int[1]{4}") and row.whole_candidate.startswith("return=int[1]{4}"), row
    assert shows(VIEW_FIX, REWRITTEN, ITEMS, row, tmp_path / "test") is not False
    # thrown inside the snapshot, the differing row was lost: a candidate wrong everywhere left none
    thrown = probe(runner, tmp_path / "thrown", THROWN, VIEW_FIX, members=ITEMS)
    assert len(differing(thrown)) == len(thrown.observations) > 3, thrown


@pytest.mark.parametrize(
    "wrap",
    [
        "java.util.Collections.synchronizedList(%s)",
        "java.util.Collections.checkedList(%s, Object.class)",
        "java.util.Collections.unmodifiableList(java.util.Collections.synchronizedList(%s))",
    ],
)
def test_no_view_of_the_jdk_s_runs_the_candidate_s_list_in_the_snapshot(runner, tmp_path, wrap):
    # the same view over the fix's ArrayList and over the candidate's own list, a view or two deep
    fix = VIEW_FIX.replace(
        "java.util.Collections.unmodifiableList(new java.util.ArrayList<Object>())",
        wrap % ("new java.util.ArrayList<Object>()"),
    )
    candidate = HIDDEN.replace("java.util.Collections.unmodifiableList(new Lst())", wrap % "new Lst()")
    rows = differing(probe(runner, tmp_path, candidate, fix, members=ITEMS))
    assert rows and "{over h.Holder$1Lst{" in rows[0].candidate and "after=7" in rows[0].candidate, rows[:1]


STOPPED = """public int[] next(int step) {
    final int[] out = {step + 1};
    final int right = step;
    final Holder self = this;
    note = "...";  // so that whole() writes the outcome again
    Thread t = new Thread() {
        volatile long spin;
        public void run() {
            try {
                while (true) {
                    spin++;
                }
            } catch (Throwable stopped) {  // the probe's Thread.stop, after the compared snapshot
                out[0] = right;
                self.note = null;
                self.after = 7;
            }
        }
    };
    t.setDaemon(true);
    t.start();
    return out;
}"""
NOTE = """
    String note;
    int after;
"""


def test_a_thread_that_outlives_its_stop_cannot_write_the_whole_texts(runner, tmp_path):
    fix = "public int[] next(int step) {\n    return new int[] {step};\n}"
    for attempt in range(3):  # a race the thread won about two runs in three
        row = differing(probe(runner, tmp_path / str(attempt), STOPPED, fix, members=NOTE))[0]
        assert row.candidate.startswith("return=int[1]{4}"), row
        assert not row.whole_candidate or row.whole_candidate.startswith("return=int[1]{4}"), row
        assert shows(fix, STOPPED, NOTE, row, tmp_path / f"test{attempt}") is not False


def test_whole_contents_stop_at_the_text_s_length(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Xmx512m")  # half the engines' default heap (contract.DEFAULT_MEMORY_MB)
    fix = "public java.util.Set<Object> bag(int n) {\n    return new java.util.HashSet<Object>();\n}"
    candidate = """public java.util.Set<Object> bag(int n) {
    char[] cs = new char[20000];
    java.util.Arrays.fill(cs, 'a');
    String s = new String(cs);
    java.util.Set<Object> out = new java.util.HashSet<Object>();
    for (int i = 0; i < 4000; i++) {
        String[] a = new String[10];
        java.util.Arrays.fill(a, s);
        out.add(a);
    }
    return out;
}"""
    # 4,000 items of 200,000 characters each, written before the text's cut: 1.6 G characters
    rows = differing(probe(runner, tmp_path, candidate, fix, "new h.Holder().bag(1)"))
    assert rows and rows[0].whole_candidate.endswith("..."), rows[:1]


def test_an_adder_is_copied_not_shared_with_the_test(runner, tmp_path):
    fix = "public long total(java.util.concurrent.atomic.LongAdder a) {\n    return a.sum();\n}"
    candidate = fix.replace("return a.sum();", "a.add(1000);\n    return a.sum();")
    call = (
        "java.util.concurrent.atomic.LongAdder a = new java.util.concurrent.atomic.LongAdder(); "
        'new h.Holder().total(a); if (a.sum() != 0) throw new AssertionError("the candidate reached the test")'
    )
    run = probe(runner, tmp_path, candidate, fix, call)  # the harness fails if the test's own adder moved
    assert differing(run) or run.skipped, run


PATTERN = '    public java.util.regex.Pattern f(int x) {\n        return java.util.regex.Pattern.compile("%s");\n    }'
HOLDER = """package h;

public class Holder {
%s
}
"""


def text_test(fix: str, first_input: str, fix_outcome: str, candidate_outcome: str):
    """The test written for ``fix``, a method of ``HOLDER`` (the fix itself), from these snapshot texts."""
    source = HOLDER % fix
    start = source.splitlines().index(fix.splitlines()[0]) + 1
    end = start + len(fix.splitlines()) - 1
    return divergence_test(source, fix, start, end, fix, first_input, fix_outcome, candidate_outcome)


def test_what_a_test_of_values_cannot_show_is_refused(tmp_path):
    # the candidate returns its argument itself where the fix returns a copy: xs keeps its value on both
    fix = "    public int[] f(int[] xs) {\n        return xs.clone();\n    }"
    explained = text_test(
        fix,
        "arg0=int[1]{1}, this=h.Holder{}",
        "return=int[1]{1}, this=h.Holder{}, arg0=int[1]{1}",
        "return=int[1]{1}, this=h.Holder{}, arg0=@return",
    )
    assert not explained.test and "which object arg0 is" in explained.why_not, explained


@pytest.mark.parametrize(
    "fix, candidate, fix_outcome, candidate_outcome",
    [
        (  # a subclass of BigInteger equals a BigInteger of the same value
            "    public java.math.BigInteger f(int x) {\n        return java.math.BigInteger.valueOf(x);\n    }",
            "    public java.math.BigInteger f(int x) {\n"
            "        return new java.math.BigInteger(String.valueOf(x)) {};\n    }",
            'return=BigInteger("6"), this=h.Holder{}, arg0=6',
            "return=h.Holder$1{}, this=h.Holder{}, arg0=6",
        ),
        (  # a Pattern equals no other: assertEquals failed on the fix
            PATTERN % "a",
            PATTERN % "b",
            'return=Pattern("a"), this=h.Holder{}, arg0=6',
            'return=Pattern("b"), this=h.Holder{}, arg0=6',
        ),
        (  # a fixed-size list inside an array equals an ArrayList
            "    public Object[] f(int x) {\n        return new Object[] {new java.util.ArrayList<String>("
            'java.util.Arrays.asList("a"))};\n    }',
            '    public Object[] f(int x) {\n        return new Object[] {java.util.Arrays.asList("a")};\n    }',
            'return=java.lang.Object[1]{java.util.ArrayList[1]{"a"}}, this=h.Holder{}, arg0=6',
            'return=java.lang.Object[1]{java.util.Arrays$ArrayList[1]{"a"}}, this=h.Holder{}, arg0=6',
        ),
        (  # a parameter named as the test's own variable: declared twice, the test did not compile
            "    public int f(int result) {\n        return result + 1;\n    }",
            "    public int f(int result) {\n        return result + 2;\n    }",
            "return=7, this=h.Holder{}, arg0=6",
            "return=8, this=h.Holder{}, arg0=6",
        ),
    ],
)
def test_the_test_checks_what_the_probe_compared(tmp_path, fix, candidate, fix_outcome, candidate_outcome):
    explained = text_test(fix, "arg0=6, this=h.Holder{}", fix_outcome, candidate_outcome)
    assert explained.test, explained
    assert "OK (1 test)" in junit(HOLDER % fix, explained.test, tmp_path / "fix"), explained.test
    assert "OK (1 test)" not in junit(HOLDER % candidate, explained.test, tmp_path / "candidate"), explained.test


def test_a_text_cut_right_after_a_whole_value_still_gives_a_test():
    fix = "    public int[] next(int step) {\n        return new int[] {step};\n    }"
    texts = (f"return=int[{n}]{{{','.join(['7'] * n)}}}" for n in range(99000, 100100))
    candidate = next(t for t in texts if len(t) == 200_000) + "..."
    explained = text_test(fix, "arg0=3, this=h.Holder{}", "return=int[1]{3}, this=h.Holder{}", candidate)
    assert explained.test, explained


def test_a_test_past_a_method_s_64_kb_of_bytecode_is_refused():
    fix = "    public String[] f(String[] xs) {\n        return xs;\n    }"
    strings = "java.lang.String[3000]{" + ",".join(['"a"'] * 3000) + "}"
    explained = text_test(
        fix,
        f"arg0={strings}, this=h.Holder{{}}",
        f"return={strings}, this=h.Holder{{}}, arg0=@return",
        "return=null, this=h.Holder{}, arg0=" + strings,
    )
    assert not explained.test and "64 KB of bytecode" in explained.why_not, explained
