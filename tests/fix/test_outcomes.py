"""What `nl2fix fix` says and how it exits in each outcome a user meets: no candidate, no plausible
candidate, ranks among plausible ones only (and `show` in the same order), a working apply hint,
a missing issue file, a missing test class or method, a folder without Java, an unreachable model
server, `--project .`, and mutants that keep the method's comments."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest

from nl2fix.core.domain import Bug, ModelStyle
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.patches import patched, unified_diff
from nl2fix.fix.user_bug import check_test_method, parse_test_spec, read_issue
from nl2fix.sampling.backends.base import Request
from nl2fix.sampling.backends.mutation_backend import MutationBackend
from tests.helpers.paths import FIXTURES

PLAIN = FIXTURES / "fix_plain"
FAILING = "org.words.WordsTest::initialsSkipDoubleSpaces"
INITIALS_FIX = """public static String initials(String sentence) {
    StringBuilder out = new StringBuilder();
    for (String word : sentence.trim().split("\\\\s+")) {
        out.append(Character.toUpperCase(word.charAt(0)));
    }
    return out.toString();
}"""
INITIALS_WRONG = """public static String initials(String sentence) {
    return sentence.substring(0, 1).toUpperCase();
}"""
COUNT_ANSWER = """public static int count(String sentence) {
    return sentence.split(" ").length;
}"""


@pytest.fixture
def words(tmp_path, monkeypatch):
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "words"
    shutil.copytree(PLAIN, project)
    return project


def _common(project, *more):
    return ["fix", "--project", project, "--build", "plain", "--src", "src", "--test-src", "test", "--quiet", *more]


def _answers(*methods):
    answers = iter(methods * 10)

    def model(messages, n):
        return [f"```java\n{next(answers)}\n```" for _ in range(n)]

    return model


def test_a_missing_issue_file_is_an_error_not_the_issue_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("issue-7.md", "docs/bug.txt"):
        with pytest.raises(Nl2FixError, match=f"the issue file {name} does not exist"):
            read_issue(name)
    assert read_issue("NullPointerException") == ("NullPointerException", "")
    assert read_issue("equals() fails on 1.5") == ("equals() fails on 1.5", "")


def test_a_missing_test_class_or_method_says_what_was_looked_for_and_where():
    classes = ["org.jsoup.nodes.ElementTest", "org.jsoup.nodes.AttributesTest"]
    with pytest.raises(Nl2FixError, match=r"no test class NoSuchTest in /p/src/test/java \(2 test classes there\)"):
        parse_test_spec("NoSuchTest::foo", classes, "/p/src/test/java")
    with pytest.raises(Nl2FixError) as close:
        parse_test_spec("ElementsTest::foo", classes, "/p/src/test/java")
    assert close.value.hint == "did you mean org.jsoup.nodes.ElementTest?"
    sources = {
        "t/org/a/BaseTest.java": "package org.a;\npublic abstract class BaseTest { @Test public void shared() {} }",
        "t/org/a/ElementTest.java": "package org.a;\npublic class ElementTest extends BaseTest {\n"
        "  @Test public void parentIs() {}\n}",
        "t/org/a/LibTest.java": "package org.a;\npublic class LibTest extends junit.framework.TestCase {}",
    }
    check_test_method("org.a.ElementTest::parentIs", sources)
    check_test_method("org.a.ElementTest::shared", sources)  # inherited from a test source
    check_test_method("org.a.LibTest::testAnything", sources)  # a library superclass may declare it
    with pytest.raises(
        Nl2FixError,
        match=r"org.a.ElementTest has no method parentis \(looked in "
        r"t/org/a/ElementTest.java and its superclasses org.a.BaseTest\)",
    ) as info:
        check_test_method("org.a.ElementTest::parentis", sources)
    assert info.value.hint == "did you mean parentIs?"


def test_cli_errors_name_the_users_folders(words, tmp_path, invoke_cli):
    no_method = invoke_cli(*_common(words, "--issue", "crash", "--test", "WordsTest::noSuchMethod"))
    assert no_method.exit_code == 2
    assert (
        "error: org.words.WordsTest has no method noSuchMethod (looked in test/org/words/WordsTest.java)"
        in no_method.stderr
        and "passes" not in no_method.stderr
    )
    no_class = invoke_cli(*_common(words, "--issue", "crash", "--test", "NoSuchTest::foo"))
    assert no_class.exit_code == 2 and f"error: no test class NoSuchTest in {words}/test" in no_class.stderr
    empty = tmp_path / "notes"
    empty.mkdir()
    (empty / "README.md").write_text("not Java")
    not_java = invoke_cli(*_common(empty, "--issue", "crash", "--test", "WordsTest::x"))
    assert not_java.exit_code == 2
    assert f"error: {empty} holds no Java source file" in not_java.stderr and "cache" not in not_java.stderr
    missing_issue = invoke_cli(*_common(words, "--issue", "issue-9.md", "--test", FAILING))
    assert missing_issue.exit_code == 2 and "error: the issue file issue-9.md does not exist" in missing_issue.stderr


def test_an_unreachable_model_server_fails_at_once(words, tmp_path, invoke_cli, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    result = invoke_cli(
        *_common(
            words,
            "--issue",
            "crash",
            "--test",
            FAILING,
            "--run",
            tmp_path / "run",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--model",
            "m",
        ),
        env={"OPENAI_API_KEY": "x"},
    )
    assert result.exit_code == 2
    assert f"error: cannot reach the model server at http://127.0.0.1:{port}/v1" in result.stderr
    assert time.monotonic() - started < 30  # the build and the failing test; no back-off


@pytest.mark.slow
def test_a_method_no_answer_holds_is_an_error_with_the_reason(words, tmp_path, invoke_cli, openai_server_factory):
    server = openai_server_factory(model=_answers(COUNT_ANSWER))
    method = "src/org/words/Words.java:Words#initials"
    result = invoke_cli(
        *_common(
            words,
            "--issue",
            "initials crash",
            "--method",
            method,
            "-n",
            "2",
            "--run",
            tmp_path / "run",
            "--base-url",
            server.url,
            "--model",
            "m",
        ),
        env={"OPENAI_API_KEY": "x"},
    )
    assert result.exit_code == 2
    assert "error: no candidate fix: none of the 2 answers held a usable method:" in result.stderr
    assert "(2x)" in result.stderr


@pytest.mark.slow
def test_no_plausible_candidate_exits_1_with_the_reason(words, tmp_path, invoke_cli):
    result = invoke_cli(
        *_common(
            words,
            "--issue",
            "initials crash",
            "--test",
            FAILING,
            "--backend",
            "mutation",
            "-n",
            "2",
            "--run",
            tmp_path / "run",
        )
    )
    assert result.exit_code == 1, result.output
    assert "0 plausible of 2 unique candidate(s)" in result.stdout
    assert "not plausible (for reference, not to apply):" in result.stdout
    assert "no plausible fix: each of the 2 candidate(s) fails" in result.stderr


@pytest.mark.slow
def test_ranks_are_among_plausible_candidates_and_show_keeps_the_order(
    words, tmp_path, invoke_cli, openai_server_factory, monkeypatch
):
    server = openai_server_factory(model=_answers(INITIALS_WRONG, INITIALS_WRONG, INITIALS_FIX))
    run, patch = tmp_path / "run", tmp_path / "out" / "fix.diff"
    patch.parent.mkdir()
    monkeypatch.chdir(words)  # `--project .`
    result = invoke_cli(
        *_common(
            ".",
            "--issue",
            "initials crash",
            "--test",
            FAILING,
            "-n",
            "3",
            "--run",
            run,
            "--base-url",
            server.url,
            "--model",
            "m",
            "--out",
            patch,
            "--id",
            "Words-1",
        ),
        env={"OPENAI_API_KEY": "x"},
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"building {words} with plain" in out and "building . " not in out
    assert f"asking m at {server.url} for 3 samples" in out
    first, rest = out.split("\n#1  ", 1)[1].split("\n#2  ", 1)
    assert first.startswith("plausible  (1 of 1 plausible; 1 sample;")
    assert "not plausible (for reference, not to apply):" in first  # the separator before #2
    assert rest.startswith("wrong  (2 samples;") and "rank" not in rest.split("\n")[0]
    hint = f"apply it with: git -C {words} apply {patch}"
    assert hint in out
    subprocess.run(["git", "init", "-q"], cwd=words, check=True)
    subprocess.run(hint.split("apply it with: ", 1)[1].split(), cwd=tmp_path, check=True)  # from anywhere
    assert 'split("\\\\s+")' in (words / "src/org/words/Words.java").read_text()

    shown = invoke_cli("show", "--run", run, "--bug", "Words-1")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[1].startswith("as `nl2fix fix` orders them: 1 plausible of 2")
    assert [line.split("  (")[0] for line in lines if line.startswith("#")] == ["#1  plausible", "#2  wrong"]


def test_mutants_keep_the_methods_comments():
    method = (
        "    public int f(int a) {\n        // keep: why a is checked\n        if (a < 0) {\n"
        "            return 0; /* clamp */\n        }\n        return a;\n    }"
    )
    bug = Bug(
        project="P",
        number=1,
        path="P.java",
        start_line=2,
        end_line=8,
        buggy_method=method,
        fixed_method="",
        title="t",
        description="",
    )
    source = "class P {\n" + method + "\n}\n"
    request = Request(
        bug=bug, messages=[], style=ModelStyle.CHAT, n=3, max_tokens=100, temperature=0.0, indices=(0, 1, 2)
    )
    ((_, choices),) = MutationBackend().generate([request])
    assert isinstance(choices, list) and len(choices) == 3
    for choice in choices:
        code = choice.text.split("```java\n", 1)[1].rsplit("\n```", 1)[0]
        diff = unified_diff("P.java", source, patched(source, bug, code))
        removed = [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
        assert len(removed) == 1 and "//" not in removed[0] and "/*" not in diff.split("@@")[-1].split("\n-")[0]
