package nl2fix.runner;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The common fork-join pool's workers, made as a plain JVM makes them. With a security manager installed the
 * JDK gives the common pool its innocuous workers ({@code ForkJoinWorkerThread$InnocuousForkJoinWorkerThread},
 * in a thread group of their own), and a task that read its thread's class was the fix only under nl2fix,
 * with no permission asked ({@code tests/fixtures/redteam/found12/pool_worker}). The runner names this factory
 * as the common pool's before the pool exists ({@link #makeCommon}), and it makes the workers through the
 * constructor the JDK's own factory calls where no security manager is, with the same arguments (Java 17:
 * the system class loader as context loader, thread-locals erased after each task; Java 11: the system class
 * loader): a daemon in the group of the thread that asks for it (a test's, named {@code main} as a plain
 * run's). Needs {@code --add-opens java.base/java.util.concurrent=nl2fix.runner}, to the runner alone.
 *
 * <p>The factory itself is not the JDK's: {@code ForkJoinPool#getFactory} is refused by the class-file check and
 * the pool's {@code factory} field and {@code getFactory} are hidden from reflection (a project's reflective
 * helper would read them for the candidate). What the innocuous workers guard against does not reach a later
 * job: they carry no permissions (the guard grants by the stack, not by the thread: {@link ReflectionWall}
 * counts any job class off the test threads), and a worker is a thread the job did not find, so a job that
 * made one leaves a JVM that takes no further job ({@code Threads#outlived}): no worker serves two jobs.
 */
public final class PoolWorkers implements ForkJoinPool.ForkJoinWorkerThreadFactory {
    private static final String COMMON_FACTORY = "java.util.concurrent.ForkJoinPool.common.threadFactory";
    /** Java 17's {@code ForkJoinWorkerThread(ThreadGroup, ForkJoinPool, boolean useSystemClassLoader,
     * boolean clearThreadLocals)}, or else Java 11's {@code ForkJoinWorkerThread(ForkJoinPool, ClassLoader)}. */
    private static final Constructor<ForkJoinWorkerThread> PLAIN = plain();

    /** Made by the JDK when the common pool is ({@link #makeCommon}). */
    public PoolWorkers() {
    }

    private static Constructor<ForkJoinWorkerThread> plain() {
        Constructor<ForkJoinWorkerThread> c;
        try {
            try {
                c = ForkJoinWorkerThread.class.getDeclaredConstructor(
                        ThreadGroup.class, ForkJoinPool.class, boolean.class, boolean.class);
            } catch (NoSuchMethodException java11) {
                c = ForkJoinWorkerThread.class.getDeclaredConstructor(ForkJoinPool.class, ClassLoader.class);
            }
            c.setAccessible(true);
            return c;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("ForkJoinWorkerThread's constructors cannot be reached"
                    + " (java.base/java.util.concurrent not opened to the runner?)", e);
        }
    }

    /** Makes the common pool with this factory: before the security manager and before any code that
     * could make the pool first; the property that names the factory is gone again before any job. False
     * where this JDK has no reflection filter to hide the factory in (the runner says so). */
    static boolean makeCommon() {
        System.setProperty(COMMON_FACTORY, PoolWorkers.class.getName());
        try {
            if (!(ForkJoinPool.commonPool().getFactory() instanceof PoolWorkers)) {
                throw new IllegalStateException("the common pool was made before the runner named its workers' factory");
            }
        } finally {
            System.clearProperty(COMMON_FACTORY);
        }
        return ReflectionFilters.hideForGood("Fields", ForkJoinPool.class, Set.of("factory"))
                & ReflectionFilters.hideForGood("Methods", ForkJoinPool.class, Set.of("getFactory"));
    }

    @Override
    public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
        try {
            return PLAIN.getParameterCount() == 4 ? PLAIN.newInstance(null, pool, true, true)
                    : PLAIN.newInstance(pool, ClassLoader.getSystemClassLoader());
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
