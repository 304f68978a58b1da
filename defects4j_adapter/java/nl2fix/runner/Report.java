package nl2fix.runner;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;

/**
 * The machine-readable channel: one {@code NL2FIX<TAB>KIND<TAB>field...} line per event on the
 * JVM's real standard output, which only the runner writes to (the code under test gets
 * {@link BoundedStream}s instead). Fields escape backslash, tab, CR and LF; the Python side
 * ({@code defects4j_adapter/runner_output.py}) reads the same format.
 */
final class Report {
    private static final int FIELD_LIMIT = 4000;
    private final PrintStream out;

    Report() throws UnsupportedEncodingException {
        this.out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
    }

    static String escape(String text) {
        if (text == null) {
            return "";
        }
        String clipped = text.length() > FIELD_LIMIT ? text.substring(0, FIELD_LIMIT) + "..." : text;
        StringBuilder b = new StringBuilder(clipped.length() + 16);
        for (int i = 0; i < clipped.length(); i++) {
            char c = clipped.charAt(i);
            switch (c) {
                case '\\': b.append("\\\\"); break;
                case '\t': b.append("\\t"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                default: b.append(c);
            }
        }
        return b.toString();
    }

    /** Each line starts on a line of its own: code under test can still write to the real
     * standard output ({@code new FileOutputStream(FileDescriptor.out)}, a child process that
     * inherits it), and text it leaves without a line break would otherwise run into the next
     * report line and hide it (a failing test's) from the reader. */
    synchronized void line(String kind, String... fields) {
        StringBuilder b = new StringBuilder("\nNL2FIX\t").append(kind);
        for (String f : fields) {
            b.append('\t').append(escape(f));
        }
        out.print(b.append('\n'));
        out.flush();
    }
}
