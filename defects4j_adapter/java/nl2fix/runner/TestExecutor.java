package nl2fix.runner;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.runner.Description;
import org.junit.runner.Request;
import org.junit.runner.Runner;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;
import org.junit.runner.notification.RunNotifier;
import org.junit.runner.notification.StoppedByUserException;

/**
 * Runs a candidate's trigger tests (single methods) and then its relevant test classes (minus
 * the tests already run), each JUnit run in its own thread under a watchdog: a test that takes
 * longer than the per-test limit is reported as timed out and its thread stopped. With
 * stop-at-first-failure, the first failing test that is not a known failure ends the run.
 */
final class TestExecutor {
    private static final String FILTER_CLASS = Filter.class.getName();
    private static final int TRACE_LIMIT = 3000;

    private final ClassLoader loader;
    private final Report report;
    private final nl2fix.runner.Request job;
    private final ThreadGroup group;
    private final Set<String> done = new HashSet<>();
    /** Every test and class result, in order, for the signed report {@link Main} writes once the
     * code under test has stopped. Only the runner's stack frames reach this executor. */
    final List<String[]> results = java.util.Collections.synchronizedList(new ArrayList<String[]>());
    volatile boolean stopped;
    /** A test thread would not die: the JVM cannot be trusted with another candidate. */
    volatile boolean poisoned;
    /** The JVM survived something (out of memory) after which a fresh one is safer. */
    volatile boolean restartAdvised;

    TestExecutor(ClassLoader loader, Report report, nl2fix.runner.Request job, ThreadGroup group) {
        this.loader = loader;
        this.report = report;
        this.job = job;
        this.group = group;
    }

    private void record(String kind, String... fields) {
        String[] row = new String[fields.length + 1];
        row[0] = kind;
        System.arraycopy(fields, 0, row, 1, fields.length);
        results.add(row);
    }

    /** A progress line now (what the harness blames when the JVM dies mid-test) and the same
     * event in the signed report. */
    private void event(String kind, String value) {
        report.line(kind, value);
        record(kind, value);
    }

    static String name(Description d) {
        return d.getMethodName() == null ? d.getClassName() : d.getClassName() + "::" + d.getMethodName();
    }

    private static boolean classLevel(Description d) {
        return d.getMethodName() == null || "initializationError".equals(d.getMethodName());
    }

    private static String trace(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        String s = w.toString();
        return s.length() > TRACE_LIMIT ? s.substring(0, TRACE_LIMIT) + "..." : s;
    }

    void runAll() {
        event("PHASE", "trigger");
        for (String spec : job.triggers) {
            if (stopped) {
                return;
            }
            int sep = spec.indexOf("::");
            if (sep < 0) {
                runClass(spec, null);
                continue;
            }
            Class<?> c = load(spec.substring(0, sep));
            if (c != null) {
                run(Request.method(c, spec.substring(sep + 2)), spec.substring(0, sep), spec);
            }
        }
        event("PHASE", "relevant");
        for (String cls : job.relevant) {
            if (stopped) {
                return;
            }
            runClass(cls, done);
        }
    }

    private void runClass(String cls, final Set<String> skip) {
        Class<?> c = load(cls);
        if (c == null) {
            return;
        }
        Request request = Request.aClass(c);
        if (skip != null && !skip.isEmpty()) {
            request = request.filterWith(new Filter() {
                @Override
                public boolean shouldRun(Description d) {
                    return d.getMethodName() == null || !skip.contains(name(d));
                }

                @Override
                public String describe() {
                    return "tests not run yet";
                }
            });
        }
        run(request, cls, null);
    }

    private Class<?> load(String cls) {
        try {
            return Class.forName(cls, false, loader);
        } catch (Throwable t) {
            classFailure(cls, t.toString() + "\n" + trace(t));
            return null;
        }
    }

    private void classFailure(String cls, String message) {
        record("CLASS", cls, message);
        done.add(cls);
        failed(cls);
    }

    private void failed(String test) {
        if (job.stopAtFirstFailure && !job.known.contains(test)) {
            stopped = true;
        }
    }

    private void run(Request request, String label, String triggerSpec) {
        final Runner runner;
        try {
            runner = request.getRunner();
        } catch (Throwable t) {
            classFailure(label, trace(t));
            return;
        }
        final RunNotifier notifier = new RunNotifier();
        final Listener listener = new Listener(notifier, triggerSpec);
        notifier.addListener(listener);
        final Throwable[] crash = new Throwable[1];
        Thread thread = new Thread(group, () -> {
            try {
                runner.run(notifier);
            } catch (StoppedByUserException e) {
                // stop-at-first-failure skips the rest of this run on purpose; thrown by the
                // code under test instead, it would end the class without a failure
                if (!stopped) {
                    crash[0] = e;
                }
            } catch (Throwable t) {
                crash[0] = t;
            }
        }, "nl2fix-tests");
        thread.setContextClassLoader(loader);
        thread.setDaemon(true);
        thread.start();
        watch(thread, listener, notifier, label);
        // ThreadDeath is the watchdog's own doing only when it stopped a test of this run; JUnit 3
        // lets any other (the code under test throwing it) end the class without a failure
        if (crash[0] != null && !(crash[0] instanceof ThreadDeath && !listener.timedOut.isEmpty())) {
            classFailure(label, trace(crash[0]));
        }
    }

    @SuppressWarnings({"deprecation", "removal"})
    private void watch(Thread thread, Listener listener, RunNotifier notifier, String label) {
        long limit = job.testTimeoutMs * 1_000_000L;
        String killed = null;
        int kills = 0;
        while (thread.isAlive()) {
            try {
                thread.join(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = System.nanoTime();
            if (!thread.isAlive() || now - listener.lastEvent < limit) {
                continue;
            }
            Description cur = listener.current;
            String test = cur == null ? label : name(cur);
            if (!test.equals(killed)) {
                killed = test;
                kills = 0;
                listener.timedOut.add(test);
                done.add(test);
                record("TEST", "timeout", test, Long.toString(job.testTimeoutMs), "test timed out after " + job.testTimeoutMs + " ms");
                if (job.stopAtFirstFailure && !job.known.contains(test)) {
                    stopped = true;
                }
            }
            if (stopped) {
                notifier.pleaseStop();
            }
            thread.stop();
            if (++kills >= 4) {
                poisoned = true;
                stopped = true;
                return;
            }
            // give the stopped test a moment to unwind before judging it again
            listener.lastEvent = now - limit + 500_000_000L;
        }
    }

    private final class Listener extends RunListener {
        private final RunNotifier notifier;
        private final String triggerSpec;
        private final Map<String, Failure> failures = new HashMap<>();
        private final Set<String> assumptions = new HashSet<>();
        final Set<String> timedOut = java.util.Collections.synchronizedSet(new HashSet<String>());
        volatile Description current;
        volatile long lastEvent = System.nanoTime();
        private long startedAt;

        Listener(RunNotifier notifier, String triggerSpec) {
            this.notifier = notifier;
            this.triggerSpec = triggerSpec;
        }

        @Override
        public void testStarted(Description d) {
            if (classLevel(d)) {
                return;
            }
            ExitGuard.takeExitAttempt();
            startedAt = System.nanoTime();
            lastEvent = startedAt;
            current = d;
            event("BEGIN", name(d));
        }

        @Override
        public void testFailure(Failure f) {
            Description d = f.getDescription();
            Throwable e = f.getException();
            if (e instanceof OutOfMemoryError) {
                restartAdvised = true;
            }
            if (FILTER_CLASS.equals(d.getClassName())) {
                // Request.method found no such test: a trigger test that does not exist
                if (triggerSpec != null) {
                    record("TEST", "fail", triggerSpec, "0", "no such test: " + f.getMessage());
                    done.add(triggerSpec);
                    failed(triggerSpec);
                    maybeStop();
                }
                return;
            }
            if (classLevel(d)) {
                String exit = ExitGuard.takeExitAttempt();
                classFailure(d.getClassName(), (exit == null ? "" : exit + "\n") + trace(e));
                maybeStop();
                return;
            }
            failures.put(name(d), f);
        }

        @Override
        public void testAssumptionFailure(Failure f) {
            assumptions.add(name(f.getDescription()));
        }

        @Override
        public void testIgnored(Description d) {
            record("TEST", "skip", name(d), "0", "ignored");
        }

        @Override
        public void testFinished(Description d) {
            if (classLevel(d)) {
                return;
            }
            String n = name(d);
            current = null;
            lastEvent = System.nanoTime();
            done.add(n);
            if (timedOut.contains(n)) {
                return;
            }
            long ms = (System.nanoTime() - startedAt) / 1_000_000L;
            Failure f = failures.remove(n);
            String exit = ExitGuard.takeExitAttempt();
            if (assumptions.remove(n)) {
                record("TEST", "skip", n, Long.toString(ms), "assumption failed");
            } else if (f == null) {
                record("TEST", "pass", n, Long.toString(ms), "");
            } else {
                record("TEST", "fail", n, Long.toString(ms), (exit == null ? "" : exit + "\n") + trace(f.getException()));
                failed(n);
                maybeStop();
            }
        }

        private void maybeStop() {
            if (stopped) {
                notifier.pleaseStop();
            }
        }
    }
}
