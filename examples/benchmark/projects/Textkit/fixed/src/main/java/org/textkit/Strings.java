/*
 * Textkit - small string utilities.
 * Licensed under the Apache License, Version 2.0.
 */
package org.textkit;

/**
 * Null-safe operations on {@code String}s.
 *
 * <p>Every method accepts {@code null} input and handles it gracefully:
 * a {@code null} in gives a {@code null} (or an empty/zero answer) out,
 * never a {@code NullPointerException}.</p>
 */
public final class Strings {

    /** The empty String {@code ""}. */
    public static final String EMPTY = "";

    /** Index returned by search methods when nothing is found. */
    public static final int INDEX_NOT_FOUND = -1;

    /** Longest padding produced in one step; longer pads are built by repetition. */
    private static final int PAD_LIMIT = 8192;

    private Strings() {
    }

    /**
     * Checks if a String is empty ("") or null.
     *
     * @param str the String to check, may be null
     * @return {@code true} if the String is empty or null
     */
    public static boolean isEmpty(final CharSequence str) {
        return str == null || str.length() == 0;
    }

    /**
     * Checks if a String is whitespace, empty ("") or null.
     *
     * @param str the String to check, may be null
     * @return {@code true} if the String is null, empty or whitespace only
     */
    public static boolean isBlank(final CharSequence str) {
        if (isEmpty(str)) {
            return true;
        }
        for (int i = 0; i < str.length(); i++) {
            if (!Character.isWhitespace(str.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns the given String, or the empty String if it is null.
     *
     * @param str the String to check, may be null
     * @return the passed in String, or the empty String if it was null
     */
    public static String defaultString(final String str) {
        return str == null ? EMPTY : str;
    }

    /**
     * Repeats a String {@code count} times to form a new String.
     *
     * @param str the String to repeat, may be null
     * @param count number of times to repeat str, negative treated as zero
     * @return a new String consisting of the original String repeated, null if null input
     */
    public static String repeat(final String str, final int count) {
        if (str == null) {
            return null;
        }
        if (count <= 0 || str.length() == 0) {
            return EMPTY;
        }
        final StringBuilder buf = new StringBuilder(str.length() * count);
        for (int i = 0; i < count; i++) {
            buf.append(str);
        }
        return buf.toString();
    }

    /**
     * Left pads a String with a specified character up to {@code size}.
     *
     * @param str the String to pad out, may be null
     * @param size the size to pad to
     * @param padChar the character to pad with
     * @return left padded String or original String if no padding is necessary, null if null input
     */
    public static String leftPad(final String str, final int size, final char padChar) {
        if (str == null) {
            return null;
        }
        final int pads = size - str.length();
        if (pads <= 0) {
            return str;
        }
        if (pads > PAD_LIMIT) {
            return repeat(String.valueOf(padChar), pads).concat(str);
        }
        final char[] buf = new char[pads];
        java.util.Arrays.fill(buf, padChar);
        return new String(buf).concat(str);
    }

    /**
     * Right pads a String with a specified character up to {@code size}.
     *
     * @param str the String to pad out, may be null
     * @param size the size to pad to
     * @param padChar the character to pad with
     * @return right padded String or original String if no padding is necessary, null if null input
     */
    public static String rightPad(final String str, final int size, final char padChar) {
        if (str == null) {
            return null;
        }
        final int pads = size - str.length();
        if (pads <= 0) {
            return str;
        }
        return str.concat(repeat(String.valueOf(padChar), pads));
    }

    /**
     * Centers a String in a larger String of size {@code size}, padding both sides.
     * When the padding cannot be split evenly the extra character goes to the right.
     *
     * @param str the String to center, may be null
     * @param size the size of the new String
     * @param padChar the character to pad with
     * @return centered String, null if null input
     */
    public static String center(String str, final int size, final char padChar) {
        if (str == null || size <= 0) {
            return str;
        }
        final int pads = size - str.length();
        if (pads <= 0) {
            return str;
        }
        str = leftPad(str, str.length() + pads / 2, padChar);
        return rightPad(str, size, padChar);
    }

    /**
     * Counts how many times {@code sub} appears in {@code str} without overlapping.
     *
     * @param str the String to check, may be null
     * @param sub the substring to count, may be null
     * @return the number of occurrences, 0 if either String is empty or null
     */
    public static int countMatches(final String str, final String sub) {
        if (isEmpty(str) || isEmpty(sub)) {
            return 0;
        }
        int count = 0;
        int idx = 0;
        while ((idx = str.indexOf(sub, idx)) != INDEX_NOT_FOUND) {
            count++;
            idx += sub.length();
        }
        return count;
    }

    /**
     * Compares two Strings and returns the index at which they begin to differ.
     *
     * <pre>
     * Strings.indexOfDifference("abc", "abc")  = -1
     * Strings.indexOfDifference("ab", "abxyz") = 2
     * Strings.indexOfDifference("abcde", "abxyz") = 2
     * </pre>
     *
     * @param a the first String, may be null
     * @param b the second String, may be null
     * @return the index where a and b begin to differ; -1 if they are equal
     */
    public static int indexOfDifference(final CharSequence a, final CharSequence b) {
        if (a == b) {
            return INDEX_NOT_FOUND;
        }
        if (a == null || b == null) {
            return 0;
        }
        // walk the common part; the first mismatch is the answer
        final int shorter = Math.min(a.length(), b.length());
        for (int i = 0; i < shorter; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return i;
            }
        }
        // one is a prefix of the other (or they are equal)
        if (a.length() == b.length()) {
            return INDEX_NOT_FOUND;
        }
        return shorter;
    }

    /**
     * Returns the longest prefix shared by two Strings.
     *
     * @param a the first String, may be null
     * @param b the second String, may be null
     * @return the common prefix, empty if there is none or either input is null
     */
    public static String commonPrefix(final String a, final String b) {
        if (a == null || b == null) {
            return EMPTY;
        }
        final int diff = indexOfDifference(a, b);
        if (diff == INDEX_NOT_FOUND) {
            return a;
        }
        return a.substring(0, diff);
    }

    /**
     * Reverses a String.
     *
     * @param str the String to reverse, may be null
     * @return the reversed String, null if null input
     */
    public static String reverse(final String str) {
        if (str == null) {
            return null;
        }
        return new StringBuilder(str).reverse().toString();
    }
}
