package nl2fix.runner;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;

/**
 * No code of a job runs after it ends, in any thread. {@link Threads} ends the threads a job
 * started; but the JDK runs code in threads of its own that were there before the job and stay
 * (the common fork-join pool's workers, the finalizer, cleaners, a timer or scheduler an earlier
 * job started), and a job can hand them work: a task that keeps running or is queued to run later,
 * an object whose {@code finalize} or cleaning action calls back into the job's classes. Such code
 * made the candidate judged next time out (by holding a lock, or just the JVM's CPU).
 *
 * <p>Every class of a job (the candidate's, the project's, its tests') is defined by the job's own
 * loader, named {@link #LOADER}, and whatever can run a job's code later holds one of them: a
 * queued task is an object of a job's class, a pending finalization or cleaning action too. So
 * after the job the loader must become unreachable: its {@link PhantomReference} is enqueued only
 * once no object, finalizable or not, holds it. One full collection shows that for most jobs; for
 * the others the JDK's caches of a caller class are cleared ({@link CallerCaches}), then the JVM's
 * last resort follows, collections that also clear every soft reference (a
 * JDK cache may hold a job's class softly: bean introspection does), after the finalizer has run
 * what the first one found. A finalizer that has not ended by then, or one that put the job's
 * objects back where something reaches them, keeps the loader. Besides: no live thread may have a
 * frame of a job's class, and the common pool must be quiet (a job may have sorted a large array
 * in parallel, which holds no class of its own), and no more of the heap, of direct buffers or of
 * open files may stay held than a later job can spare. A JVM that cannot show all of it takes no further job. Creating no thread here
 * is deliberate: a job's code may hold {@code Thread.class}'s lock, which every new thread takes.
 *
 * <p>One full collection costs a few milliseconds here (the serial collector over a heap that is
 * mostly the JDK, JUnit and the runner) and leaves the next job a clean heap.
 */
final class Lifetime {
    private Lifetime() {
    }

    /** The name of every job's class loader: the JDK's own application loader's, which is what a plain
     * JUnit run's classes show wherever the JDK names their loader (a {@code ClassCastException}'s message:
     * {@code loader 'app'}); a name of nl2fix's own told a candidate that nl2fix ran it
     * ({@code tests/fixtures/redteam/found6/loader_name}). */
    static final String LOADER = "app";

    private static final long ENQUEUE_MS = 1_000;
    private static final long QUIET_MS = 1_000;
    /** Written so the allocation of {@link #clearSoftReferences} cannot be compiled away. */
    private static volatile int sink;
    /** More files a job may leave open (until a collection closes them) without retiring the JVM. */
    private static final int FILES = 256;
    /** What the JVM held before the first job ({@link #rememberHeld}); -1 where nothing was taken. */
    private static long heapAtStart = -1;
    private static long buffersAtStart;
    private static final java.lang.invoke.MethodHandle RESERVED = reserved();
    private static long filesAtStart;

    /** Watches a job's loader; {@link Watch#left} says what the job left behind. */
    static final class Watch {
        private final ReferenceQueue<ClassLoader> queue = new ReferenceQueue<>();
        private final PhantomReference<ClassLoader> loader;

        Watch(ClassLoader loader) {
            this.loader = new PhantomReference<>(loader, queue);
        }

        /** What of the job may still run, or null when nothing can: call it once the caller holds
         * nothing of the job (its loader closed and dropped). */
        String left() throws InterruptedException {
            Runtime.getRuntime().gc();
            boolean gone = queue.remove(ENQUEUE_MS) == loader;
            if (!gone && CallerCaches.forget()) {
                // a JDK class held a class of the job as its last newInstance caller
                Runtime.getRuntime().gc();
                gone = queue.remove(ENQUEUE_MS) == loader;
            }
            if (!gone) {
                // a JDK cache may hold a class of the job softly (bean introspection does), and an
                // object of the job may have been waiting for its finalizer (which has run since)
                clearSoftReferences();
                gone = queue.remove(ENQUEUE_MS) == loader;
            }
            String frame = frame();
            return frame != null ? "a thread runs the job's code: " + frame
                    : !gone ? "the job's class loader is still reachable"
                    : !quiet() ? "the common pool is busy" : kept();
        }
    }

    /** Takes what the JVM holds before the first job: the heap in use, its direct buffers, its open files. No
     * collection first: one costs every JVM's start 35 ms of CPU, and what the start left for the collector only
     * loosens the bound by as much. */
    static void rememberHeld() {
        heapAtStart = heapUsed();
        buffersAtStart = buffersUsed();
        filesAtStart = filesOpen();
    }

    /** What the job left held that a later job may be denied, or null. A JDK-wide table, a JDK thread's
     * thread-local, a class's {@code ClassValue} entry that outlives the class (red team 13's
     * {@code heap_squat}, {@code direct_squat}) can hold a job's objects of the JDK's classes (no class of the
     * job among them, so its loader goes): the next candidate's tests would run out of heap, of direct buffer
     * memory or of file descriptors there. A quarter of the heap (the direct buffers' limit is the heap's),
     * so that what the JDK keeps growing (its caches, soft references) never retires a JVM; buffers and files
     * are freed by the JDK's cleaners after a collection, so they are given a moment. */
    private static String kept() throws InterruptedException {
        if (heapAtStart < 0) {
            return null;
        }
        long quarter = Runtime.getRuntime().maxMemory() / 4;
        if (heapUsed() > heapAtStart + quarter) {
            clearSoftReferences();
            if (heapUsed() > heapAtStart + quarter) {
                return "the job left " + mb(heapUsed() - heapAtStart) + " MB of the heap reachable";
            }
        }
        long deadline = System.nanoTime() + QUIET_MS * 1_000_000L;
        while (buffersUsed() > buffersAtStart + quarter || filesOpen() > filesAtStart + FILES) {
            if (System.nanoTime() > deadline) {
                return buffersUsed() > buffersAtStart + quarter
                        ? "the job left " + mb(buffersUsed() - buffersAtStart) + " MB of direct buffers held"
                        : "the job left " + (filesOpen() - filesAtStart) + " files open";
            }
            Thread.sleep(10);
        }
        return null;
    }

    private static long mb(long bytes) {
        return bytes / (1024 * 1024);
    }

    private static long heapUsed() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** The memory the JVM's direct buffers reserve ({@code java.nio.Bits}' count, which a direct buffer's
     * allocation checks against its limit): read in place, where the platform's buffer-pool bean loads tens of
     * milliseconds of classes into every JVM. Needs {@code --add-opens java.base/java.nio=nl2fix.runner}; 0 where
     * this JDK keeps no such count. */
    private static long buffersUsed() {
        try {
            return RESERVED == null ? 0 : ((java.util.concurrent.atomic.AtomicLong) RESERVED.invoke()).get();
        } catch (Throwable e) {
            return 0;
        }
    }

    private static java.lang.invoke.MethodHandle reserved() {
        try {
            Class<?> bits = Class.forName("java.nio.Bits");
            return java.lang.invoke.MethodHandles.privateLookupIn(bits, java.lang.invoke.MethodHandles.lookup())
                    .findStaticGetter(bits, "RESERVED_MEMORY", java.util.concurrent.atomic.AtomicLong.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The JVM's open file descriptors; 0 where the system does not list them. */
    private static long filesOpen() {
        String[] open = new java.io.File("/proc/self/fd").list();
        return open == null ? 0 : open.length;
    }

    /** Full collections that clear every soft reference: the JVM makes them before it gives up on
     * an allocation, so ask for more than the heap can hold. */
    private static void clearSoftReferences() {
        try {
            sink = new long[(int) Math.min(Integer.MAX_VALUE - 8, Runtime.getRuntime().maxMemory() / 8 + 1)].length;
        } catch (OutOfMemoryError expected) {
            // what was asked for
        }
    }

    /** The common pool has no task queued or running. */
    private static boolean quiet() throws InterruptedException {
        ForkJoinPool pool = ForkJoinPool.commonPool();
        long deadline = System.nanoTime() + QUIET_MS * 1_000_000L;
        while (pool.getActiveThreadCount() > 0 || pool.getQueuedSubmissionCount() > 0 || pool.getQueuedTaskCount() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** A live thread (the JDK's own included) running code of a job's class right now, and where;
     * or null. */
    private static String frame() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey() == Thread.currentThread() || !e.getKey().isAlive()) {
                continue;
            }
            for (StackTraceElement frame : e.getValue()) {
                // the JDK's own "app" loader (JUnit's) shares the name; a frame of a built-in loader
                // prints without it (StackTraceElement#toString's documented form), a job loader's with it
                if (frame.toString().startsWith(LOADER + "/")) {
                    return e.getKey().getName() + " at " + frame;
                }
            }
        }
        return null;
    }
}
