"""Localisation on stack traces recorded from real JUnit runs of tests/fixtures/stack_traces
(``junitcore-prices.txt``: Cart.prices' lambda parses ":250"; ``junitcore-discount.txt``: the same
tests with prices fixed, where Discount.apply throws and Cart.average rounds down)."""

import pytest

from nl2fix.fix.localise import Frame, SourceIndex, ambiguous, junit_failures, parse_trace, rank_suspects
from tests.helpers.paths import FIXTURES

FIXTURE = FIXTURES / "stack_traces"


def _sources(folder: str) -> dict[str, str]:
    return {str(p.relative_to(FIXTURE)): p.read_text() for p in (FIXTURE / folder).rglob("*.java")}


@pytest.fixture(scope="module")
def index() -> SourceIndex:
    return SourceIndex(_sources("src/main/java"), _sources("src/test/java"))


def _failures(name: str) -> dict[str, str]:
    return junit_failures((FIXTURE / name).read_text())


def test_junitcore_output_is_split_by_test():
    failures = _failures("junitcore-prices.txt")
    assert sorted(failures) == [
        f"org.shop.CartTest::{m}"
        for m in ("averageOfTwo", "discountThroughHelper", "loadsPrices", "totalOfLambdaParsing")
    ]
    assert failures["org.shop.CartTest::loadsPrices"].startswith("java.lang.IllegalStateException: cannot load cart")
    assert "FAILURES" not in failures["org.shop.CartTest::averageOfTwo"]


def test_nested_causes_are_parsed_in_order():
    chain = parse_trace(_failures("junitcore-prices.txt")["org.shop.CartTest::loadsPrices"])
    assert [(t.header.split(":")[0], t.depth) for t in chain] == [
        ("java.lang.IllegalStateException", 0),
        ("java.lang.NumberFormatException", 1),
    ]
    assert chain[0].frames[0] == Frame("org.shop.Cart", "load", "Cart.java", 40)
    assert Frame("org.shop.Cart", "lambda$prices$0", "Cart.java", 18) in chain[1].frames


def test_root_cause_inside_a_lambda_wins_over_the_wrapping_method(index):
    trace = _failures("junitcore-prices.txt")["org.shop.CartTest::loadsPrices"]
    suspects = rank_suspects(trace, index, test="org.shop.CartTest::loadsPrices")
    # load throws the wrapper and runs the deeper frames: second, ahead of total
    assert [s.method.name for s in suspects] == ["prices", "load", "total"]
    assert len(suspects[1].reasons) == 2
    assert suspects[0].method.path == "src/main/java/org/shop/Cart.java"
    assert (suspects[0].method.start_line, suspects[0].method.end_line) == (16, 20)
    assert "root cause" in suspects[0].reasons[0] and "Cart.java:18" in suspects[0].reasons[0]


def test_inner_and_anonymous_classes_and_test_helpers(index):
    trace = _failures("junitcore-discount.txt")["org.shop.CartTest::discountThroughHelper"]
    suspects = rank_suspects(trace, index, test="org.shop.CartTest::discountThroughHelper")
    names = [s.method.name for s in suspects]
    # Cart$Discount.apply is the named inner class's method; Cart$Discount$1.run sits in applyAll's
    # body; CartFixtures (a test helper) and the test are never suspects
    assert names == ["apply", "applyAll"]
    assert suspects[0].method.start_line == 56


def test_an_assertion_failure_points_at_the_methods_the_test_calls(index):
    trace = _failures("junitcore-discount.txt")["org.shop.CartTest::averageOfTwo"]
    suspects = rank_suspects(trace, index, test="org.shop.CartTest::averageOfTwo")
    assert [s.method.name for s in suspects] == ["average"]
    assert "calls average" in suspects[0].reasons[0]


def test_the_issue_text_breaks_ties(index):
    # an assertion failure in loadsPrices: it calls Cart.load and Cart.total, equally suspect
    trace = (
        "java.lang.AssertionError: expected:<550> but was:<0>\n"
        "\tat org.junit.Assert.assertEquals(Assert.java:633)\n"
        "\tat org.shop.CartTest.loadsPrices(CartTest.java:11)\n"
    )
    test = "org.shop.CartTest::loadsPrices"
    assert [s.method.name for s in rank_suspects(trace, index, test=test)] == ["total", "load"]
    named = rank_suspects(trace, index, test=test, issue="Cart.load() returns an empty cart for two lines")
    assert [s.method.name for s in named] == ["load", "total"]
    assert named[0].mentions == 2 and named[0].reasons[0] == "the issue names Cart#load 1 time(s)"
    assert "the issue names it or its class 2 time(s)" in named[0].reasons
    assert not ambiguous(named) and ambiguous(rank_suspects(trace, index, test=test))


def test_the_method_the_issue_names_outweighs_the_helper_it_calls():
    # LANG-1162's shape: the exception is thrown in a helper; the issue names the method it came through
    index = SourceIndex(
        {
            "src/org/lang/StringUtils.java": "package org.lang;\npublic class StringUtils {\n"
            "  public static boolean equals(CharSequence a, CharSequence b) {\n"
            "    return Helper.regionMatches(a, b);\n  }\n}\n",
            "src/org/lang/Helper.java": "package org.lang;\nclass Helper {\n"
            "  static boolean regionMatches(CharSequence a, CharSequence b) {\n"
            "    return a.charAt(9) == b.charAt(9);\n  }\n}\n",
        }
    )
    trace = (
        "java.lang.StringIndexOutOfBoundsException: index 9\n"
        "\tat org.lang.Helper.regionMatches(Helper.java:4)\n"
        "\tat org.lang.StringUtils.equals(StringUtils.java:4)\n"
        "\tat org.lang.StringUtilsTest.testEquals(StringUtilsTest.java:20)\n"
    )
    plain = rank_suspects(trace, index)
    assert [s.method.name for s in plain] == ["regionMatches", "equals"] and not ambiguous(plain)
    issue = (
        "StringUtils#equals fails with Index OOBE on non-Strings with identical leading prefix\n"
        'StringUtils.equals(new StringBuilder("abc"), "abcd") throws; `StringUtils.equals` should not.'
    )
    named = rank_suspects(trace, index, issue=issue)
    assert [s.method.name for s in named] == ["equals", "regionMatches"]
    assert named[0].reasons[0] == "the issue names StringUtils#equals 3 time(s)"
    assert "2nd project frame of the failure" in named[0].reasons[1]


def test_frames_outside_the_main_sources_give_no_suspect(index):
    trace = "java.lang.NullPointerException\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:209)\n"
    assert rank_suspects(trace, index, test="org.shop.CartTest::nothing") == []
