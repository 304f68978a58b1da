"""What a model is told about its candidates (pure): feedback text, the round prompt's fitting rule, the
failing test's frame in a stack trace, and the fixed-within-k metrics."""

from __future__ import annotations

import pytest

from defects4j_adapter.contract import Workspace
from defects4j_adapter.engines.runner_output import failure_frame_line
from nl2fix.core import tokens
from nl2fix.core.domain import ConversationPhase, ModelStyle, Strategy, Verdict
from nl2fix.dataset.load import open_dataset
from nl2fix.prompting.conversation_prompt import Attempt, build_round, render
from nl2fix.prompting.prompt import build_prompt
from nl2fix.report import metrics
from nl2fix.sampling.feedback import (
    CUT,
    FEEDBACK_CHARS,
    FIELD_CHARS,
    compiler_error,
    compiler_errors,
    expected_actual,
    feedback,
)
from nl2fix.store.records import ValidationRecord
from nl2fix.validation.failure_site import source_line

METHOD = "int twice(int x) {\n    int y = x * 2\n    return y;\n}"


def record(verdict: Verdict, **fields) -> ValidationRecord:
    return ValidationRecord(bug_id="B-1", hash="h", engine="fast", verdict=verdict, **fields)


def test_a_wrong_candidate_is_told_the_test_its_values_and_its_source_line():
    text = feedback(
        record(
            Verdict.WRONG,
            failing_tests=["p.T::testA", "p.T::testB", "p.T::testC"],
            failure_message="java.lang.AssertionError: expected:<[a, b, ]> but was:<[a, b]>",
            failure_line=35,
            failure_source='assertEquals(asList("a", "b", ""), split("a,b,"));',
            detail="p.T::testA: java.lang.AssertionError ... raw",
        ),
        METHOD,
        10,
    )
    assert text.splitlines() == [
        "This version fails the test p.T::testA.",
        "Failure: java.lang.AssertionError: expected:<[a, b, ]> but was:<[a, b]>",
        "Expected: [a, b, ]",
        "Actual: [a, b]",
        'The test failed at line 35: assertEquals(asList("a", "b", ""), split("a,b,"));',
        "(2 more tests fail.)",
    ]


def test_a_failure_without_a_message_still_names_the_test_and_its_line():
    text = feedback(
        record(
            Verdict.WRONG,
            failing_tests=["p.T::t"],
            failure_message="java.lang.AssertionError",
            failure_line=53,
            failure_source="assertTrue(set.contains(6));",
        ),
        METHOD,
        1,
    )
    assert "Expected" not in text and "line 53: assertTrue(set.contains(6));" in text


def test_compiler_errors_are_placed_in_the_candidate_method():
    errors = "Twice.java:11: error: ';' expected\n    int y = x * 2\n                 ^\n"
    assert compiler_error(errors, METHOD, 10) == "line 2 of the method, `int y = x * 2`: ';' expected"
    symbol = "Twice.java:3: error: cannot find symbol\n  symbol:   method helper(int)\n  location: class Twice\n"
    assert compiler_error(symbol, METHOD, 10) == (
        "outside the method: cannot find symbol; symbol:   method helper(int); location: class Twice"
    )
    text = feedback(record(Verdict.UNCOMPILABLE, compile_errors=errors), METHOD, 10)
    assert text == "This version does not compile: line 2 of the method, `int y = x * 2`: ';' expected"


def test_each_compiler_error_keeps_its_own_detail_lines():
    errors = "Twice.java:11: error: ';' expected\nTwice.java:12: error: cannot find symbol\n  symbol:   variable z\n"
    found = compiler_errors(errors)
    assert [(e.file_line, e.text) for e in found] == [
        (11, "';' expected"),
        (12, "cannot find symbol; symbol:   variable z"),
    ]
    assert [e.method_line(10, METHOD) for e in found] == [2, 3]
    assert compiler_errors("error: invalid flag: -foo\n")[0].method_line(10, METHOD) is None


@pytest.mark.parametrize(
    "verdict, expected",
    [
        (Verdict.PLAUSIBLE, "This version compiles and passes all the tests."),
        (
            Verdict.TIMEOUT,
            "This version does not terminate: the test p.T::t did not finish in time (an endless loop?).",
        ),
        (Verdict.ERROR, None),
    ],
)
def test_other_verdicts(verdict, expected):
    assert (
        feedback(record(verdict, failing_tests=["p.T::t"] if verdict is Verdict.TIMEOUT else []), METHOD, 1) == expected
    )


def test_feedback_is_bounded_field_by_field_and_as_a_whole():
    huge = "x" * 10_000
    text = feedback(
        record(
            Verdict.WRONG,
            failing_tests=["p.T::t"],
            failure_message=f"expected:<{huge}> but was:<{huge}>",
            failure_line=1,
            failure_source=huge,
        ),
        METHOD,
        1,
    )
    assert len(text) <= FEEDBACK_CHARS and text.endswith(CUT)
    assert all(len(line) <= FIELD_CHARS + len("The test failed at line 1: ") for line in text.splitlines())


def test_expected_and_actual_of_junit_4_and_5():
    assert expected_actual("java.lang.AssertionError: expected:<2> but was:<-1>") == ("2", "-1")
    assert expected_actual("org.opentest4j.AssertionFailedError: expected: <2> but was: <-1>") == ("2", "-1")
    assert expected_actual("java.lang.NullPointerException") is None


def test_the_failing_tests_own_frame_is_found_in_its_trace():
    trace = (
        "java.lang.AssertionError\n\tat org.junit.Assert.fail(Assert.java:87)\n"
        "\tat org.rangekit.RangeSetTest$1.run(RangeSetTest.java:60)\n"
        "\tat org.rangekit.RangeSetTest.testContainsUpperBound(RangeSetTest.java:53)\n"
    )
    assert failure_frame_line("org.rangekit.RangeSetTest::testContainsUpperBound", trace) == 60  # nested class first
    assert failure_frame_line("org.rangekit.RangeSet::x", trace) is None  # a prefix of the name is another class
    assert failure_frame_line("org.rangekit.OtherTest::t", trace) is None


@pytest.fixture(scope="module")
def bug():
    return open_dataset("example").bugs["Textkit-1"]


def attempt(k: int, plausible: bool = False) -> Attempt:
    return Attempt(
        f"h{k}",
        f"int f{k}() {{\n    return {k};\n}}",
        "passes" if plausible else f"fails test{k} " + "w " * 40,
        plausible,
    )


def test_chat_rounds_are_a_conversation_and_the_oldest_failures_go_first(bug):
    base = build_prompt(bug, Strategy.ZERO_SHOT, ModelStyle.CHAT)
    history = [attempt(1, plausible=True), attempt(2), attempt(3), attempt(4)]
    whole = build_round(base, history, ConversationPhase.ALTERNATIVES, model="", context_window=100_000, max_tokens=750)
    assert whole.omitted == 0 and whole.note == "" and whole.shown == ["h1", "h2", "h3", "h4"]
    assert [m["role"] for m in whole.messages] == ["system", "user"] + ["assistant", "user"] * 4
    assert "alternative fix" in whole.messages[-1]["content"] and "alternative" not in whole.messages[-3]["content"]
    assert whole.prompt_tokens == tokens.count_messages(whole.messages)
    # room for round 1, the plausible attempt and one failed one: the most recent failed one is kept
    window = tokens.count_messages(render(base, [history[0], history[3]], ConversationPhase.ALTERNATIVES)) + 750
    fitted = build_round(base, history, ConversationPhase.ALTERNATIVES, model="", context_window=window, max_tokens=750)
    assert fitted.shown == ["h1", "h4"] and fitted.omitted == 2
    assert fitted.note.startswith("left out 2 of 4 earlier candidate(s)")
    assert fitted.prompt_tokens <= window - 750
    failed = history[1:]
    window = tokens.count_messages(render(base, failed[1:], ConversationPhase.REPAIR)) + 750
    repair = build_round(base, failed, ConversationPhase.REPAIR, model="", context_window=window, max_tokens=750)
    assert repair.shown == ["h3", "h4"] and repair.omitted == 1
    # what does not fit stops the filling: a short old attempt does not jump an unfitting newer one
    short_old = [Attempt("h0", "int g() { return 0; }", "fails", False), *failed]
    window = tokens.count_messages(render(base, [failed[-1]], ConversationPhase.REPAIR)) + 760
    assert build_round(
        base, short_old, ConversationPhase.REPAIR, model="", context_window=window, max_tokens=750
    ).shown == ["h4"]


def test_completion_and_edit_rounds_carry_the_history_in_their_one_prompt(bug):
    completion = build_prompt(bug, Strategy.ZERO_SHOT, ModelStyle.COMPLETION)
    messages = render(completion, [attempt(1)], ConversationPhase.REPAIR)
    assert len(messages) == 1 and messages[0]["content"].endswith(completion.turns[0][0]["content"])
    assert (
        messages[0]["content"].startswith("// Earlier versions of the fixed method")
        and "// fails test1" in messages[0]["content"]
    )
    edit = build_prompt(bug, Strategy.ZERO_SHOT, ModelStyle.EDIT)
    messages = render(edit, [attempt(1)], ConversationPhase.REPAIR)
    assert messages[1] == edit.turns[0][1] and "Version 1:" in messages[0]["content"]


def test_fixed_within_k_and_at_a_budget():
    sequences = [
        metrics.SampleSequence((False, False, True, True), (10, 10, 20, 20)),
        metrics.SampleSequence((False,) * 4, (5,) * 4),
        metrics.SampleSequence((True,), (7,)),
    ]  # stopped early
    positions = [metrics.first_plausible_position(s.plausible) for s in sequences]
    assert positions == [3, None, 1]
    assert [metrics.fixed_within_k(positions, k) for k in (1, 2, 3)] == [pytest.approx(1 / 3)] * 2 + [
        pytest.approx(2 / 3)
    ]
    two = metrics.at_budget(sequences, 2)
    assert (two.fixed, two.samples, two.tokens, two.samples_per_fix, two.tokens_per_fix) == (1, 5, 37, 5.0, 37.0)
    four = metrics.at_budget(sequences, 4)
    assert (four.fixed, four.samples, four.tokens) == (2, 9, 87)
    assert metrics.at_budget(sequences[1:2], 4).samples_per_fix is None
    with pytest.raises(ValueError):
        metrics.at_budget(sequences, 0)


def test_the_source_line_comes_from_the_workspaces_test_file(tmp_path):
    test_dir = tmp_path / "src" / "test" / "java"
    (test_dir / "p").mkdir(parents=True)
    (test_dir / "p" / "T.java").write_text(
        "class T {\n    void t() {\n        assertEquals(2, f(1));   \n", encoding="utf-8"
    )
    ws = Workspace(
        bug=None,
        root=tmp_path,
        src_dir=tmp_path,
        test_dir=test_dir,
        classes_dir=tmp_path,
        test_classes_dir=tmp_path,
        classpath=(),
        trigger_tests=(),
        relevant_tests=(),
    )
    assert source_line(ws, "p.T::t", 3) == "assertEquals(2, f(1));"
    assert source_line(ws, "p.T$Inner::t", 2) == "void t() {"  # a nested class is in its outer class's file
    assert source_line(ws, "p.T::t", 9) == "" and source_line(ws, "p.Missing::t", 1) == ""
