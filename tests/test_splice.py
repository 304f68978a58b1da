"""Splicing a candidate over the buggy method: pure text, checked line by line."""

from __future__ import annotations

import pytest

from defects4j_adapter.splice import (
    SpliceError,
    UnbalancedCandidate,
    brace_balance,
    encode_source,
    locate,
    method_header,
    splice,
)

SOURCE = """package p;

public class A {
    int f;

    /** Doc. */
    public int twice(int x) {
        // double it
        return x + x;
    }

    public int thrice(int x) {
        return 3 * x;
    }
}
"""
TWICE = "public int twice(int x) {\n        // double it\n        return x + x;\n    }"
CANDIDATE = "public int twice(int x) {\n        return 2 * x;\n    }"


def test_the_dataset_range_is_used_when_it_holds_the_method():
    loc = locate(SOURCE, TWICE, 7, 10)
    assert (loc.start_line, loc.end_line, loc.corrected) == (7, 10, False)


def test_whitespace_does_not_matter_at_the_range():
    squashed = "public int twice(int x){\n// double it\nreturn x+x;}"
    assert not locate(SOURCE, squashed.replace("x+x", "x + x"), 7, 10).corrected


@pytest.mark.parametrize("start,end", [(5, 8), (9, 12), (1, 4), (40, 44)])
def test_a_drifted_range_is_corrected_by_finding_the_text(start, end):
    loc = locate(SOURCE, TWICE, start, end)
    assert (loc.start_line, loc.end_line) == (7, 10)
    assert loc.corrected and f"{start}-{end}" in loc.note and "7-10" in loc.note


def test_a_method_whose_comments_differ_is_found_without_comments():
    other_comment = TWICE.replace("// double it", "// twice as much")
    loc = locate(SOURCE, other_comment, 3, 6)
    assert (loc.start_line, loc.end_line) == (7, 10)
    assert "without comments" in loc.note


def test_a_method_that_is_not_in_the_file_is_a_splice_error():
    with pytest.raises(SpliceError):
        locate(SOURCE, "public int half(int x) {\n return x / 2;\n}", 7, 10)


def test_of_two_identical_methods_the_closest_to_the_range_is_taken():
    doubled = SOURCE.replace("}\n}\n", "}\n\n    class B {\n    " + TWICE + "\n    }\n}\n")
    assert locate(doubled, TWICE, 7, 10).start_line == 7
    far = locate(doubled, TWICE, 20, 23)
    assert far.start_line > 15 and far.corrected


def test_splice_replaces_only_the_method_and_keeps_the_rest_intact():
    result = splice(SOURCE, TWICE, 7, 10, CANDIDATE)
    old, new = SOURCE.split("\n"), result.text.split("\n")
    assert new[:6] == old[:6] and new[6:9] == ["    public int twice(int x) {", "        return 2 * x;", "    }"]
    assert new[9:] == old[10:]
    assert result.detail == ""


def test_splice_keeps_crlf_line_endings():
    crlf = SOURCE.replace("\n", "\r\n")
    result = splice(crlf, TWICE, 7, 10, CANDIDATE)
    assert "\r\n" in result.text and "\n" not in result.text.replace("\r\n", "")
    assert result.text.count("\r\n") == crlf.count("\r\n") - 1


def test_form_feeds_do_not_shift_line_numbers():
    with_ff = SOURCE.replace("    int f;", "    int f;\f")
    assert locate(with_ff, TWICE, 7, 10).start_line == 7
    assert "\f" in splice(with_ff, TWICE, 7, 10, CANDIDATE).text


def test_a_candidate_with_unbalanced_braces_is_refused():
    with pytest.raises(UnbalancedCandidate):
        splice(SOURCE, TWICE, 7, 10, "public int twice(int x) {\n return 2 * x;\n")
    with pytest.raises(UnbalancedCandidate):
        splice(SOURCE, TWICE, 7, 10, "public int twice(int x) {\n return x; }\n }\n class X {")


def test_braces_in_literals_and_comments_do_not_count():
    assert brace_balance('void f() { String s = "{{"; char c = \'}\'; /* { */ // }\n }') == 0
    assert brace_balance('void f() { String t = """\n  {\n  """; }') == 0


def test_method_header_ignores_layout_but_not_the_signature():
    assert method_header(TWICE) == method_header("public int twice( int x )\n{ return 0; }")
    assert method_header(TWICE) != method_header("public long twice(int x) { return 0; }")
    assert method_header(TWICE) != method_header("public int twice(int x) throws Exception { return 0; }")


def test_characters_the_encoding_cannot_hold_become_unicode_escapes():
    assert encode_source('s = "caf\u00e9";', "ISO-8859-1") == 's = "caf\xe9";'.encode("iso-8859-1")
    assert encode_source('s = "\u4e2d\U0001f600";', "ISO-8859-1") == b's = "\\u4e2d\\ud83d\\ude00";'
