package nl2fix.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /** A quoted string (its escapes included, and the length a cut one ends with), a double as
     * {@code Double.toString} writes it, or a run of anything else. */
    private static final Pattern TOKEN = Pattern.compile(
            "\"(?:[^\"\\\\]|\\\\.)*\"(?:\\(\\d+\\))?|(-?\\d+\\.\\d+(?:E-?\\d+)?)(?![\\dfLE.])|[^\"\\d-]+|.");

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

    /** Each token's text, and its double's text where it is one (else null). */
    private static List<String[]> tokens(String text) {
        List<String[]> out = new ArrayList<>();
        Matcher m = TOKEN.matcher(text);
        while (m.find()) {
            out.add(new String[] {m.group(), m.group(1)});
        }
        return out;
    }
}
