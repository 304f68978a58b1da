package nl2fix.runner;

import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/** The JDK-wide settings code under test may change (system properties, default locale and
 * time zone, standard streams, the default handler of uncaught exceptions, {@code java.util.logging}'s
 * loggers), saved before a candidate and put back after, so a warm JVM gives the next candidate the same start.
 *
 * <p>Logging: every logger's level, handlers, filter and use of its parent's handlers are put back, and a
 * logger the job made gets none; a handler is a JDK object that holds no class of the job (a
 * {@code FileHandler} on the root logger writes into the next jobs' folders whenever they log: the red
 * team's {@code write_door/}), so {@link Lifetime} would not see it. LogManager's configuration itself
 * (its properties, which name classes it makes later) cannot be read back or compared, only watched: a
 * job that read one ({@code readConfiguration}/{@code updateConfiguration}, which the class-file check
 * refuses unless the buggy version does it) retires the JVM ({@link #reconfigured}). */
final class JdkState {
    private static final long OUTPUT_LIMIT = 1L << 20;
    private static final AtomicBoolean RECONFIGURED = new AtomicBoolean();
    private static final AtomicBoolean LISTENING = new AtomicBoolean();

    private final Properties properties = (Properties) System.getProperties().clone();
    private final Locale locale = Locale.getDefault();
    private final Locale formatLocale = Locale.getDefault(Locale.Category.FORMAT);
    private final Locale displayLocale = Locale.getDefault(Locale.Category.DISPLAY);
    private final TimeZone timeZone = TimeZone.getDefault();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final InputStream in = System.in;
    private final Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
    private final Map<Logger, LoggerState> loggers = loggers();

    JdkState() {
        // set up at the first job that runs code (the loggers' snapshot above starts the LogManager), not at
        // the JVM's start: LogManager's start costs about 0.1 CPU-s, which a compiling JVM never needs
        if (LISTENING.compareAndSet(false, true)) {
            LogManager.getLogManager().addConfigurationListener(() -> RECONFIGURED.set(true));
        }
    }

    /** One logger's settings a job may change. */
    private static final class LoggerState {
        final Level level;
        final List<Handler> handlers;
        final Filter filter;
        final boolean useParentHandlers;

        LoggerState(Logger logger) {
            level = logger.getLevel();
            handlers = Arrays.asList(logger.getHandlers());
            filter = logger.getFilter();
            useParentHandlers = logger.getUseParentHandlers();
        }

        /** The settings of a logger nobody configured. */
        LoggerState() {
            level = null;
            handlers = Collections.emptyList();
            filter = null;
            useParentHandlers = true;
        }

        void restore(Logger logger) {
            if (!new LoggerState(logger).same(this)) {
                logger.setLevel(level);
                logger.setFilter(filter);
                logger.setUseParentHandlers(useParentHandlers);
                for (Handler h : logger.getHandlers()) {
                    logger.removeHandler(h);
                }
                for (Handler h : handlers) {
                    logger.addHandler(h);
                }
            }
        }

        private boolean same(LoggerState o) {
            if (level != o.level || filter != o.filter || useParentHandlers != o.useParentHandlers
                    || handlers.size() != o.handlers.size()) {
                return false;
            }
            // by identity: a handler's equals may be the code under test's
            for (int i = 0; i < handlers.size(); i++) {
                if (handlers.get(i) != o.handlers.get(i)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Every logger of the JDK's own class the LogManager knows now: one of a class of the code under test's
     * ({@code LogManager#addLogger} asks no permission) is not asked anything, as its methods are that code's
     * (see {@link #foreignLoggers}). */
    private static List<Logger> known() {
        List<Logger> found = new ArrayList<>();
        for (Logger logger : registered()) {
            if (ownClass(logger)) {
                found.add(logger);
            }
        }
        return found;
    }

    /** How many loggers the LogManager knows now whose class is not the JDK's: one the code under test added
     * lasts beyond its call, and whoever asks for a logger of that name gets it. */
    static int foreignLoggers() {
        int n = 0;
        for (Logger logger : registered()) {
            n += ownClass(logger) ? 0 : 1;
        }
        return n;
    }

    private static List<Logger> registered() {
        LogManager manager = LogManager.getLogManager();
        List<Logger> found = new ArrayList<>();
        for (String name : Collections.list(manager.getLoggerNames())) {
            Logger logger = manager.getLogger(name);
            if (logger != null) {
                found.add(logger);
            }
        }
        return found;
    }

    private static boolean ownClass(Logger logger) {
        ClassLoader loader = logger.getClass().getClassLoader();
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    /** Each logger's settings (the loggers held strongly until the job's end, so that each is put back). */
    private static Map<Logger, LoggerState> loggers() {
        Map<Logger, LoggerState> found = new HashMap<>();
        for (Logger logger : known()) {
            found.put(logger, new LoggerState(logger));
        }
        return found;
    }

    /** Whether code read a logging configuration since the last call of {@link #takeReconfigured} (which this
     * leaves as it is). */
    static boolean reconfigured() {
        return RECONFIGURED.get();
    }

    /** Whether code read a logging configuration since the last call: after a job, the JVM then takes no further
     * one. Not reset by a {@code JdkState} made within a job (a probe's, around each call of the candidate). */
    static boolean takeReconfigured() {
        return RECONFIGURED.getAndSet(false);
    }

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
        LoggerState unset = new LoggerState();
        for (Logger logger : known()) {
            loggers.getOrDefault(logger, unset).restore(logger);
        }
    }
}
