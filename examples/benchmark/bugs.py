"""The example benchmark's bugs: how each buggy version differs from the fixed tree, and its issue.

``edits`` are (fixed text, buggy text) pairs applied to the fixed file by ``build.py``; every fixed
text must occur exactly once. ``marker`` is a string on the buggy method's declaration line.
``triggers`` are the tests expected to fail on the buggy version (build.py checks this by running them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BugSpec:
    project: str
    number: int
    kind: str
    path: str
    marker: str
    edits: tuple[tuple[str, str], ...]
    triggers: tuple[str, ...]
    summary: str
    description: str
    issue_url: str | None
    report_id: str
    comments: tuple[str, ...] | None
    summarized_discussion: str | None
    # True when the ground-truth method also needs a change elsewhere in the file, so splicing
    # fixed_src alone into the buggy file must not compile.
    needs_outside_change: bool = False

    @property
    def modified_class(self) -> str:
        return self.path.split("src/main/java/", 1)[1].removesuffix(".java").replace("/", ".")


TK = "https://issues.example.org/browse/TEXTKIT-"
RK = "https://github.com/example-org/rangekit/issues/"

BUGS: tuple[BugSpec, ...] = (
    BugSpec(
        project="Textkit",
        number=1,
        kind="off-by-one loop bound",
        path="src/main/java/org/textkit/Strings.java",
        marker="public static int indexOfDifference(",
        edits=(("for (int i = 0; i < shorter; i++) {", "for (int i = 0; i < shorter - 1; i++) {"),),
        triggers=(
            "org.textkit.StringsTest::testCommonPrefix",
            "org.textkit.StringsTest::testIndexOfDifferenceInLastCharacter",
        ),
        summary="Strings.indexOfDifference returns -1 when strings differ only in the last character",
        description=(
            'Strings.indexOfDifference("abc", "abd") returns -1, i.e. it claims the two strings are equal. '
            "It should return 2. The same happens for any two strings of the same length whose only "
            'difference is the final character, e.g. indexOfDifference("a", "b") is -1 instead of 0.\n\n'
            'This also breaks Strings.commonPrefix: commonPrefix("abc", "abx") returns "abc" instead of '
            '"ab". We use commonPrefix to group file names and ended up putting report_2023.csv and '
            "report_2024.csv in the same bucket as if they were one file.\n\n"
            "Textkit 1.3, Java 8."
        ),
        issue_url=TK + "41",
        report_id="TEXTKIT-41",
        comments=(
            'Confirmed. Strings that differ earlier are fine, e.g. indexOfDifference("abcde", "abxyz") '
            "correctly gives 2.",
            "Fixed in trunk, thanks for the report and the file-name example.",
        ),
        summarized_discussion=(
            "A maintainer confirmed that only a difference in the last character is missed and fixed it."
        ),
    ),
    BugSpec(
        project="Textkit",
        number=2,
        kind="missing null check",
        path="src/main/java/org/textkit/Words.java",
        marker="public static String capitalize(",
        edits=(
            (
                "        int strLen;\n        if (str == null || (strLen = str.length()) == 0) {",
                "        final int strLen = str.length();\n        if (strLen == 0) {",
            ),
        ),
        triggers=("org.textkit.WordsTest::testCapitalizeNull",),
        summary="Words.capitalize(null) throws NullPointerException",
        description=(
            'The javadoc of Words.capitalize says "@return the capitalized String, null if null input" and '
            "the class promises that every method is null-safe, but\n\n"
            "    Words.capitalize(null)\n\n"
            "throws\n\n"
            "java.lang.NullPointerException\n"
            "    at org.textkit.Words.capitalize(Words.java:39)\n\n"
            "Words.uncapitalize(null) and Words.capitalizeFully(null) both return null as documented, so "
            "capitalize is the odd one out. We hit it when a form field was missing from a request."
        ),
        issue_url=TK + "52",
        report_id="TEXTKIT-52",
        comments=("Same for me with 1.4. Workaround: Strings.isEmpty(s) ? s : Words.capitalize(s).",),
        summarized_discussion="Another user confirmed the exception and shared a workaround.",
    ),
    BugSpec(
        project="Textkit",
        number=3,
        kind="multi-hunk change in one method",
        path="src/main/java/org/textkit/CsvLine.java",
        marker="public static List<String> split(final String line, final char separator)",
        edits=(
            (
                "                if (c != QUOTE) {\n"
                "                    field.append(c);\n"
                "                } else if (i + 1 < line.length() && line.charAt(i + 1) == QUOTE) {\n"
                "                    // a doubled quote inside a quoted field stands for one quote\n"
                "                    field.append(QUOTE);\n"
                "                    i++;\n"
                "                } else {\n",
                "                if (c != QUOTE) {\n                    field.append(c);\n                } else {\n",
            ),
            (
                "        // the last field has no separator after it, even when it is empty\n"
                "        fields.add(field.toString());\n",
                "        // the last field has no separator after it\n"
                "        if (field.length() > 0) {\n"
                "            fields.add(field.toString());\n"
                "        }\n",
            ),
        ),
        triggers=(
            "org.textkit.CsvLineTest::testRoundTrip",
            "org.textkit.CsvLineTest::testSplitDoubledQuote",
            "org.textkit.CsvLineTest::testSplitTrailingEmptyField",
        ),
        summary="CsvLine.split does not read back what CsvLine.join wrote",
        description=(
            "Joining fields with CsvLine.join and splitting the result again with CsvLine.split does not give "
            "the original fields back:\n\n"
            '    List<String> fields = Arrays.asList("id", "he said \\"no\\"", "");\n'
            '    String line = CsvLine.join(fields, \',\');   // id,"he said ""no""",\n'
            "    CsvLine.split(line, ',');                  // [id, he said no]\n\n"
            'Expected: [id, he said "no", ] (three fields).\n'
            "Actual: [id, he said no] (two fields).\n\n"
            'Two things go wrong: the quotes inside the quoted field disappear (a doubled "" should become '
            'one " as in RFC 4180), and the empty last column is dropped, so rows end up with different '
            "numbers of columns. Splitting an empty line also returns an empty list instead of one empty field."
        ),
        issue_url=TK + "63",
        report_id="TEXTKIT-63",
        comments=(
            "The column count problem is the worse one for us: our importer rejects rows whose length does "
            "not match the header.",
            "Both parts are fixed now and there is a round-trip test.",
        ),
        summarized_discussion=(
            "Users reported dropped trailing columns; the maintainers fixed doubled quotes and empty last "
            "fields and added a round-trip test."
        ),
    ),
    BugSpec(
        project="Textkit",
        number=4,
        kind="fix needs a new helper outside the method",
        path="src/main/java/org/textkit/Accents.java",
        marker="public static String strip(",
        edits=(
            (
                "            } else {\n"
                "                // ligatures such as '\u00df' or '\u00c6' become two letters\n"
                "                final String expanded = ligature(c);\n"
                "                buf.append(expanded != null ? expanded : String.valueOf(c));\n"
                "            }\n",
                "            } else {\n                buf.append(c);\n            }\n",
            ),
            (
                "    /**\n"
                "     * The letters a Latin-1 ligature stands for.\n"
                "     *\n"
                "     * @param c the character\n"
                "     * @return the expansion, or null if c is not a ligature\n"
                "     */\n"
                "    private static String ligature(final char c) {\n"
                "        switch (c) {\n"
                "            case '\u00df':\n"
                '                return "ss";\n'
                "            case '\u00c6':\n"
                '                return "AE";\n'
                "            case '\u00e6':\n"
                '                return "ae";\n'
                "            case '\u00de':\n"
                '                return "TH";\n'
                "            case '\u00fe':\n"
                '                return "th";\n'
                "            default:\n"
                "                return null;\n"
                "        }\n"
                "    }\n"
                "\n",
                "",
            ),
        ),
        triggers=("org.textkit.AccentsTest::testStripLigatures",),
        summary="Accents.strip leaves \u00df and \u00c6 untouched",
        description=(
            'Accents.strip("Stra\u00dfe") returns "Stra\u00dfe" unchanged. I expected "Strasse", which is '
            'what every transliteration table I know uses. Same with \u00c6/\u00e6: strip("\u00c6sir") gives '
            '"\u00c6sir" instead of "AEsir".\n\n'
            'Because of this Words.slugify("Stra\u00dfenbahn") produces "stra-enbahn", which is how I noticed.'
        ),
        issue_url=None,
        report_id="UNKNOWN",
        comments=None,
        summarized_discussion=None,
        needs_outside_change=True,
    ),
    BugSpec(
        project="Textkit",
        number=5,
        kind="wrong early return",
        path="src/main/java/org/textkit/Accents.java",
        marker="public static boolean hasAccents(",
        edits=(
            (
                "            if (c < '\u00c0') {\n                continue;\n            }",
                "            if (c < '\u00c0') {\n                return false;\n            }",
            ),
        ),
        triggers=("org.textkit.AccentsTest::testHasAccentsAfterAscii",),
        summary='Accents.hasAccents("Caf\u00e9") is false',
        description=(
            "hasAccents only seems to work when the accented letter is the very first character.\n\n"
            '    Accents.hasAccents("\u00e9t\u00e9")  -> true   (ok)\n'
            '    Accents.hasAccents("Caf\u00e9")  -> false  (expected true)\n'
            '    Accents.hasAccents("na\u00efve") -> false  (expected true)\n\n'
            "We use it to decide whether a search term needs the accent-insensitive index, so most accented "
            "queries never get there."
        ),
        issue_url=TK + "77",
        report_id="TEXTKIT-77",
        comments=(),
        summarized_discussion="",
    ),
    BugSpec(
        project="Rangekit",
        number=1,
        kind="swapped call arguments",
        path="src/main/java/org/rangekit/Stats.java",
        marker="public static double percentile(",
        edits=(
            (
                "return interpolate(sorted[lo], sorted[hi], pos - lo);",
                "return interpolate(sorted[hi], sorted[lo], pos - lo);",
            ),
        ),
        triggers=("org.rangekit.StatsTest::testPercentileInterpolates",),
        summary="Stats.percentile gives wrong values between data points",
        description=(
            "Stats.percentile(new double[] {1, 2, 3, 4}, 0.25) returns 1.25. With the R-7 / Excel "
            "PERCENTILE.INC definition that the javadoc refers to, the answer is 1.75 (Excel gives 1.75 for "
            "=PERCENTILE.INC({1,2,3,4}, 0.25)).\n\n"
            "Another example: percentile({10, 20}, 0.9) returns 11.0, expected 19.0. Values that fall exactly "
            "on a data point (p = 0, p = 1, or the 0.25 quantile of five values) are correct, and the median "
            "is correct too, which is probably why this was not noticed."
        ),
        issue_url=RK + "14",
        report_id="14",
        comments=("Looks like the result is mirrored: 1.25 is as far above 1 as 1.75 is below 2.",),
        summarized_discussion="A commenter noticed the result is mirrored between the two neighbouring values.",
    ),
    BugSpec(
        project="Rangekit",
        number=2,
        kind="wrong relational operator",
        path="src/main/java/org/rangekit/RangeSet.java",
        marker="public boolean contains(",
        edits=(("            if (value <= r.getMaximum()) {", "            if (value < r.getMaximum()) {"),),
        triggers=("org.rangekit.RangeSetTest::testContainsUpperBound",),
        summary="RangeSet.contains is false for the upper end of a range",
        description=(
            "Ranges are documented as closed (both ends included), and IntRange.contains agrees, but RangeSet "
            "does not:\n\n"
            "    RangeSet set = new RangeSet().add(1, 3);\n"
            "    set.contains(1);  // true\n"
            "    set.contains(3);  // false, expected true\n"
            "    new IntRange(1, 3).contains(3);  // true\n\n"
            "A set holding a single value, new RangeSet().add(IntRange.of(7)), does not even contain 7."
        ),
        issue_url=RK + "21",
        report_id="21",
        comments=(
            "Same with 0.9.2. Single-value sets are what we use for blocked ports, so none of them was blocked.",
            "Thanks, fixed and released in 0.9.3.",
        ),
        summarized_discussion="Another user confirmed the impact on single-value sets; the fix was released.",
    ),
    BugSpec(
        project="Rangekit",
        number=3,
        kind="wrong initial value",
        path="src/main/java/org/rangekit/Stats.java",
        marker="public static double max(",
        edits=(("double max = Double.NEGATIVE_INFINITY;", "double max = Double.MIN_VALUE;"),),
        triggers=("org.rangekit.StatsTest::testMaxOfNegativeValues",),
        summary="Stats.max returns 4.9E-324 for negative data",
        description=(
            "When all values are negative, Stats.max returns a tiny positive number instead of the largest "
            "value:\n\n"
            "    Stats.max(new double[] {-3, -1.5, -2})  // 4.9E-324, expected -1.5\n\n"
            "Stats.min has no such problem with all-positive data. Found while plotting temperatures in "
            "winter; the chart's upper limit was always 0."
        ),
        issue_url=RK + "27",
        report_id="27",
        comments=("4.9E-324 is Double.MIN_VALUE, so something starts from that.",),
        summarized_discussion="A commenter recognised the returned value as Double.MIN_VALUE.",
    ),
    BugSpec(
        project="Rangekit",
        number=4,
        kind="missing +1 (adjacent ranges)",
        path="src/main/java/org/rangekit/RangeSet.java",
        marker="public RangeSet add(final IntRange range)",
        edits=(
            (
                "            // touching ranges merge too: [1..3] + [4..6] = [1..6]\n"
                "            final boolean touches = r.getMinimum() <= merged.getMaximum() + 1L\n"
                "                && merged.getMinimum() <= r.getMaximum() + 1L;\n",
                "            // overlapping ranges are merged into one\n"
                "            final boolean touches = r.getMinimum() <= merged.getMaximum()\n"
                "                && merged.getMinimum() <= r.getMaximum();\n",
            ),
        ),
        triggers=("org.rangekit.RangeSetTest::testAddAdjacentMerges",),
        summary="RangeSet keeps [1..3] and [4..6] apart, so equal sets are not equal",
        description=(
            'The class javadoc says ranges are stored as "sorted, disjoint, non-adjacent" ranges and that '
            "adding [1..3] and [4..6] stores [1..6]. That is not what happens:\n\n"
            "    new RangeSet().add(1, 3).add(4, 6).ranges()   // [[1..3], [4..6]]\n\n"
            "Because of that, two sets with exactly the same members compare unequal:\n\n"
            "    new RangeSet().add(1, 6).equals(new RangeSet().add(1, 3).add(4, 6))   // false\n\n"
            "Overlapping ranges ([1..5] + [4..8]) are merged correctly."
        ),
        issue_url=RK + "33",
        report_id="33",
        comments=(
            "Careful with Integer.MAX_VALUE when fixing this, max + 1 overflows.",
            "Good point, the fix compares as long and there is a test at the int limits.",
            "Merged.",
        ),
        summarized_discussion=(
            "Commenters warned about overflow at Integer.MAX_VALUE; the fix compares as long and was merged."
        ),
    ),
)
