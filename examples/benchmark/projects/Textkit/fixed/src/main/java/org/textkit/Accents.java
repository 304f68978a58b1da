/*
 * Textkit - small string utilities.
 * Licensed under the Apache License, Version 2.0.
 *
 * This file is stored in ISO-8859-1 (Latin-1): compile it with -encoding ISO-8859-1.
 */
package org.textkit;

import java.util.Locale;

/**
 * Removes diacritics from Latin-1 text, e.g. "Crème brûlée" becomes "Creme brulee".
 * Only the Latin-1 range is handled; other characters are left as they are.
 */
public final class Accents {

    /** Accented Latin-1 letters; PLAIN holds the base letter at the same index. */
    private static final String ACCENTED =
        "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜİàáâãäåçèéêëìíîïñòóôõöøùúûüıÿ";

    private static final String PLAIN =
        "AAAAAACEEEEIIIINOOOOOOUUUUYaaaaaaceeeeiiiinoooooouuuuyy";

    private Accents() {
    }

    /**
     * Replaces every accented Latin-1 letter by its base letter.
     *
     * <pre>
     * Accents.strip("Crème brûlée") = "Creme brulee"
     * Accents.strip("Straße")       = "Strasse"
     * </pre>
     *
     * @param str the String to strip, may be null
     * @return the String without diacritics, null if null input
     */
    public static String strip(final String str) {
        if (str == null) {
            return null;
        }
        final StringBuilder buf = new StringBuilder(str.length());
        for (int i = 0; i < str.length(); i++) {
            final char c = str.charAt(i);
            final int idx = ACCENTED.indexOf(c);
            if (idx >= 0) {
                buf.append(PLAIN.charAt(idx));
            } else {
                // ligatures such as 'ß' or 'Æ' become two letters
                final String expanded = ligature(c);
                buf.append(expanded != null ? expanded : String.valueOf(c));
            }
        }
        return buf.toString();
    }

    /**
     * The letters a Latin-1 ligature stands for.
     *
     * @param c the character
     * @return the expansion, or null if c is not a ligature
     */
    private static String ligature(final char c) {
        switch (c) {
            case 'ß':
                return "ss";
            case 'Æ':
                return "AE";
            case 'æ':
                return "ae";
            case 'Ş':
                return "TH";
            case 'ş':
                return "th";
            default:
                return null;
        }
    }

    /**
     * Tells whether a String contains at least one accented Latin-1 letter.
     *
     * @param str the String to check, may be null
     * @return true if some character has a diacritic
     */
    public static boolean hasAccents(final CharSequence str) {
        if (str == null) {
            return false;
        }
        for (int i = 0; i < str.length(); i++) {
            final char c = str.charAt(i);
            // nothing below 'À' carries an accent, so plain ASCII is skipped quickly
            if (c < 'À') {
                continue;
            }
            if (ACCENTED.indexOf(c) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Folds a String for accent- and case-insensitive comparison.
     *
     * @param str the String to fold, may be null
     * @return the folded String, null if null input
     */
    public static String fold(final String str) {
        if (str == null) {
            return null;
        }
        return strip(str).toLowerCase(Locale.ROOT);
    }

    /**
     * Compares two Strings ignoring case and accents.
     *
     * @param a the first String, may be null
     * @param b the second String, may be null
     * @return true if both are null or they fold to the same text
     */
    public static boolean equalsIgnoreAccents(final String a, final String b) {
        if (a == null || b == null) {
            return a == b;
        }
        return fold(a).equals(fold(b));
    }
}
