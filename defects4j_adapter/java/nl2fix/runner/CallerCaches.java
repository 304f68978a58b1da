package nl2fix.runner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A JDK class keeps the last class that called its {@code newInstance()}: {@code Class}'s private
 * {@code newInstanceCallerCache} on Java 11 (Defects4J's Java; Java 17 keeps the field but no longer writes
 * it), which spares the next call from the same class its access check. A job whose code calls {@code Class.forName(name).newInstance()} on a JDK class (Cli's
 * {@code TypeHandler.createObject}, which {@code PatternOptionBuilderTest} drives with
 * {@code java.util.Vector}) leaves that JDK class holding one of the job's classes, so the job's loader
 * stays reachable and {@link Lifetime} retires the JVM after every such job: each of Cli-9's plausible
 * candidates cost a new JVM for its behaviour probe, and the bug's warm JVM a start after every
 * candidate that ran the test. {@link #forget} clears such entries when a job's loader outlives its
 * first collection; the loader must still go (its phantom reference enqueued) before the JVM takes
 * another job: a cache cleared here only drops a reference, it proves nothing.
 *
 * <p>Needs {@code --add-opens java.base/java.lang=nl2fix.runner} (runner.py's {@code jvm_command}) and
 * nl2fix's native agent, which lists the loaded classes ({@code loaded0}).
 */
final class CallerCaches {
    private CallerCaches() {
    }

    private static final VarHandle NEW_INSTANCE_CALLER = handle();

    private static VarHandle handle() {
        try {
            return MethodHandles.privateLookupIn(Class.class, MethodHandles.lookup())
                    .findVarHandle(Class.class, "newInstanceCallerCache", Class.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Every class the JVM has loaded (JVMTI's {@code GetLoadedClasses}), or null. Bound by the agent. */
    private static native Class<?>[] loaded0();

    /** Clears every {@code newInstanceCallerCache} that holds a job's class, in the classes of no job;
     * whether there was one. */
    static boolean forget() {
        Class<?>[] loaded;
        try {
            loaded = NEW_INSTANCE_CALLER == null ? null : loaded0();
        } catch (UnsatisfiedLinkError noAgent) {
            return false;
        }
        boolean forgot = false;
        for (Class<?> c : loaded == null ? new Class<?>[0] : loaded) {
            Object caller = NEW_INSTANCE_CALLER.getVolatile(c);
            if (caller instanceof Class && ofJob((Class<?>) caller) && !ofJob(c)) {
                NEW_INSTANCE_CALLER.setVolatile(c, (Class<?>) null);
                forgot = true;
            }
        }
        return forgot;
    }

    /** A class no built-in loader, the runner's or its system loader defined: a job's (the project's, its
     * tests', the candidate's, or one its code defined). */
    private static boolean ofJob(Class<?> c) {
        ClassLoader loader = c.getClassLoader();
        return loader != null && loader != ClassLoader.getPlatformClassLoader()
                && loader != CallerCaches.class.getClassLoader() && loader != ClassLoader.getSystemClassLoader();
    }
}
