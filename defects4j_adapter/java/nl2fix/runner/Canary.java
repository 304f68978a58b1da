package nl2fix.runner;

/**
 * A few JVM-wide values every later candidate relies on and only deep reflection into the JDK can
 * change: interned string literals, the boxed-integer cache, the boolean constants; and the
 * runner's own words ({@link Words}), the state of the runner's thread and its group as they
 * were before the first job, and the JDK's reflection filter ({@link ReflectionFilters}: hiding a test's
 * field there made the developer's fix judged next {@code wrong}). A job after which one of them is wrong leaves a JVM that must not take
 * another candidate. (The runner's own report does not depend on the interned literals: see
 * {@link Words}.)
 */
final class Canary {
    private Canary() {
    }

    private static final String[] LITERALS = {"pass", "fail", "true", "false", "null", "", "0", "1", "OK"};
    private static final char[][] EXPECTED = new char[LITERALS.length][];

    static {
        for (int i = 0; i < LITERALS.length; i++) {
            EXPECTED[i] = LITERALS[i].toCharArray();
        }
    }

    /** The runner's thread and what a job could change of it without the guard's leave (its
     * fields through deep reflection): taken by {@link #remember} on that thread before any job. */
    private static Thread runner;
    private static String runnerName;
    private static int runnerPriority;
    private static ClassLoader runnerLoader;
    private static int groupPriority;

    static void remember() {
        runner = Thread.currentThread();
        runnerName = new String(runner.getName().toCharArray());
        runnerPriority = runner.getPriority();
        runnerLoader = runner.getContextClassLoader();
        groupPriority = runner.getThreadGroup().getMaxPriority();
    }

    private static boolean runnerIntact() {
        Thread t = Thread.currentThread();
        return t == runner && runnerName.equals(t.getName()) && t.getPriority() == runnerPriority
                && t.getContextClassLoader() == runnerLoader && t.getUncaughtExceptionHandler() == t.getThreadGroup()
                && t.getThreadGroup().getMaxPriority() == groupPriority && !t.isDaemon()
                && SystemLoader.idle() && Words.intact() && ReflectionFilters.intact();
    }

    static boolean intact() {
        return runnerIntact() && jdkIntact();
    }

    /** The JDK's values alone (interned literals, boxes, booleans): what any thread may check, mid-job too. */
    static boolean jdkIntact() {
        for (int i = 0; i < LITERALS.length; i++) {
            if (!java.util.Arrays.equals(LITERALS[i].toCharArray(), EXPECTED[i])) {
                return false;
            }
        }
        for (int i = -128; i < 128; i++) {
            Integer boxed = i;
            if (boxed.intValue() != i || Long.valueOf(i).longValue() != i) {
                return false;
            }
        }
        return Boolean.TRUE.booleanValue() && !Boolean.FALSE.booleanValue()
                && Boolean.parseBoolean(new String(new char[] {'t', 'r', 'u', 'e'}));
    }
}
