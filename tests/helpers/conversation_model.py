"""A chat model for conversation tests and the README's comparison, scripted to read its feedback.

It answers Textkit-3 (two things wrong in one method) and Rangekit-2 (``<`` for ``<=``) with the buggy
method unchanged until it is told, in the words a verdict gives (the failing test, expected and actual
values, the test's source line), which test fails how; then it fixes what it was told about, and
once told a version passes, it writes an alternative fix. Other bugs get their buggy method back.
Missing or wrong feedback matches no rule, and the bug stays unfixed.
"""

from __future__ import annotations

import re

from nl2fix.dataset.load import open_dataset
from nl2fix.java_source.text import remove_comments
from tests.helpers.openai_server import Rule, scripted_model

CONVERSATION_BUG = "Textkit-3"
HEAD = """public static List<String> split(final String line, final char separator) {
        final List<String> fields = new ArrayList<String>();
        if (line == null) {
            return fields;
        }
        final StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            final char c = line.charAt(i);
            if (quoted) {
                if (c != QUOTE) {
                    field.append(c);
                }"""
DOUBLED_QUOTE = """ else if (i + 1 < line.length() && line.charAt(i + 1) == QUOTE) {
                    field.append(QUOTE);
                    i++;
                }"""
DOUBLED_QUOTE_ALT = """ else if (line.indexOf(QUOTE, i + 1) == i + 1) {
                    field.append(QUOTE);
                    i++;
                }"""
MIDDLE = """ else {
                    quoted = false;
                }
            } else if (c == QUOTE) {
                quoted = true;
            } else if (c == separator) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
"""
DROPS_EMPTY_LAST = """        if (field.length() > 0) {
            fields.add(field.toString());
        }
        return fields;
    }"""
KEEPS_EMPTY_LAST = """        fields.add(field.toString());
        return fields;
    }"""
HALF_FIX = HEAD + DOUBLED_QUOTE + MIDDLE + DROPS_EMPTY_LAST
"""Fixes the doubled quotes only: testRoundTrip passes, testSplitTrailingEmptyField still fails."""
FIX = HEAD + DOUBLED_QUOTE + MIDDLE + KEEPS_EMPTY_LAST
ALTERNATIVE = HEAD + DOUBLED_QUOTE_ALT + MIDDLE + KEEPS_EMPTY_LAST

ROUND_TRIP_FAILS = (
    "org.textkit.CsvLineTest::testRoundTrip",
    'Expected: [x, , he said "no", 1,5]',
    "Actual: [x, , he said no, 1,5]",
    "assertEquals(fields, CsvLine.split(CsvLine.join(fields, ',')));",
)
"""What the verdict of the buggy method says: the first trigger test, its values, its source line."""
TRAILING_FIELD_FAILS = (
    "org.textkit.CsvLineTest::testSplitTrailingEmptyField",
    "Expected: [a, b, ]",
    "Actual: [a, b]",
    'assertEquals(Arrays.asList("a", "b", ""), CsvLine.split("a,b,"));',
)
UPPER_BOUND_FAILS = ("org.rangekit.RangeSetTest::testContainsUpperBound", "assertTrue(set.contains(3));")
"""Rangekit-2's buggy method fails with a bare AssertionError: only the test's source line says what is wrong."""
PASSES = ("This version compiles and passes all the tests.", "alternative fix")


def java(code: str) -> str:
    return f"```java\n{code}\n```"


_FENCE = re.compile(r"```java\n(.*?)```", re.DOTALL)


def buggy_method_back(messages: list[dict], n: int) -> list[str]:
    """The first Java block of the first user message (the buggy method of a zero-shot prompt)."""
    first = next(m["content"] for m in messages if m["role"] == "user")
    return [java(_FENCE.search(first).group(1).rstrip())] * n


def model():
    rangekit_fix = remove_comments(open_dataset("example").bugs["Rangekit-2"].fixed_method)
    return scripted_model(
        [
            Rule(
                (*PASSES, "public boolean contains"),
                java(rangekit_fix.replace("value <= r.getMaximum()", "r.getMaximum() >= value")),
            ),
            Rule(PASSES, java(ALTERNATIVE)),
            Rule(TRAILING_FIELD_FAILS, java(FIX)),
            Rule(ROUND_TRIP_FAILS, java(HALF_FIX)),
            Rule(UPPER_BOUND_FAILS, java(rangekit_fix)),
        ],
        default=buggy_method_back,
    )
