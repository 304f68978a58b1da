package nl2fix.runner;

/** Ends the threads and processes a candidate's tests left behind, so none keeps running into
 * the next candidate (or holds on to the sandbox's process limit). */
final class Threads {
    private Threads() {
    }

    /** True when the code under test had started no process that is still there. */
    static boolean killProcesses() {
        boolean[] none = {true};
        ProcessHandle.current().descendants().forEach(p -> {
            none[0] = false;
            p.destroyForcibly();
        });
        return none[0];
    }

    /** True when a thread that was not there before is still alive: whoever started it, it could
     * read the next job's line from standard input, so the JVM must not take another job. */
    static boolean outlived(java.util.Set<Thread> before) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !before.contains(t)) {
                return true;
            }
        }
        return false;
    }

    /** The live threads of {@code group} now. */
    static java.util.Set<Thread> of(ThreadGroup group) {
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        return new java.util.HashSet<>(java.util.Arrays.asList(threads).subList(0, n));
    }

    /** Ends the threads of {@code group} that are not among {@code before} (what one call of the code under
     * test started: none lives on into the next, where it could hold what the earlier one saw). */
    @SuppressWarnings({"deprecation", "removal"})
    static void stopNew(ThreadGroup group, java.util.Set<Thread> before) {
        for (Thread t : of(group)) {
            if (!before.contains(t)) {
                t.stop();
            }
        }
    }

    /** True when every thread of the group is gone. */
    @SuppressWarnings({"deprecation", "removal"})
    static boolean stopAll(ThreadGroup group) throws InterruptedException {
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        if (n == 0) {
            return true;
        }
        for (int i = 0; i < n; i++) {
            threads[i].interrupt();
        }
        long deadline = System.nanoTime() + 1_000_000_000L;
        for (int i = 0; i < n; i++) {
            threads[i].join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            if (threads[i].isAlive()) {
                threads[i].stop();
            }
        }
        deadline = System.nanoTime() + 1_000_000_000L;
        boolean clean = true;
        for (int i = 0; i < n; i++) {
            threads[i].join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            clean &= !threads[i].isAlive();
        }
        return clean;
    }
}
