"""Behaviour probing of plausible candidates on the example benchmark, with real javac, JUnit and
bubblewrap: the hold-out set of tests/fixtures/behaviour (variants of the developer's fix, candidates
that overfit the tests), and the labels, clusters and disagreements drawn from probes."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from defects4j_adapter.behaviour.observations import NO_EVIDENCE, STEADY, Observation, Origin, ProbeRun, read
from defects4j_adapter.engines import probing
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.jvm.runner import junit_jars
from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.dataset.load import EXAMPLE_BENCHMARK, open_dataset
from nl2fix.store.records import BehaviourRecord, ObservedResult
from nl2fix.validation.behaviour import (
    Prober,
    clusters,
    disagreements,
    label,
    passed_over,
    settled,
    stable_inputs,
)
from nl2fix.validation.bug_work import BugRun
from tests.helpers.javac import compile_java, javac
from tests.helpers.minibench import engine_options
from tests.helpers.paths import FIXTURES

HOLDOUT = FIXTURES / "behaviour"
CASES = sorted(p for p in HOLDOUT.glob("*/*.java"))
EXPECTED = {"same": Behaviour.SAME, "diverges": Behaviour.DIVERGES, "missed": Behaviour.SAME}


@pytest.fixture(scope="module")
def fast(nl2fix_cache, confined):
    engine = FastEngine(
        engine_options(
            nl2fix_cache,
            projects_dir=EXAMPLE_BENCHMARK / "projects",
            test_timeout=5.0,
            candidate_timeout=60.0,
            memory_mb=512,
        )
    )
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def bug_runs(fast, tmp_path_factory):
    dataset = open_dataset("example")
    runs: dict[str, BugRun] = {}

    def get(bug_id: str) -> BugRun:
        if bug_id not in runs:
            run = BugRun(fast, dataset.bugs[bug_id], log_root=tmp_path_factory.mktemp("logs"))
            run.baselines(lambda h: None, lambda record, candidate: None)
            runs[bug_id] = run
        return runs[bug_id]

    return get


@pytest.mark.sandbox
@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_holdout_set_is_classified_as_written(path: Path, bug_runs):
    expected = EXPECTED[path.stem.rsplit(".", 1)[1]]
    record = bug_runs(path.parent.name).candidate(path.stem, path.read_text(encoding="utf-8"))
    assert record.verdict is Verdict.PLAUSIBLE, record  # each of them passes the tests
    b = record.behaviour
    assert b is not None and b.label is expected, b
    # the tests' calls and inputs derived from them; a divergence's probe may end at the call that decided it
    assert b.inputs >= (1 if b.decided else 10), b
    if expected is Behaviour.DIVERGES:
        assert b.first_input and b.reference_result != b.candidate_result
    else:
        assert not b.first_input


@pytest.mark.sandbox
def test_a_probe_ended_at_its_deciding_call_labels_as_the_whole_probe(bug_runs, fast):
    # the runner ends a candidate's probe after the call whose inputs hold a difference on an input the fix's own
    # probe found steady; given outcomes it can never match there, it runs the probe to its end
    run = bug_runs("Rangekit-3")
    fix = run.ws.bug.fixed_method
    baseline = Prober(fast, run.ws, fix, developer_fix=True).baseline()
    candidate = (HOLDOUT / "Rangekit-3" / "hardcoded_test_values.diverges.java").read_text(encoding="utf-8")
    steady = stable_inputs(baseline)

    def probe(given: dict[str, str]) -> tuple[ProbeRun, BehaviourRecord]:
        done = fast.probe(
            run.ws, fix, candidate, tests=frozenset(baseline.tests), skip=passed_over(baseline), steady=given
        )
        return done, label(baseline, done, developer_fix=True)

    ended, early = probe(steady)
    whole_run, whole = probe({d: "no outcome" for d in steady})
    assert early.label is whole.label is Behaviour.DIVERGES, (early, whole)
    assert (early.first_input, early.reference_result, early.candidate_result) == (
        whole.first_input,
        whole.reference_result,
        whole.candidate_result,
    )
    assert ended.decided in steady and early.decided and not whole_run.decided and not whole.decided
    assert len(ended.observations) < len(whole_run.observations), (ended, whole_run)
    # nothing after the deciding input's call ran: its row is among the last call's
    assert ended.decided in {o.input_digest for o in ended.observations}


@pytest.mark.sandbox
def test_a_divergence_names_the_input_and_both_results(bug_runs):
    path = HOLDOUT / "Textkit-1" / "hardcoded_test_values.diverges.java"
    b = bug_runs("Textkit-1").candidate("h", path.read_text(encoding="utf-8")).behaviour
    # "abc"/"abx" is hard-coded; one space more and the candidate falls back to the buggy loop
    assert (b.first_input, b.reference_result.split(",")[0], b.candidate_result.split(",")[0]) == (
        'arg0="abc ", arg1="abx"',
        "return=2",
        "return=3",
    )


def _text(source: bytes) -> str:
    """A source file's text: Textkit's files are UTF-8 but for one in ISO-8859-1 (as a project may hold)."""
    try:
        return source.decode("utf-8")
    except UnicodeDecodeError:
        return source.decode("iso-8859-1")


def _junit(test: str, bug, method: str, tmp: Path) -> subprocess.CompletedProcess:
    """Runs the JUnit ``test`` against the sources of ``bug``'s fixed project with ``method`` standing in for the
    developer's fix; javac and JUnit for real."""
    project = EXAMPLE_BENCHMARK / "projects" / bug.project / "fixed" / "src" / "main" / "java"
    sources = {p.relative_to(project).as_posix(): _text(p.read_bytes()) for p in project.rglob("*.java")}
    rel = bug.path.removeprefix("src/main/java/")
    assert bug.fixed_method in sources[rel]
    sources[rel] = sources[rel].replace(bug.fixed_method, method)
    package = re.search(r"^package ([\w.]+);", test, re.M).group(1)
    name = re.search(r"public class (\w+)", test).group(1)
    sources[f"{package.replace('.', '/')}/{name}.java"] = test
    classpath = ":".join(map(str, junit_jars()))
    classes = compile_java(sources, tmp, "-cp", classpath)
    return subprocess.run(
        [
            str(javac().with_name("java")),
            "-cp",
            f"{classes}:{classpath}",
            "org.junit.runner.JUnitCore",
            f"{package}.{name}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "bug_id, name, line",
    [
        ("Textkit-1", "hardcoded_test_values", 'CharSequence a = new String("abc ");'),
        # equal but distinct strings: each a new String, or `a == b` would hide the difference
        ("Textkit-1", "equal_length_check_removed", 'CharSequence b = new String("abc");'),
        ("Textkit-5", "first_accent_skipped", 'new String("\\u00c0")'),
        # a receiver the tests built, made field by field (its ranges each an object of their own)
        ("Rangekit-2", "hardcoded_range_ends", '"ranges", new java.util.ArrayList(java.util.Arrays.asList('),
    ],
)
def test_a_divergence_comes_with_a_junit_test_that_passes_on_the_fix_and_fails_on_the_candidate(
    bug_runs, tmp_path, bug_id, name, line
):
    bug = open_dataset("example").bugs[bug_id]
    code = (HOLDOUT / bug_id / f"{name}.diverges.java").read_text(encoding="utf-8")
    b = bug_runs(bug_id).candidate(name, code).behaviour
    assert b.label is Behaviour.DIVERGES and b.junit_test and not b.junit_note, b
    assert line in b.junit_test, b.junit_test
    on_fix = _junit(b.junit_test, bug, bug.fixed_method, tmp_path / "fix")
    assert on_fix.returncode == 0 and "OK (1 test)" in on_fix.stdout, on_fix.stdout
    on_candidate = _junit(b.junit_test, bug, code, tmp_path / "candidate")
    assert on_candidate.returncode != 0 and "AssertionError" in on_candidate.stdout, on_candidate.stdout


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "bug_id, name, first_input, results",
    [
        # the tests pass one literal twice (caught by `a == b`); an equal but distinct copy reaches the length check
        ("Textkit-1", "equal_length_check_removed", 'arg0="abc", arg1="abc"', ("-1", "3")),
        # the fix compares each character with the literal 'À'; the literal itself, as a string, is an input
        ("Textkit-5", "first_accent_skipped", 'arg0="\\u00c0"', ("true", "false")),
    ],
)
def test_inputs_the_tests_never_built_equal_copies_and_the_fixs_literals(bug_runs, bug_id, name, first_input, results):
    run = bug_runs(bug_id)
    b = run.candidate(name, (HOLDOUT / bug_id / f"{name}.diverges.java").read_text(encoding="utf-8")).behaviour
    assert (b.label, b.first_input) == (Behaviour.DIVERGES, first_input), b
    assert (b.reference_result.split(",")[0], b.candidate_result.split(",")[0]) == tuple(f"return={r}" for r in results)
    fix = run.candidate("fix", open_dataset("example").bugs[bug_id].fixed_method).behaviour
    assert fix.label is Behaviour.SAME, fix


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "name, ranges, argument, results",
    [
        # 3, 12 and 7 accepted outright: each the upper end of the set its own call asks, none of this set, asked
        # with the argument another call passed
        ("hardcoded_range_ends", "{min=1,max=3},org.rangekit.IntRange{min=10,max=12}", 7, ("false", "true")),
        # a range's upper end accepted only when it is 3, 12 or 7: asked with a value another test's set holds
        (
            "hardcoded_upper_ends",
            "{min=8000,max=8020},org.rangekit.IntRange{min=9000,max=9000}",
            8020,
            ("true", "false"),
        ),
    ],
)
def test_receivers_come_from_other_calls_and_arguments_from_what_a_receiver_holds(
    bug_runs, name, ranges, argument, results
):
    path = HOLDOUT / "Rangekit-2" / f"{name}.diverges.java"
    b = bug_runs("Rangekit-2").candidate(name, path.read_text(encoding="utf-8")).behaviour
    receiver = f"org.rangekit.RangeSet{{ranges=java.util.ArrayList[2]{{org.rangekit.IntRange{ranges}}}}}"
    assert b.first_input == f"arg0={argument}, this={receiver}"  # the arguments first: never cut off
    assert (b.reference_result.split(",")[0], b.candidate_result.split(",")[0]) == tuple(f"return={r}" for r in results)


@pytest.mark.sandbox
def test_a_method_of_a_project_object_is_probed_on_copies_of_the_receiver(bug_runs):
    # Rangekit-4's `add` mutates its receiver (a RangeSet) and returns it: copied, run, compared
    bug = open_dataset("example").bugs["Rangekit-4"]
    run = bug_runs("Rangekit-4")
    fix = run.candidate("fix", bug.fixed_method).behaviour
    assert fix.label is Behaviour.SAME and fix.inputs >= 5
    assert "this=@return" in fix.observations[0].result  # it returns its receiver
    # the buggy method merges overlapping ranges only, and the tests see it
    buggy = run.candidate("buggy", bug.buggy_method)
    assert buggy.verdict is Verdict.WRONG and buggy.behaviour is None


SLOW_BUT_RIGHT = """public static int indexOfDifference(final CharSequence a, final CharSequence b) {
        long spin = 0;
        for (long k = 0; k < 20_000_000L; k++) {
            spin += k ^ (spin >>> 3);
        }
        if (spin == 42) {
            return -7;
        }
        if (a == b) {
            return INDEX_NOT_FOUND;
        }
        if (a == null || b == null) {
            return 0;
        }
        final int shorter = Math.min(a.length(), b.length());
        for (int i = 0; i < shorter; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return i;
            }
        }
        return a.length() == b.length() ? INDEX_NOT_FOUND : shorter;
    }
"""


@pytest.mark.sandbox
def test_a_probe_over_its_cpu_budget_is_not_probed_with_its_inputs_so_far(bug_runs, monkeypatch):
    # the developer's fix on every input, each call of it a few CPU-ms late: the tests pass, the probe's
    # inputs take seconds; it stops at its budget (a small one here: the example's inputs are few), never a
    # label its inputs do not support
    monkeypatch.setattr(probing, "CANDIDATE_BUDGET", 0.3)
    record = bug_runs("Textkit-1").candidate("slow-but-right", SLOW_BUT_RIGHT)
    assert record.verdict is Verdict.PLAUSIBLE, record
    b = record.behaviour
    assert b is not None and b.label is Behaviour.NOT_PROBED, b
    assert f"met its budget of {probing.CANDIDATE_BUDGET:g} CPU-s" in b.note, b.note
    assert b.inputs > 0 and b.observations, b  # what it compared before the budget is kept
    assert b.cpu_seconds < 2.3, b  # the budget, the probe's two compiles and the JVM's own threads


TEXTKIT_FIX = open_dataset(EXAMPLE_BENCHMARK / "nl2fix_dataset.json").bugs["Textkit-1"].fixed_method
SIGNATURE = "public static int indexOfDifference(final CharSequence a, final CharSequence b) {\n"
LOOPS_ON_AN_EMPTY_PREFIX = TEXTKIT_FIX.replace(
    SIGNATURE,
    SIGNATURE
    + """        if (a != null && a.length() == 0 && b != null && b.length() == 5) {
            for (;;) {
                Thread.onSpinWait();
            }
        }
""",
)
"""The developer's fix, which loops on "" beside a five-character string."""


@pytest.mark.sandbox
def test_inputs_on_which_the_fix_does_not_end_do_not_spend_a_candidates_budget(bug_runs, fast):
    # a developer's fix that never ends on a derived input no test makes ("" beside "abxyz", the tests'
    # call with its first argument emptied): its own probe runs to the per-test limit there, no evidence;
    # a candidate's probe passes that input over instead of spending its whole budget on the fix's loop
    run = bug_runs("Textkit-1")
    prober = Prober(fast, run.ws, LOOPS_ON_AN_EMPTY_PREFIX, developer_fix=True)
    baseline = prober.baseline()
    assert any(o.reference_timed_out for o in baseline.observations), baseline
    assert passed_over(baseline), baseline
    # the fix's body on that input is stopped once it used 20 times what it used on the tests' own calls (at
    # least 0.2 CPU-s), not at the per-test limit (5 s here, twice: its probe of every class, then of the calling ones)
    assert baseline.cpu_seconds < 5.0, baseline
    right = prober.behaviour(open_dataset("example").bugs["Textkit-1"].fixed_method)
    assert right.label is Behaviour.SAME and right.inputs >= 10, right
    assert right.cpu_seconds < probing.CANDIDATE_BUDGET, right
    # issue 34's miss: equal but distinct strings, and the fix's length check, are still compared
    wrong = prober.behaviour((HOLDOUT / "Textkit-1" / "equal_length_check_removed.diverges.java").read_text())
    assert wrong.label is Behaviour.DIVERGES, wrong


THROWS_ON_AN_EMPTY_PREFIX = TEXTKIT_FIX.replace(
    SIGNATURE,
    SIGNATURE
    + """        if (a != null && a.length() == 0 && b != null && b.length() == 5) {
            return a.charAt(b.length());
        }
""",
)
"""The developer's fix, which fails as no caller is meant to meet on "" beside a five-character string."""


@pytest.mark.sandbox
def test_inputs_on_which_the_fix_fails_unexpectedly_are_kept_and_passed_over_by_candidates(bug_runs, fast):
    # an index out of range on a derived input: no evidence. Its own probe now keeps a row for it, so that a
    # candidate's probe runs neither body there (the fix may have filled the heap for seconds before it failed)
    run = bug_runs("Textkit-1")
    prober = Prober(fast, run.ws, THROWS_ON_AN_EMPTY_PREFIX, developer_fix=True)
    baseline = prober.baseline()
    unexpected = [o for o in baseline.observations if o.reference_again_digest == NO_EVIDENCE]
    assert unexpected and all(o.reference.startswith("throws java.lang.StringIndexOutOfBounds") for o in unexpected)
    assert {o.input_digest for o in unexpected} <= passed_over(baseline)
    assert not any(o.repeatable for o in unexpected)
    candidate = fast.probe(
        run.ws,
        THROWS_ON_AN_EMPTY_PREFIX,
        TEXTKIT_FIX,
        tests=frozenset(baseline.tests),
        skip=passed_over(baseline),
        steady=stable_inputs(baseline),
    )
    assert candidate.passed_over >= len(unexpected), candidate
    assert not {o.input_digest for o in unexpected} & {o.input_digest for o in candidate.observations}
    assert label(baseline, candidate, developer_fix=True).label is Behaviour.SAME


def test_a_probe_that_met_its_budget_is_not_probed_and_keeps_its_inputs():
    cut = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")], budget_met=0.5)
    record = label(BASELINE, cut, developer_fix=True)
    # the same on what it compared, but a probe cut short says nothing of the rest: its inputs are kept
    assert (record.label, record.inputs, record.first_input) == (Behaviour.NOT_PROBED, 2, ""), record
    assert "met its budget of 0.5 CPU-s after 2 compared input(s), 2 beside" in record.note
    assert [o.result for o in record.observations] == ["a", "b"]
    # the same inputs in a probe that ended (input 2, no evidence, passed over): same-behaviour
    full = label(BASELINE, ProbeRun(observations=cut.observations, passed_over=1), developer_fix=True)
    assert full.label is Behaviour.SAME


def test_a_probe_that_met_its_budget_after_a_difference_diverges():
    # each row is whole (the body the budget stopped gives none): a difference before the cut is one
    cut = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "c")], budget_met=0.5)
    record = label(BASELINE, cut, developer_fix=True)
    assert (record.label, record.first_input, record.reference_result, record.candidate_result) == (
        Behaviour.DIVERGES,
        "3",
        "b",
        "c",
    ), record
    # without a developer's fix there is no label to give: the cut probe stays out of the clusters
    assert label(BASELINE, cut, developer_fix=False).label is Behaviour.NOT_PROBED


def test_inputs_the_fix_gave_no_evidence_on_are_passed_over_and_count_as_reached():
    # input 2: the fix did not repeat itself; input 4: it ran out of time (the per-test limit)
    baseline = ProbeRun(observations=[*BASELINE.observations, _obs("4", "timeout", "timeout")])
    assert passed_over(baseline) == {"i2", "i4"}
    run = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")], passed_over=2)
    assert label(baseline, run, developer_fix=True).label is Behaviour.SAME
    # passed over or not, the inputs it did reach must be as many as the fix's own
    short = label(baseline, ProbeRun(observations=[_obs("1", "a", "a")], passed_over=2), developer_fix=True)
    assert short.label is Behaviour.NOT_PROBED and "reached 3 input(s)" in short.note, short


def test_the_end_row_says_which_budget_the_probe_met():
    assert read([], ["3", "10", "1", "500"]).budget_met == 0.5
    assert read([], ["3", "10", "1", "0"]).budget_met == 0.0
    assert read([], ["3", "10", "1"]).budget_met == 0.0  # a runner that knows no budget
    assert read([], ["3", "10", "1", "0", "7"]).passed_over == 7
    assert (
        read([], ["3", "10", "1", "0", "7", "d1"]).spoiled == "d1"
        and not read([], ["3", "10", "1", "0", "7", ""]).spoiled
    )


def test_a_bug_whose_calls_cannot_be_copied_says_what_the_first_held():
    # the end row's last field: what the first input that could not be copied held (a user can see which class)
    end = ["0", "0", "22", "0", "0", "", "com.x.LRUMap extends java.util.LinkedHashMap"]
    baseline = read([], end)
    assert (baseline.skipped, baseline.uncopyable) == (22, "com.x.LRUMap extends java.util.LinkedHashMap")
    record = label(baseline, ProbeRun(), developer_fix=True)
    assert record.label is Behaviour.NOT_PROBED, record
    assert record.note.startswith("the tests' 22 call(s) of the method hold what cannot be copied faithfully"), record
    assert record.note.endswith("; the first: com.x.LRUMap extends java.util.LinkedHashMap"), record
    assert "the first" not in label(read([], end[:6]), ProbeRun(), developer_fix=True).note  # an older runner


def test_a_candidate_that_changed_jvm_wide_state_the_fix_leaves_alone_diverges_on_that_call():
    # the runner stopped at the candidate's call that changed state it cannot put back: the rows before it are whole
    spoiled = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")], spoiled="i3")
    record = label(BASELINE, spoiled, developer_fix=True)
    assert (record.label, record.first_input, record.reference_result) == (Behaviour.DIVERGES, "3", "b"), record
    assert "changed JVM-wide state" in record.candidate_result and "JVM-wide" in record.junit_note
    # a difference in what a call returned comes first
    differs = label(BASELINE, ProbeRun(observations=[_obs("1", "a", "z")], spoiled="i1"), developer_fix=True)
    assert (differs.label, differs.candidate_result) == (Behaviour.DIVERGES, "z"), differs
    # where the fix's own probe changed such state too, the probe was only cut short
    both = label(replace(BASELINE, spoiled="i1"), spoiled, developer_fix=True)
    assert (both.label, both.inputs) == (Behaviour.NOT_PROBED, 2), both
    assert "changed JVM-wide state the runner cannot put back" in both.note and "after 2 compared" in both.note


def _obs(input_: str, ref: str, cand: str, again: str | None = None) -> Observation:
    return Observation(
        Origin.CALL,
        "T",
        input_,
        "i" + input_,
        ref,
        "r" + ref,
        cand,
        "r" + cand,
        "r" + (ref if again is None else again),
    )


BASELINE = ProbeRun(observations=[_obs("1", "a", "a"), _obs("2", "x", "y"), _obs("3", "b", "b")])


def test_inputs_the_reference_does_not_repeat_are_not_compared():
    run = ProbeRun(observations=[_obs("1", "a", "a"), _obs("2", "x", "z"), _obs("3", "b", "c")])
    record = label(BASELINE, run, developer_fix=True)
    # input 2 is unstable (the reference differed from itself): only 1 and 3 count, and 3 differs
    assert (record.label, record.inputs, record.first_input) == (Behaviour.DIVERGES, 2, "3")
    assert (record.reference_result, record.candidate_result) == ("b", "c")
    same = label(
        BASELINE,
        ProbeRun(observations=[_obs("1", "a", "a"), _obs("2", "x", "q"), _obs("3", "b", "b")]),
        developer_fix=True,
    )
    assert (same.label, same.inputs) == (Behaviour.SAME, 2)
    user = label(BASELINE, run, developer_fix=False)
    assert user.label is Behaviour.OBSERVED and [o.result for o in user.observations] == ["a", "c"]


def test_a_probe_that_did_not_finish_or_missed_inputs_is_never_same_behaviour():
    partial = [_obs("1", "a", "a")]
    unfinished = label(BASELINE, ProbeRun(observations=partial, error="the probe did not finish"), developer_fix=True)
    assert unfinished.label is Behaviour.NOT_PROBED and "did not finish" in unfinished.note
    missing = label(BASELINE, ProbeRun(observations=partial), developer_fix=True)
    assert missing.label is Behaviour.NOT_PROBED and "reached 1 input(s)" in missing.note


def test_an_input_the_fix_ran_once_on_counts_only_where_its_own_probe_found_it_steady():
    def once(input_: str, ref: str, cand: str) -> Observation:
        return replace(_obs(input_, ref, cand), reference_again_digest=STEADY)

    # inputs 1 and 3 are steady in the fix's own probe: run once, they are compared, and 3 differs
    record = label(BASELINE, ProbeRun(observations=[once("1", "a", "a"), once("3", "b", "c")]), developer_fix=True)
    assert (record.label, record.inputs, record.first_input) == (Behaviour.DIVERGES, 2, "3"), record
    # once on the fix's unsteady input 2, or on one its probe never saw: no evidence
    unsteady = [once("1", "a", "a"), once("2", "x", "z"), once("3", "b", "b"), once("9", "q", "r")]
    record = label(BASELINE, ProbeRun(observations=unsteady), developer_fix=True)
    assert (record.label, record.inputs) == (Behaviour.SAME, 2), record
    # and a fix that, run once, gives another outcome than its own probe did: the candidate's doing
    drifted = label(BASELINE, ProbeRun(observations=[once("1", "a", "a"), once("3", "z", "z")]), developer_fix=True)
    assert drifted.label is Behaviour.DIVERGES and "changed state the fix reads" in drifted.candidate_result


def test_a_fix_that_does_otherwise_on_a_caller_s_input_than_in_its_own_probe_gives_no_evidence():
    # a caller's run (the test's solve, integrate...) reaches the tests' own static state, which only the method's class
    # has put back: Math-7's fix beside itself "diverged" on the order its event handler's last trigger time saw
    def caller(o: Observation) -> Observation:
        return replace(o, origin=Origin.CALLER, caller="integrate(double)", reference_again_digest=STEADY)

    baseline = ProbeRun(observations=[*BASELINE.observations, caller(_obs("4", "c", "c"))])
    steady = [replace(_obs(i, r, r), reference_again_digest=STEADY) for i, r in (("1", "a"), ("3", "b"))]

    def probed(*rows: Observation) -> ProbeRun:
        return ProbeRun(observations=[*steady, *rows], passed_over=1)  # input 2: the fix did not repeat itself

    record = label(baseline, probed(caller(_obs("4", "thrown", "c"))), developer_fix=True)
    assert (record.label, record.inputs) == (Behaviour.SAME, 2), record
    # stopped there beside the candidate, likewise: no evidence, not a stalled fix
    assert label(baseline, probed(caller(_obs("4", "timeout", ""))), developer_fix=True).label is Behaviour.SAME
    # where the fix did as in its own probe, the candidate's outcome is compared as any other
    differs = label(baseline, probed(caller(_obs("4", "c", "d"))), developer_fix=True)
    assert differs.label is Behaviour.DIVERGES and differs.first_call == "integrate(double)", differs


def test_an_input_on_which_the_fix_fails_a_test_s_own_assertion_gives_no_evidence():
    # Math-44's fix beside itself: a test's event handler, called back with the interpolator, asserts on a static field
    # the probe's runs move; the fix met it in one job and not the other, and never on the candidate's doing
    thrown = "throws java.lang.AssertionError=null"
    steady = [replace(_obs(i, r, r), reference_again_digest=STEADY) for i, r in (("1", "a"), ("3", "b"))]
    # the fix failed there alone and now, or failed there alone and now returned, or the other way round
    for own_probe, now in ((thrown, thrown), (thrown, "return=10.99"), ("return=10.99", thrown)):
        baseline = ProbeRun(observations=[*BASELINE.observations, _obs("4", own_probe, own_probe)])
        row = replace(_obs("4", now, "return=10.99"), reference_again_digest=STEADY)
        record = label(baseline, ProbeRun(observations=[*steady, row], passed_over=1), developer_fix=True)
        assert (record.label, record.inputs) == (Behaviour.SAME, 2), (own_probe, now, record)


def test_a_fix_that_no_longer_ends_where_alone_it_did_leaves_the_candidate_not_probed():
    # beside the candidate, the fix's body on steady input 3 ran past its allowance and was stopped, the test going
    # on: what the candidate's calls on input 1 left may have slowed it, and input 3 was not compared. Never
    # same-behaviour on the other inputs alone (a candidate could stall the fix where it differs from it)
    stalled = replace(_obs("3", "timeout", ""), reference_again_digest=STEADY)
    assert stalled.reference_timed_out
    run = ProbeRun(observations=[replace(_obs("1", "a", "a"), reference_again_digest=STEADY), stalled])
    record = label(BASELINE, run, developer_fix=True)
    assert record.label is Behaviour.NOT_PROBED, record
    assert "did not end beside this candidate" in record.note and record.note.endswith(": 3"), record.note
    # nor where it now fails as no caller is meant to meet (a row marked no-evidence), which it did not alone
    failed = replace(_obs("3", "throws java.lang.NullPointerException=null", ""), reference_again_digest=NO_EVIDENCE)
    broke = label(BASELINE, ProbeRun(observations=[run.observations[0], failed]), developer_fix=True)
    assert broke.label is Behaviour.NOT_PROBED and "failed unexpectedly beside this candidate" in broke.note, broke
    # where it differs on an input compared, it diverges all the same
    differs = ProbeRun(observations=[replace(_obs("1", "a", "q"), reference_again_digest=STEADY), stalled])
    assert label(BASELINE, differs, developer_fix=True).label is Behaviour.DIVERGES
    # an input the fix's own probe never found steady: no evidence either way, as before
    unknown = replace(_obs("9", "timeout", ""), reference_again_digest="r")
    same = label(
        BASELINE, ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b"), unknown]), developer_fix=True
    )
    assert same.label is Behaviour.SAME, same


def test_the_fix_s_probe_is_taken_again_with_what_it_gave_no_evidence_on_passed_over():
    # input 2 gave no evidence in the fix's first probe; taken again as a candidate's probe meets it (2 passed over),
    # the yardstick keeps its row, so candidates pass it over too, and counts as reached only what this pass reached
    asked = []

    def again(tests, skip, passed=1):
        asked.append((tests, skip))
        return ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")], passed_over=passed)

    first = replace(BASELINE, observations=[replace(o, test="T") for o in BASELINE.observations])
    baseline = settled(first, again)
    assert asked == [(frozenset({"T"}), frozenset({"i2"}))]  # settled at once: no other input joined
    assert [o.input_digest for o in baseline.observations] == ["i1", "i3", "i2"] and baseline.unreached == 0
    assert passed_over(baseline) == {"i2"} and set(stable_inputs(baseline)) == {"i1", "i3"}
    candidate = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")], passed_over=1)
    assert label(baseline, candidate, developer_fix=True).label is Behaviour.SAME
    # where the call that made input 2 did not come again, it is neither passed over nor reached, and a candidate's
    # probe that does not meet it either reached all the fix did
    unmet = settled(first, lambda tests, skip: again(tests, skip, passed=0))
    assert unmet.unreached == 1 and passed_over(unmet) == {"i2"}
    candidate = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "b", "b")])
    assert label(unmet, candidate, developer_fix=True).label is Behaviour.SAME
    assert label(unmet, ProbeRun(observations=[_obs("1", "a", "a")]), developer_fix=True).label is Behaviour.NOT_PROBED


def test_inputs_that_differ_from_job_to_job_count_when_the_fix_repeats_itself_in_the_job():
    # a receiver holding a random generator's seed: no input digest of the reference's own probe recurs
    run = ProbeRun(observations=[_obs("7", "a", "a"), _obs("8", "x", "x", again="y"), _obs("9", "b", "c")])
    record = label(BASELINE, run, developer_fix=True)
    assert (record.label, record.inputs, record.first_input) == (Behaviour.DIVERGES, 2, "9")
    same = label(
        BASELINE,
        ProbeRun(observations=[_obs("7", "a", "a"), _obs("8", "x", "x", again="y"), _obs("9", "b", "b")]),
        developer_fix=True,
    )
    assert (same.label, same.inputs) == (Behaviour.SAME, 2)


def test_a_candidate_that_changes_what_the_fix_itself_returns_diverges():
    # after the candidate ran on input 1, the developer's fix gives another outcome on input 3 than it
    # gave on its own: the candidate left state behind that the fix reads (and agreed with the changed fix)
    run = ProbeRun(observations=[_obs("1", "a", "a"), _obs("3", "poisoned", "poisoned")])
    record = label(BASELINE, run, developer_fix=True)
    assert (record.label, record.first_input, record.reference_result) == (Behaviour.DIVERGES, "3", "b")
    assert "changed state the fix reads" in record.candidate_result


def _record(results: dict[str, str]) -> BehaviourRecord:
    return BehaviourRecord(
        label=Behaviour.OBSERVED,
        observations=[
            ObservedResult(input=f"x={i}", input_digest=i, result=r, result_digest=r) for i, r in results.items()
        ],
    )


def test_clusters_group_by_results_on_the_common_inputs_largest_first():
    records = {
        "a": _record({"1": "p", "2": "q"}),
        "b": _record({"1": "p", "2": "q", "3": "only b saw this"}),
        "c": _record({"1": "p", "2": "Q"}),
        "d": BehaviourRecord(label=Behaviour.NOT_PROBED),
        "e": BehaviourRecord(label=Behaviour.NOT_PROBED, observations=_record({"1": "p"}).observations),
    }
    found = clusters(records, {"a": 1, "b": 2, "c": 2}, order=["c", "b", "a"])
    assert [c.members for c in found] == [["b", "a"], ["c"]]  # 3 samples before 2; b has more samples than a
    assert [c.samples for c in found] == [3, 2]
    (where,) = disagreements(found)
    assert (where.input, where.results) == ("x=2", ["q", "Q"])
    assert disagreements(found[:1]) == []


def test_a_probe_ended_at_its_first_difference_narrows_no_cluster_and_joins_none_it_differs_from():
    def ended(results: dict[str, str], first: str) -> BehaviourRecord:
        return _record(results).model_copy(
            update={"label": Behaviour.DIVERGES, "decided": True, "first_input": f"x={first}", "candidate_result": "Z"}
        )

    same = {"1": "p", "2": "q", "3": "r"}
    records = {
        "a": _record(same),
        "b": _record(same),
        "c": _record({"1": "p", "2": "q", "3": "R"}),
        # each ended at input 2 (the same difference), and one at input 1: the whole probes' input 3 still counts
        "d": ended({"1": "p", "2": "Z"}, "2"),
        "e": ended({"1": "p", "2": "Z"}, "2"),
        "f": ended({"1": "Z"}, "1"),
    }
    found = clusters(records, {}, order=list("abcdef"))
    assert [c.members for c in found] == [["a", "b"], ["d", "e"], ["c"], ["f"]]
    # where they disagree: only on inputs every cluster reached
    assert [w.input for w in disagreements(found)] == ["x=1"]


@pytest.mark.sandbox
def test_a_probe_runs_the_classes_its_validation_compiled_and_the_bug_s_one_probe_compile(bug_runs, fast, monkeypatch):
    # a plausible candidate's validation compiles it once; its probe runs those classes, and the probe
    # source (the reference behind the wrapper) compiled at most once: the candidate's only compile is its
    # validation's, and the labels stand
    run = bug_runs("Textkit-1")
    first = HOLDOUT / "Textkit-1" / "while_loop.same.java"
    assert run.candidate("compiled-once-1", first.read_text(encoding="utf-8")).behaviour is not None
    compiles: list[str] = []
    compile_source = fast.compile_source

    def counted(ws, write, log_dir=None, compile_classpath=()):
        compiles.append("probe source" if compile_classpath else "candidate")
        return compile_source(ws, write, log_dir, compile_classpath)

    monkeypatch.setattr(fast, "compile_source", counted)
    for name, expected in [
        ("equal_contents.same", Behaviour.SAME),
        ("hardcoded_test_values.diverges", Behaviour.DIVERGES),
    ]:
        code = (HOLDOUT / "Textkit-1" / f"{name}.java").read_text(encoding="utf-8")
        compiles.clear()
        record = run.candidate(f"compiled-once-{name}", code)
        assert record.verdict is Verdict.PLAUSIBLE and record.behaviour is not None, record
        assert record.behaviour.label is expected, record.behaviour
        # the probe source holds the candidate's own constants (tried in its probe alone): one with constants another
        # candidate of the bug did not have is compiled once, by the probe that needs it (alone, this test meets
        # hardcoded_test_values' first)
        assert compiles.count("candidate") == 1 and compiles.count("probe source") <= 1, (name, compiles)


@pytest.mark.sandbox
def test_the_fix_s_own_probe_is_taken_on_the_test_classes_a_candidate_s_probe_runs(fast, tmp_path, monkeypatch):
    # Textkit-1's tests: four classes load the class, two call the method; a candidate's probe runs those two, so the
    # yardstick is taken on them alone as well (what the other two leave in the job would change the inputs)
    asked: list[frozenset[str] | None] = []
    real = fast.probe

    def spy(ws, reference, candidate, **kwargs):
        asked.append(kwargs.get("tests"))
        return real(ws, reference, candidate, **kwargs)

    monkeypatch.setattr(fast, "probe", spy)
    bug = open_dataset("example").bugs["Textkit-1"]
    run = BugRun(fast, bug, log_root=tmp_path)
    run.baselines(lambda h: None, lambda record, candidate: None)
    record = run.candidate("fix", bug.fixed_method)
    calling = frozenset({"org.textkit.StringsTest", "org.textkit.ReadmeExamplesTest"})
    assert asked == [None, calling, calling], asked  # every class, then the calling ones; the candidate's
    assert set(run.prober.reference_probe.tests) == calling
    assert record.behaviour.label is Behaviour.SAME, record.behaviour
