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
