"""Unicode escapes read as javac reads them: the translation, pure, then checked against javac."""

from __future__ import annotations

import pytest

from nl2fix.java_source.unicode_escapes import UnreadableEscape, translate_unicode_escapes
from tests.helpers.javac import class_files, needs_javac, run_javac


@pytest.mark.parametrize(
    "raw, read",
    [
        (r'"\u0041"', '"A"'),
        (r'"\uuuu0041"', '"A"'),  # any number of u's
        (r'"\u00E9\u00e9"', '"éé"'),
        (r"\u0041\u0042", "AB"),
        (r'"\\u0041"', r'"\\u0041"'),  # the backslash after an odd run of them begins no escape
        (r'"\\\u0041"', r'"\\A"'),  # after an even run it does
        (r'"\\\\u0041"', r'"\\\\u0041"'),
        (r"\\", r"\\"),
        ("// x \\u000a }", "// x \n }"),  # ends the comment: the brace is code
        (r'"\u0022"', '"""'),  # three quotes, not a one-quote string
        (r'"\ud83d\ude00"', '"\U0001f600"'),  # an escaped surrogate pair is one character
        (r"'\ud800'", "'\ud800'"),
        ("no escape, é", "no escape, é"),
    ],
)
def test_escapes_are_translated_as_jls_3_3_says(raw, read):
    assert translate_unicode_escapes(raw) == read


@pytest.mark.parametrize(
    "raw, reason",
    [
        (r"// c:\users", r"illegal Unicode escape at line 1: `\u` is not followed by four ASCII hex digits"),
        ('int x;\nString s = "\\u00e";', r"illegal Unicode escape at line 2: `\u00e`"),
        ("ends with \\uu", "illegal Unicode escape"),
        ("\\u\uff10041", "illegal Unicode escape"),  # a fullwidth digit: javac 16+ takes it, older ones do not
        (r'"\u005c""', r"a Unicode escape of a backslash (`\u005c`) at line 1"),
        (r"// \uu005Cu000a }", r"a Unicode escape of a backslash (`\uu005C`)"),
    ],
)
def test_what_javac_refuses_or_reads_unlike_any_text_is_refused_with_a_one_line_reason(raw, reason):
    with pytest.raises(UnreadableEscape) as refused:
        translate_unicode_escapes(raw)
    assert reason in str(refused.value) and "\n" not in str(refused.value)


# Class bodies whose escapes a reader of the raw text would misread; javac must compile each
# written as it is and as translated to the same class file.
AGREED = {
    "NotAnEscape": r'static String s = "\\u0041";',
    "ManyUs": r'static String s = "\uuuu0041";',
    "ThreeBackslashes": r'static String s = "\\\u0041";',
    "FourBackslashes": r'static String s = "\\\\u0041";',
    "LineFeedEndsComment": "static int f() { int x = 1; // one more? \\u000a x++;\n return x; }",
    "CarriageReturnEndsComment": "static int f() { int x = 1; // one more? \\u000d x++;\n return x; }",
    "StarSlashEndsComment": r"/* hidden? \u002a/ static int shown = 1;",
    "QuotesAroundNothing": r'static String s = "\u0022 + \u0022";',
    "SurrogatePair": r'static String s = "\ud83d\ude00";',
    "LoneSurrogate": r"static char c = '\ud800';",
    "Accented": r'static String s = "caf\u00e9"; static int caf\u00e9 = 1; static int g() { return café; }',
    "Braces": r"static int f() \u007b return 1; \u007d",
}


@needs_javac
def test_javac_reads_each_escape_as_the_translation_does(tmp_path):
    raw = run_javac({f"{name}.java": f"class {name} {{ {body} }}" for name, body in AGREED.items()}, tmp_path / "raw")
    translated = run_javac(
        {f"{name}.java": translate_unicode_escapes(f"class {name} {{ {body} }}") for name, body in AGREED.items()},
        tmp_path / "translated",
    )
    assert raw.returncode == 0 and translated.returncode == 0, raw.stderr + translated.stderr
    assert class_files(tmp_path / "raw") == class_files(tmp_path / "translated")
    assert len(class_files(tmp_path / "raw")) == len(AGREED)


@needs_javac
def test_javac_refuses_the_malformed_escapes_too(tmp_path):
    malformed = {
        "InComment.java": "class InComment {\n  // c:\\users\n}\n",
        "Short.java": 'class Short { String s = "\\u00e"; }\n',
    }
    done = run_javac(malformed, tmp_path / "out")
    assert done.returncode != 0
    for name, text in malformed.items():
        assert f"{name}:" in done.stderr and "illegal unicode escape" in done.stderr
        with pytest.raises(UnreadableEscape):
            translate_unicode_escapes(text)


@needs_javac
def test_an_escaped_backslash_has_no_text_javac_reads_alike(tmp_path):
    # javac: the escaped backslash begins no escape, so the comment hides the brace; written back
    # as a raw backslash, it begins one, and the brace is code
    raw = "class Hidden { void f() { // \\u005cu000a }\n } }\n"
    assert run_javac({"Hidden.java": raw}, tmp_path / "raw").returncode == 0
    written_back = raw.replace("\\u005c", "\\")
    assert run_javac({"Hidden.java": written_back}, tmp_path / "back").returncode != 0
    # and it may begin an ordinary escape: this string is one quote
    assert run_javac({"Quote.java": 'class Quote { String s = "\\u005c""; }'}, tmp_path / "quote").returncode == 0
    with pytest.raises(UnreadableEscape):
        translate_unicode_escapes(raw)
