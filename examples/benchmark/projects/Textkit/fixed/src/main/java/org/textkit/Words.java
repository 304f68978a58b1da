/*
 * Textkit - small string utilities.
 * Licensed under the Apache License, Version 2.0.
 */
package org.textkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Operations on the words of a String: capitalisation, wrapping, abbreviation and slugs.
 * Words are separated by whitespace.
 */
public final class Words {

    /** Line separator used by {@link #wrap(String, int)}. */
    public static final String NEWLINE = "\n";

    private static final String ELLIPSIS = "...";

    private Words() {
    }

    /**
     * Capitalizes a String changing the first character to title case.
     * No other characters are changed.
     *
     * <pre>
     * Words.capitalize(null)  = null
     * Words.capitalize("")    = ""
     * Words.capitalize("cat") = "Cat"
     * Words.capitalize("cAt") = "CAt"
     * </pre>
     *
     * @param str the String to capitalize, may be null
     * @return the capitalized String, null if null input
     */
    public static String capitalize(final String str) {
        int strLen;
        if (str == null || (strLen = str.length()) == 0) {
            return str;
        }
        final char first = str.charAt(0);
        final char title = Character.toTitleCase(first);
        // already capitalized: hand back the same instance
        if (first == title) {
            return str;
        }
        return new StringBuilder(strLen)
            .append(title)
            .append(str, 1, strLen)
            .toString();
    }

    /**
     * Uncapitalizes a String, changing the first character to lower case.
     *
     * @param str the String to uncapitalize, may be null
     * @return the uncapitalized String, null if null input
     */
    public static String uncapitalize(final String str) {
        if (Strings.isEmpty(str)) {
            return str;
        }
        return Character.toLowerCase(str.charAt(0)) + str.substring(1);
    }

    /**
     * Capitalizes every whitespace separated word and lower cases the rest of each word.
     *
     * @param str the String to capitalize, may be null
     * @return the capitalized String, null if null input
     */
    public static String capitalizeFully(final String str) {
        if (Strings.isEmpty(str)) {
            return str;
        }
        final StringBuilder buf = new StringBuilder(str.length());
        boolean startOfWord = true;
        for (int i = 0; i < str.length(); i++) {
            final char c = str.charAt(i);
            if (Character.isWhitespace(c)) {
                startOfWord = true;
                buf.append(c);
            } else if (startOfWord) {
                buf.append(Character.toTitleCase(c));
                startOfWord = false;
            } else {
                buf.append(Character.toLowerCase(c));
            }
        }
        return buf.toString();
    }

    /**
     * Splits a String into its whitespace separated words.
     *
     * @param str the String to split, may be null
     * @return the words, empty if the String is blank or null
     */
    public static List<String> split(final String str) {
        final List<String> words = new ArrayList<String>();
        if (Strings.isBlank(str)) {
            return words;
        }
        for (final String word : str.trim().split("\\s+")) {
            words.add(word);
        }
        return words;
    }

    /**
     * Counts the whitespace separated words of a String.
     *
     * @param str the String to count, may be null
     * @return the number of words
     */
    public static int count(final String str) {
        return split(str).size();
    }

    /**
     * Extracts the upper cased first letter of every word.
     *
     * @param str the String to take initials from, may be null
     * @return the initials, null if null input
     */
    public static String initials(final String str) {
        if (str == null) {
            return null;
        }
        final StringBuilder buf = new StringBuilder();
        for (final String word : split(str)) {
            buf.append(Character.toUpperCase(word.charAt(0)));
        }
        return buf.toString();
    }

    /**
     * Wraps a single line of text so that no line is longer than {@code width},
     * breaking at whitespace only. Words longer than {@code width} are left whole.
     *
     * @param str the String to wrap, may be null
     * @param width the column to wrap at, at least 1
     * @return the wrapped text, null if null input
     */
    public static String wrap(final String str, final int width) {
        if (str == null) {
            return null;
        }
        if (width < 1) {
            throw new IllegalArgumentException("width must be at least 1: " + width);
        }
        final StringBuilder out = new StringBuilder(str.length() + 8);
        int lineLength = 0;
        for (final String word : split(str)) {
            if (lineLength > 0 && lineLength + 1 + word.length() > width) {
                out.append(NEWLINE);
                lineLength = 0;
            } else if (lineLength > 0) {
                out.append(' ');
                lineLength++;
            }
            out.append(word);
            lineLength += word.length();
        }
        return out.toString();
    }

    /**
     * Abbreviates a String using an ellipsis so that it is at most {@code maxWidth} long.
     *
     * @param str the String to abbreviate, may be null
     * @param maxWidth maximum length of the result, at least 4
     * @return the abbreviated String, null if null input
     */
    public static String abbreviate(final String str, final int maxWidth) {
        if (maxWidth < ELLIPSIS.length() + 1) {
            throw new IllegalArgumentException("Minimum abbreviation width is 4");
        }
        if (str == null || str.length() <= maxWidth) {
            return str;
        }
        return str.substring(0, maxWidth - ELLIPSIS.length()) + ELLIPSIS;
    }

    /**
     * Builds a URL slug: accents removed, lower case, words joined by hyphens.
     *
     * <pre>
     * Words.slugify(" Hello, World! ") = "hello-world"
     * </pre>
     *
     * @param str the title to turn into a slug, may be null
     * @return the slug, null if null input
     */
    public static String slugify(final String str) {
        if (str == null) {
            return null;
        }
        final String plain = Accents.strip(str).toLowerCase(java.util.Locale.ROOT);
        final StringBuilder buf = new StringBuilder(plain.length());
        for (final String word : plain.split("[^a-z0-9]+")) {
            if (word.length() > 0) {
                if (buf.length() > 0) {
                    buf.append('-');
                }
                buf.append(word);
            }
        }
        return buf.toString();
    }
}
