"""Splicing a candidate over the buggy method: pure text, checked line by line."""

from __future__ import annotations

import pytest

from nl2fix.java_source.splice import (
    RefusedCandidate,
    SpliceError,
    brace_balance,
    encode_source,
    locate,
    method_header,
    splice,
)
from tests.helpers.javac import class_files, needs_javac, run_javac

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
    with pytest.raises(RefusedCandidate):
        splice(SOURCE, TWICE, 7, 10, "public int twice(int x) {\n return 2 * x;\n")
    with pytest.raises(RefusedCandidate):
        splice(SOURCE, TWICE, 7, 10, "public int twice(int x) {\n return x; }\n }\n class X {")


# Each closes ``twice`` and ``A`` where javac reads it, declares a top-level class of its own, and
# opens a class that takes in the rest of ``A``; read as raw text, its braces balance.
_OPENS = "public int twice(int x) {\n        "
_SMUGGLES = "} } class Smuggled { } class Rest { int unused() {\n        return 0;\n    }"
CLOSES_THE_CLASS = {
    "escaped braces": _OPENS + "return 2 * x;\n    \\u007d\n\\u007d\nclass Smuggled {\n}\n"
    "class Rest \\u007b\n    int unused() \\u007b\n        return 0;\n    }",
    "line feed in a comment": _OPENS + "return 2 * x; // done \\u000a " + _SMUGGLES,
    "escaped carriage return in a comment": _OPENS + "return 2 * x; // done \\u000d " + _SMUGGLES,
    "carriage return in a comment": _OPENS + "return 2 * x; // done \r " + _SMUGGLES,
    "escaped quotes in a text block": _OPENS
    + 'String s = """\n            \\""" /*\n            """; return 2 * x; '
    + _SMUGGLES.replace("return 0;", "return 0; /* */"),
}


@pytest.mark.parametrize("attack", CLOSES_THE_CLASS.values(), ids=CLOSES_THE_CLASS.keys())
def test_a_candidate_that_closes_the_class_where_javac_reads_it_is_refused(attack):
    with pytest.raises(RefusedCandidate, match="braces do not balance"):
        splice(SOURCE, TWICE, 7, 10, attack)


@needs_javac
@pytest.mark.parametrize("attack", CLOSES_THE_CLASS.values(), ids=CLOSES_THE_CLASS.keys())
def test_javac_would_compile_each_of_those_attacks_spliced_as_raw_text(attack, tmp_path):
    done = run_javac({"A.java": SOURCE.replace(TWICE, attack)}, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert {"p/A.class", "p/Smuggled.class", "p/Rest.class"} <= set(class_files(tmp_path / "out"))


@pytest.mark.parametrize(
    "candidate, reason",
    [
        (
            "public int twice(int x) {\n        return 2 * x; // see c:\\users\n    }",
            "illegal Unicode escape at line 2",
        ),
        (
            'public int twice(int x) {\n        String s = "\\u005c"";\n        return 2 * x;\n    }',
            "a Unicode escape of a backslash",
        ),
    ],
)
def test_a_candidate_whose_escapes_javac_refuses_or_reads_unlike_any_text_is_refused(candidate, reason):
    with pytest.raises(RefusedCandidate, match=reason):
        splice(SOURCE, TWICE, 7, 10, candidate)


def test_escapes_in_literals_are_spliced_as_javac_reads_them():
    candidate = (
        "public int twice(int x) {\n        String s = \"caf\\u00e9\\ud83d\\ude00\"; char c = '\\u007b';\n"
        "        return 2 * x;\n    }"
    )
    text = splice(SOURCE, TWICE, 7, 10, candidate).text
    assert "String s = \"caf\u00e9\U0001f600\"; char c = '{';" in text and "\\u" not in text


def test_braces_in_literals_and_comments_do_not_count():
    assert brace_balance("void f() { String s = \"{{\"; char c = '}'; /* { */ // }\n }") == 0
    assert brace_balance('void f() { String t = """\n  {\n  """; }') == 0


def test_method_header_ignores_layout_but_not_the_signature():
    assert method_header(TWICE) == method_header("public int twice( int x )\n{ return 0; }")
    assert method_header(TWICE) != method_header("public long twice(int x) { return 0; }")
    assert method_header(TWICE) != method_header("public int twice(int x) throws Exception { return 0; }")


def test_characters_the_encoding_cannot_hold_become_unicode_escapes():
    assert encode_source('s = "caf\u00e9";', "ISO-8859-1") == 's = "caf\xe9";'.encode("iso-8859-1")
    assert encode_source('s = "\u4e2d\U0001f600";', "ISO-8859-1") == b's = "\\u4e2d\\ud83d\\ude00";'
    assert encode_source("c = '\ud800';", "UTF-8") == b"c = '\\ud800';"  # a lone surrogate, from an escape


QUALIFIED = """package p;

public class Q {
    /** Parse it. */
    public static Number parse(String s)
    {
        try
        {
            return org.apache.commons.lang.math.NumberUtils.createNumber(s);
        }
        catch (NumberFormatException e)
        {
            return null;
        }
    }

    public static Number parse(Object s)
    {
        try
        {
            return NumberUtils.createNumber((String) s);
        }
        catch (NumberFormatException e)
        {
            return null;
        }
    }
}
"""
# The dataset's copy (as in Cli-3): the call unqualified, and its range one line late.
DATASET_PARSE = """public static Number parse(String s)
    {
        try
        {
            return NumberUtils.createNumber(s);
        }
        catch (NumberFormatException e)
        {
            return null;
        }
    }"""


def test_a_method_whose_text_differs_is_found_by_its_declaration_with_the_correction_recorded():
    loc = locate(QUALIFIED, DATASET_PARSE, 6, 16)
    assert (loc.start_line, loc.end_line) == (5, 15)
    assert loc.corrected
    assert "lines 5-15 instead of the dataset's lines 6-16" in loc.note
    assert "org.apache.commons.lang.math.NumberUtils.createNumber" in loc.note
    assert "% alike" in loc.note


def test_the_overload_with_the_same_parameter_types_is_taken_even_when_another_reads_closer():
    # the Object overload has the unqualified call too (closer text), but not the parameter type
    loc = locate(QUALIFIED, DATASET_PARSE, 17, 27)
    assert (loc.start_line, loc.end_line) == (5, 15)


def test_a_same_named_method_with_another_body_is_not_taken_for_the_buggy_one():
    other = "public static Number parse(String s) {\n return Long.valueOf(s.trim().length() * 31 + 7);\n}"
    with pytest.raises(SpliceError, match="same name"):
        locate(QUALIFIED, other, 5, 15)


def test_of_two_equally_alike_declarations_the_nearest_to_the_range_is_taken():
    first_parse = "\n".join(QUALIFIED.split("\n")[4:15])
    twin = QUALIFIED.replace("}\n}\n", "}\n\n    static class Twin {\n" + first_parse + "\n    }\n}\n")
    near, far = locate(twin, DATASET_PARSE, 6, 16), locate(twin, DATASET_PARSE, 30, 40)
    assert near.start_line == 5 and far.start_line > 28
    assert far.end_line - far.start_line == 10


def test_an_annotation_the_dataset_leaves_out_stays_in_the_file():
    annotated = QUALIFIED.replace(
        "    public static Number parse(String s)", "    @Deprecated\n    public static Number parse(String s)"
    )
    loc = locate(annotated, DATASET_PARSE, 6, 16)
    assert (loc.start_line, loc.end_line) == (6, 16)
    with_it = locate(annotated, "@Deprecated\n" + DATASET_PARSE, 6, 16)
    assert (with_it.start_line, with_it.end_line) == (5, 16)


def test_splicing_the_buggy_method_itself_leaves_the_file_as_it_is():
    # the dataset's copy would not compile in the file (NumberUtils is not imported): the buggy
    # version is the file's own method
    same = splice(QUALIFIED, DATASET_PARSE, 6, 16, DATASET_PARSE.replace("    ", "  "))
    assert same.text == QUALIFIED and same.location.corrected
    fixed = splice(QUALIFIED, DATASET_PARSE, 6, 16, DATASET_PARSE.replace("return null;", "return 0;"))
    assert "return 0;" in fixed.text and "org.apache" not in fixed.text.split("parse(Object")[0]
