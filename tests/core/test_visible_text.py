"""Untrusted text shown safely: what is escaped, what is kept, and the flag."""

from __future__ import annotations

import json

import pytest

from nl2fix.core.visible_text import describe, hidden_characters, json_visible, segments, visible

ATTACKS = {
    "ESC sequence": ("a\x1b[2Ab", "a\\x1b[2Ab"),
    "lone CR": ("ok\rplausible", "ok\\x0dplausible"),
    "C1 CSI": ("x\x9b31m", "x\\x9b31m"),
    "DEL": ("a\x7fb", "a\\x7fb"),
    "bidi override": ("/* \u202e } \u2066 */", "/* \\u202e } \\u2066 */"),
    "bidi marks": ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),
    "zero width": ("is\u200bAdmin\u200d\ufeff", "is\\u200bAdmin\\u200d\\ufeff"),
    "line separators": ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
    "tag characters": ("x\U000e0041", "x\\U000e0041"),
    "hangul filler": ("var \u3164 = 1", "var \\u3164 = 1"),
    "variation selector": ("a\ufe0f", "a\\ufe0f"),
    "form feed, vertical tab, NEL": ("\x0c\x0b\x85", "\\x0c\\x0b\\x85"),
    "combining dot on an i": ("return i\u0307 < 0 ? i\u0307 : i;", "return i\\u0307 < 0 ? i\\u0307 : i;"),
    "enclosing mark": ("ok\u20dd", "ok\\u20dd"),
    "decomposed accent": ("caf\u0065\u0301", "cafe\\u0301"),
}


@pytest.mark.parametrize("raw, shown", ATTACKS.values(), ids=ATTACKS.keys())
def test_hidden_characters_are_escaped_and_flagged(raw, shown):
    assert visible(raw) == shown
    assert hidden_characters(raw)
    assert not hidden_characters(shown)


def test_layout_and_ordinary_text_are_kept():
    code = 'int f() {\r\n\treturn "é ü 中文 \\u202e";\n}\n'
    assert visible(code) == code
    assert not hidden_characters(code)


def test_the_escapes_can_be_marked():
    assert visible("a\x1bb", mark=lambda e: f"[{e}]") == "a[\\x1b]b"
    assert list(segments("a\u202eb")) == [("a", False), ("\\u202e", True), ("b", False)]


def test_describe_names_each_kind():
    assert (
        describe(hidden_characters("\x1b\x1b\u202e"))
        == "3 hidden characters (U+001B ESC x2, U+202E RIGHT-TO-LEFT OVERRIDE)"
    )


def test_json_keeps_the_data_and_shows_escapes():
    value = {"m": "a\u202eb\x9b\U000e0041", "k": "é\t"}
    text = json_visible(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert not hidden_characters(text)
