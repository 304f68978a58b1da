/*
 * Textkit - small string utilities.
 * Licensed under the Apache License, Version 2.0.
 */
package org.textkit;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Splits and joins single lines of comma (or otherwise) separated values, RFC 4180 style:
 * a field may be enclosed in double quotes, and a quote inside a quoted field is written twice.
 */
public final class CsvLine {

    /** The quote character. */
    public static final char QUOTE = '"';

    /** The default separator. */
    public static final char COMMA = ',';

    private CsvLine() {
    }

    /**
     * Splits a line on commas.
     *
     * @param line the line to split, may be null
     * @return the fields, empty for a null line
     */
    public static List<String> split(final String line) {
        return split(line, COMMA);
    }

    /**
     * Splits a line into its fields.
     *
     * <pre>
     * CsvLine.split("a,b", ',')             = [a, b]
     * CsvLine.split("a,\"b,c\"", ',')       = [a, b,c]
     * CsvLine.split("\"say \"\"hi\"\"\"", ',') = [say "hi"]
     * CsvLine.split("a,", ',')              = [a, ]
     * </pre>
     *
     * @param line the line to split, may be null
     * @param separator the field separator
     * @return the fields, empty for a null line
     */
    public static List<String> split(final String line, final char separator) {
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
                } else if (i + 1 < line.length() && line.charAt(i + 1) == QUOTE) {
                    // a doubled quote inside a quoted field stands for one quote
                    field.append(QUOTE);
                    i++;
                } else {
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
        // the last field has no separator after it, even when it is empty
        fields.add(field.toString());
        return fields;
    }

    /**
     * Joins fields into one line, quoting the fields that need it.
     *
     * @param fields the fields to join, may be null
     * @param separator the field separator
     * @return the line, null if null input
     */
    public static String join(final List<String> fields, final char separator) {
        if (fields == null) {
            return null;
        }
        final StringBuilder buf = new StringBuilder();
        final Iterator<String> it = fields.iterator();
        while (it.hasNext()) {
            buf.append(quote(Strings.defaultString(it.next()), separator));
            if (it.hasNext()) {
                buf.append(separator);
            }
        }
        return buf.toString();
    }

    /**
     * Quotes a field if it contains the separator, a quote or a line break.
     *
     * @param field the field, not null
     * @param separator the field separator
     * @return the field as it must be written
     */
    public static String quote(final String field, final char separator) {
        if (field.indexOf(separator) < 0 && field.indexOf(QUOTE) < 0
            && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return QUOTE + field.replace("\"", "\"\"") + QUOTE;
    }
}
