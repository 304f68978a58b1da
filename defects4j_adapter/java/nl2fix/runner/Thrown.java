package nl2fix.runner;

/**
 * What ended a test or a test class by being thrown, as JUnit itself was handed it: JUnit 4 catches
 * whatever a test's statement throws and gives it to {@code EachTestNotifier.addFailure}, which
 * reports the failures a multiple-failure exception carries instead of the exception itself, so an
 * empty one (made by deserialization, no JUnit name in the candidate's bytecode) reports nothing and
 * the test would count as passed. {@link JUnitHook} puts a call of {@link #reported} first in that
 * method; the executor takes what was reported when the test finishes and, when JUnit reported no
 * failure for it, fails the test itself: a test passes only when its statement completed.
 *
 * <p>Public only so that JUnit's patched class (in the unnamed module) can call {@link #reported};
 * code under test calling it can only fail its own test. What it keeps is read from this package only.
 */
public final class Thrown {
    private Thrown() {
    }

    private static volatile Thread watched;
    private static volatile Throwable first;

    /** JUnit is handed {@code t} as a test's or a class's failure. The first since the last {@link
     * #take} is kept: the one a test's statement threw (JUnit calls this again for each failure a
     * multiple-failure exception carries). */
    public static void reported(Throwable t) {
        if (Thread.currentThread() == watched && first == null) {
            first = t == null ? new NullPointerException("null thrown") : t;
        }
    }

    /** From now on, what {@code thread} reports is kept. */
    static void watch(Thread thread) {
        watched = thread;
        first = null;
    }

    /** What was reported since the last call (null for nothing), forgotten. */
    static Throwable take() {
        Throwable t = first;
        first = null;
        return t;
    }

    /** Whether the JUnit this JVM runs calls {@link #reported}: an object is reported through JUnit
     * on the calling thread (the runner's, before any test thread of the job starts) and looked for. */
    static boolean hooked() {
        Throwable marker = new IllegalStateException("nl2fix: is JUnit's reporting hooked?");
        watch(Thread.currentThread());
        try {
            new org.junit.internal.runners.model.EachTestNotifier(new org.junit.runner.notification.RunNotifier(),
                    org.junit.runner.Description.createSuiteDescription("nl2fix")).addFailure(marker);
        } catch (Throwable t) {
            // a JUnit without this class (older than 4.5) cannot be hooked
        }
        boolean seen = take() == marker;
        watch(null);
        return seen;
    }
}
