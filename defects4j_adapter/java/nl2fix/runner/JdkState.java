package nl2fix.runner;

import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Properties;
import java.util.TimeZone;

/** The JDK-wide settings code under test may change (system properties, default locale and
 * time zone, standard streams, the default handler of uncaught exceptions), saved before a candidate and put back after,
 * so a warm JVM gives the next candidate the same start. */
final class JdkState {
    private static final long OUTPUT_LIMIT = 1L << 20;

    private final Properties properties = (Properties) System.getProperties().clone();
    private final Locale locale = Locale.getDefault();
    private final Locale formatLocale = Locale.getDefault(Locale.Category.FORMAT);
    private final Locale displayLocale = Locale.getDefault(Locale.Category.DISPLAY);
    private final TimeZone timeZone = TimeZone.getDefault();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final InputStream in = System.in;
    private final Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();

    /** Fresh bounded standard streams for the code under test (they go to standard error). */
    static void isolateStreams() {
        PrintStream sink = new PrintStream(new BoundedStream(new FileOutputStream(FileDescriptor.err), OUTPUT_LIMIT), true);
        System.setOut(sink);
        System.setErr(sink);
        System.setIn(new ByteArrayInputStream(new byte[0]));
    }

    void restore() {
        System.setProperties((Properties) properties.clone());
        Locale.setDefault(locale);
        Locale.setDefault(Locale.Category.FORMAT, formatLocale);
        Locale.setDefault(Locale.Category.DISPLAY, displayLocale);
        TimeZone.setDefault(timeZone);
        System.setOut(out);
        System.setErr(err);
        System.setIn(in);
        Thread.setDefaultUncaughtExceptionHandler(handler);
    }
}
