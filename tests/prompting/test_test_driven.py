"""The leaderboard's setting: ``test-driven`` (buggy method + failing tests' source and messages, as
RepairBench and ChatRepair prompt) and ``issue-and-test`` (the issue as well), on the bundled
example's real trigger tests; the fitting rule cuts tests before the description and never the
method; missing test data is an error naming what is missing."""

from __future__ import annotations

import dataclasses
import json

import pytest

from nl2fix.core.domain import ModelStyle, Strategy
from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import open_dataset, parse_trigger_failures
from nl2fix.prompting.prompt import MESSAGE_CHARS, MESSAGE_LINES, Prompt, build_prompt, failure_message, target_method


@pytest.fixture(scope="module")
def ds():
    return open_dataset("example")


def everything(prompt: Prompt) -> str:
    return "\n".join(m["content"] for m in prompt.turns[0])


def test_the_example_carries_each_trigger_tests_source_and_failure(ds):
    for bug in ds.bugs.values():
        sources = dict(bug.trigger_test_sources)
        assert [name for name, _ in bug.trigger_failures] == list(bug.trigger_tests), bug.id
        assert set(sources) == set(bug.trigger_tests), bug.id
        for name, source in sources.items():
            method = name.split("::")[1]
            assert f"public void {method}()" in source and source.rstrip().endswith("}"), name
            # as written: the declaration keeps its indentation relative to its body (dedented once)
            assert source.splitlines()[-1] == "}", name
    bug = ds.bugs["Textkit-3"]
    assert dict(bug.trigger_test_sources)["org.textkit.CsvLineTest::testRoundTrip"].startswith("@Test\npublic void")


@pytest.mark.parametrize("style", list(ModelStyle))
def test_test_driven_shows_method_tests_and_messages_and_no_issue(ds, style):
    bug = ds.bugs["Textkit-1"]
    prompt = build_prompt(bug, Strategy.TEST_DRIVEN, style)
    text = everything(prompt)
    assert target_method(bug) in text and not prompt.truncated
    for name, source in bug.trigger_test_sources:
        assert source in text and name in text
    assert "junit.framework.ComparisonFailure: expected:<ab[]> but was:<ab[c]>" in text
    assert "expected:<2> but was:<-1>" in text
    assert "\tat " not in text  # the stack trace is left out
    assert bug.title not in text and bug.description[:40] not in text and "issue" not in text.lower()
    if style is ModelStyle.COMPLETION:
        assert text.endswith(prompt.header + "\n")


@pytest.mark.parametrize("style", list(ModelStyle))
def test_issue_and_test_shows_both(ds, style):
    bug = ds.bugs["Rangekit-2"]
    text = everything(build_prompt(bug, Strategy.ISSUE_AND_TEST, style))
    assert bug.title in text and bug.description.splitlines()[0] in text
    assert dict(bug.trigger_test_sources)["org.rangekit.RangeSetTest::testContainsUpperBound"] in text
    assert failure_message(bug.trigger_failures[0][1]) in text


def test_chat_reads_as_repairbench_does(ds):
    text = build_prompt(ds.bugs["Rangekit-3"], Strategy.TEST_DRIVEN).text()
    name = "org.rangekit.StatsTest::testMaxOfNegativeValues"
    assert "The code fails the following tests." in text
    assert f"Test `{name}`:\n```java\n" in text and f"Test `{name}` error:\n```\n" in text
    assert text.index("Buggy method:") < text.index("The code fails") < text.index("Fix the bug")


def test_failure_message_is_the_text_before_the_stack_trace_capped():
    trace = "java.lang.AssertionError: boom\nsecond line\n\tat a.B.c(B.java:1)\n\tat d.E.f(E.java:2)"
    assert failure_message(trace) == "java.lang.AssertionError: boom\nsecond line"
    long = "\n".join(f"line {i}" for i in range(40)) + "\n\tat a.B.c(B.java:1)"
    assert failure_message(long).splitlines() == [f"line {i}" for i in range(MESSAGE_LINES)] + ["[...]"]
    assert failure_message("\tat only.Frames(F.java:3)") == "\tat only.Frames(F.java:3)"
    wide = "junit.framework.ComparisonFailure: expected:<" + "x" * 5000 + "> but was:<y>"
    assert failure_message(wide) == wide[:MESSAGE_CHARS] + "\n[...]"


def test_trigger_files_are_read_test_by_test():
    text = "--- a.BTest::one\njava.lang.AssertionError\n\tat x\n--- a.BTest::two\nboom: 1\n"
    assert parse_trigger_failures(text) == (
        ("a.BTest::one", "java.lang.AssertionError\n\tat x"),
        ("a.BTest::two", "boom: 1"),
    )


def test_tight_windows_cut_the_tests_last_first_before_the_description(ds):
    bug = ds.bugs["Textkit-3"]  # three trigger tests
    names = [n for n, _ in bug.trigger_failures]
    first_source = dict(bug.trigger_test_sources)[names[0]]
    order = [
        "",
        "1 of 3 failing tests left out",
        "2 of 3 failing tests left out",
        f"2 of 3 failing tests and the source of {names[0]} left out",
    ]
    seen = []
    for window in range(1400, 300, -10):  # shrinking windows
        try:
            prompt = build_prompt(bug, Strategy.ISSUE_AND_TEST, max_tokens=300, context_window=window)
        except Nl2FixError as exc:
            assert "first failing test's message, issue title and buggy method alone need" in exc.message
            break
        text = everything(prompt)
        assert prompt.prompt_tokens + 300 <= window and target_method(bug) in text and bug.title in text
        assert f"Test `{names[0]}` error:" in text
        tests_note, _, description_note = prompt.note.partition("; ")
        if tests_note.startswith("issue description"):
            tests_note, description_note = "", tests_note
        assert (first_source in text) == (tests_note in order[:3])
        assert (bug.description in text) == (not description_note), window
        if description_note:  # the description is cut only once the tests are down to their minimum
            assert tests_note == order[-1] and description_note.startswith("issue description cut to its first")
        if not seen or seen[-1] != tests_note:
            seen.append(tests_note)
    else:
        pytest.fail("no window too small")
    assert seen == order


def test_missing_test_data_is_an_error_naming_what_is_missing(ds):
    bug = ds.bugs["Textkit-2"]
    with pytest.raises(Nl2FixError, match="holds no source of its trigger tests .*trigger_tests_src") as info:
        build_prompt(dataclasses.replace(bug, trigger_test_sources=()), Strategy.TEST_DRIVEN)
    assert "nl2fix dataset add-tests" in info.value.hint
    with pytest.raises(Nl2FixError, match="no failure messages of its trigger tests .*Textkit/trigger_tests/2"):
        build_prompt(dataclasses.replace(bug, trigger_failures=()), Strategy.ISSUE_AND_TEST)
    # an issue-driven strategy does not need them
    assert build_prompt(dataclasses.replace(bug, trigger_failures=(), trigger_test_sources=()), Strategy.ZERO_SHOT)


def test_a_test_without_source_is_shown_by_its_failure_alone(ds):
    bug = ds.bugs["Textkit-1"]
    first, second = (n for n, _ in bug.trigger_failures)
    partial = dataclasses.replace(bug, trigger_test_sources=((second, dict(bug.trigger_test_sources)[second]),))
    text = build_prompt(partial, Strategy.TEST_DRIVEN).text()
    assert f"Test `{first}`:" not in text and f"Test `{first}` error:" in text and f"Test `{second}`:" in text


def test_nl2fix_prompt_shows_it_and_says_what_is_missing(invoke_cli, tmp_path):
    shown = invoke_cli("prompt", "--dataset", "example", "--bug", "Rangekit-1", "--strategy", "test-driven")
    assert shown.exit_code == 0 and "The code fails the following tests." in shown.stdout
    assert "testPercentileInterpolates" in shown.stdout
    # the published NL2Fix records have no trigger_tests_src
    ds_file = tmp_path / "nl2fix_dataset.json"
    from nl2fix.core.files import EXAMPLE_BENCHMARK

    raw = json.loads((EXAMPLE_BENCHMARK / "nl2fix_dataset.json").read_text(encoding="utf-8"))
    for entry in raw.values():
        entry.pop("trigger_tests_src")
    ds_file.write_text(json.dumps(raw), encoding="utf-8")
    missing = invoke_cli(
        "prompt",
        "--dataset",
        ds_file,
        "--defects4j-meta",
        EXAMPLE_BENCHMARK / "defects4j",
        "--bug",
        "Rangekit-1",
        "--strategy",
        "issue-and-test",
    )
    assert missing.exit_code != 0 and "Rangekit-1: the dataset holds no source of its trigger tests" in missing.output
