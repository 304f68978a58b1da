package nl2fix.runner;

import java.util.ArrayList;
import java.util.List;

/**
 * Two outcomes (their snapshots, {@link Graphs}) that differ only in doubles at most {@link #ULPS} units in the last
 * place apart: the same behaviour. The same sum taken in another order, or a product divided before it is multiplied,
 * rounds otherwise: RepairBench's answers to Math-2 compute {@code n * m / N} whole, where the fix divides {@code m / N}
 * first, and on a distribution its constructor built one step from a test's the two means are one ulp apart
 * ({@code 49.82123583855339} and {@code 49.8212358385534}); no caller of a double can rely on its last bits, and a
 * patch no judge would call overfitting must not {@code diverge} for them. Strings (quoted) and every other value
 * (integers, floats, names) are compared exactly, and so are infinities and NaN.
 */
final class Ulps {
    private Ulps() {
    }

    /** Units in the last place two doubles may be apart: a few roundings. */
    static final int ULPS = 4;

    /** Whether {@code a} and {@code b} read alike but for doubles at most {@link #ULPS} apart. */
    static boolean alike(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        List<String[]> x = tokens(a);
        List<String[]> y = tokens(b);
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            String[] s = x.get(i);
            String[] t = y.get(i);
            if (s[0].equals(t[0])) {
                continue;
            }
            if (s[1] == null || t[1] == null || !close(Double.parseDouble(s[1]), Double.parseDouble(t[1]))) {
                return false;
            }
        }
        return true;
    }

    private static boolean close(double a, double b) {
        if (!Double.isFinite(a) || !Double.isFinite(b)) {
            return false;
        }
        return Math.abs(a - b) <= ULPS * Math.ulp(Math.max(Math.abs(a), Math.abs(b)));
    }

    /** Each token's text, and its double's text where it is one (else null): a quoted string (its escapes included, and
     * the length a cut one ends with), a number, or a run of anything else. Read by hand, not by a pattern: a pattern's
     * repeated group recurses once a character, and a long string overflowed the stack. */
    private static List<String[]> tokens(String text) {
        List<String[]> out = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            int start = i;
            char c = text.charAt(i);
            String number = null;
            if (c == '"') {
                i++;
                while (i < n && text.charAt(i) != '"') {
                    i += text.charAt(i) == '\\' ? 2 : 1;
                }
                i = Math.min(n, i + 1);
                int j = digits(text, i + 1);
                if (i < n && text.charAt(i) == '(' && j > i + 1 && j < n && text.charAt(j) == ')') {
                    i = j + 1;
                }
            } else if (Character.isDigit(c) || c == '-' && i + 1 < n && Character.isDigit(text.charAt(i + 1))) {
                i = digits(text, i + 1);
                boolean fraction = i + 1 < n && text.charAt(i) == '.' && Character.isDigit(text.charAt(i + 1));
                if (fraction) {
                    i = digits(text, i + 1);
                    int e = i + 1 < n && text.charAt(i + 1) == '-' ? i + 2 : i + 1;
                    if (i < n && text.charAt(i) == 'E' && e < n && Character.isDigit(text.charAt(e))) {
                        i = digits(text, e);
                    }
                }
                // a float (2.5f), a long or a name's digits after a dot are no double
                boolean more = i < n && "fLE.".indexOf(text.charAt(i)) >= 0;
                number = fraction && !more ? text.substring(start, i) : null;
            } else {
                i++;
                while (i < n && text.charAt(i) != '"' && text.charAt(i) != '-' && !Character.isDigit(text.charAt(i))) {
                    i++;
                }
            }
            out.add(new String[] {text.substring(start, i), number});
        }
        return out;
    }

    /** The index after the digits from {@code i} on. */
    private static int digits(String text, int i) {
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
