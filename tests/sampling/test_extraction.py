"""Extraction over a corpus of realistic answer shapes (tests/fixtures/responses/), broken ones included.

Each ``NAME.txt`` is an answer; ``NAME.expected.java`` is the method that must come out of it, or
``NAME.error`` names the failure it must report. The buggy method is ``_target.java`` unless
``NAME.target.java`` exists.
"""

from __future__ import annotations

import pytest

from nl2fix.java_source.methods import find_methods, header
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling.extraction import Failure, extract_method
from tests.helpers.paths import FIXTURES

CORPUS = FIXTURES / "responses"
CASES = sorted(p.stem for p in CORPUS.glob("*.txt") if not p.name.startswith("_"))


def _read(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8")


def test_corpus_is_complete():
    assert len(CASES) >= 20
    for case in CASES:
        has_expectation = (CORPUS / f"{case}.expected.java").is_file() + (CORPUS / f"{case}.error").is_file()
        assert has_expectation == 1, f"{case} needs exactly one of .expected.java / .error"


@pytest.mark.parametrize("case", CASES)
def test_corpus(case):
    target = CORPUS / f"{case}.target.java"
    result = extract_method(_read(f"{case}.txt"), (target if target.is_file() else CORPUS / "_target.java").read_text())
    if (CORPUS / f"{case}.error").is_file():
        assert result.code is None
        assert result.failure is Failure(_read(f"{case}.error").strip())
        assert (
            result.error.startswith(result.failure.value + ": ") and len(result.error) > len(result.failure.value) + 2
        )
    else:
        assert result.failure is None, result.error
        assert result.code == _read(f"{case}.expected.java").rstrip("\n")


def test_same_fix_in_different_shapes_hashes_alike():
    target = _read("_target.java")
    shapes = ["fenced_java", "code_tags", "bare_code", "whole_class", "indented_in_class", "reasoning_final_turn"]
    hashes = {candidate_hash(extract_method(_read(f"{s}.txt"), target).code) for s in shapes}
    assert hashes == {candidate_hash(_read("_fixed.java"))}


def test_completion_answers_continue_the_header():
    target = _read("_target.java")
    prefix = header(target) + "\n"
    body = _read("_fixed.java").split("{", 1)[1]
    result = extract_method(body + "\n\n    public int lastIndexOf(String text) {\n", target, prefix=prefix)
    assert result.code == prefix + body.rstrip("\n")
    # a completion model that repeats the header is also understood
    repeated = extract_method(_read("_fixed.java"), target, prefix=prefix)
    assert candidate_hash(repeated.code) == candidate_hash(_read("_fixed.java"))


def test_declarations_are_not_confused_with_calls_or_statements():
    text = """
    void run() { helper(1, 2); new Thread() { public void run() { go(); } }.start(); if (x) { y(); } }
    @SuppressWarnings("unchecked") <T> java.util.List<T> make(int n) throws java.io.IOException { return null; }
    Finder(int a) { this(a, 0); }
    """
    found = find_methods(text)
    assert [(m.name, m.arity, m.complete) for m in found] == [("run", 0, True), ("make", 1, True), ("Finder", 1, True)]
    assert text[found[1].start :].startswith('@SuppressWarnings("unchecked") <T>')


def test_diff_hunks_with_ambiguous_context_go_where_their_line_numbers_say():
    import difflib

    buggy = (
        "void f(int[] a) {\n    for (int x : a) {\n        if (x > 0) {\n            g(x);\n"
        "        }\n    }\n\n    done();\n}"
    )
    fixed = (
        "void f(int[] a) {\n    check(a);\n    for (int x : a) {\n        if (x > 0) {\n"
        "            g(x);\n        }\n        h(x);\n    }\n\n    done();\n}"
    )
    for context in (1, 3):
        diff = "\n".join(
            difflib.unified_diff(buggy.split("\n"), fixed.split("\n"), "a/F.java", "b/F.java", lineterm="", n=context)
        )
        result = extract_method(f"```diff\n{diff}\n```\n", buggy)
        assert result.code == fixed, (context, result.code)
