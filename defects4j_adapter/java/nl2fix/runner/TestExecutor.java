package nl2fix.runner;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 *
 * <p>No code the candidate controls runs on the runner's own thread (which holds the job's key):
 * building JUnit's runner (a {@code suite()} method, parameter names) and reading a thrown
 * object ({@code toString}, {@code printStackTrace}) happen on the test thread, under the
 * watchdog. The code under test can reach JUnit's notifier and its listeners through public
 * API, so the listener takes an event only from the test thread it started and only when no
 * class of the candidate's source file is on the stack: JUnit fires its events after the test
 * method has returned or thrown, a forgery fires them from inside it (or from another thread).
 *
 * <p>A pass is the runner's judgement, not the absence of a failure event: a test passes only when
 * JUnit was handed nothing its statement threw ({@link Thrown}) and reported no failure or
 * assumption failure for it. Whatever a test threw that JUnit then reported as no failure (an empty
 * multiple-failure exception) fails it here, and so does the same at a class's level.
 */
final class TestExecutor {
    private static final String FILTER_CLASS = Filter.class.getName();
    private static final int TRACE_LIMIT = 3000;
    private static final StackWalker WALKER = StackWalker.getInstance();
    /**
     * A test's time is the CPU its thread uses: on a loaded machine a busy test's wall-clock time
     * stretches and its CPU time does not (Compress-25's LZMA test took over 10 s of wall-clock
     * time at a load of 11 on 2 cores, and 4 s alone). A test that waits rather than computes (a
     * sleep, a lock, work on other threads) is held to this many times the limit in wall-clock time. The
     * collector's time since the test began counts as the test's (see {@link #gcNanos}).
     */
    private static final long WALL_FACTOR = 6;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Looked up once: the watchdog reads their times every 20 ms of every test. */
    private static final java.util.List<java.lang.management.GarbageCollectorMXBean> COLLECTORS =
            ManagementFactory.getGarbageCollectorMXBeans();

    private final ClassLoader loader;
    private final Report report;
    private final nl2fix.runner.Request job;
    private final ThreadGroup group;
    private final Set<String> done = new HashSet<>();
    private final Set<String> candidateClasses;
    /** Whether this JVM's JUnit tells {@link Thrown} what it was handed; without it no test passes. */
    private final boolean hooked = Thrown.hooked();
    /** JUnit events the code under test fired itself, which the listener did not take. */
    final java.util.concurrent.atomic.AtomicInteger forged = new java.util.concurrent.atomic.AtomicInteger();
    /** Every test and class result, in order, for the signed report {@link Main} writes once the
     * code under test has stopped. Only the runner's stack frames reach this executor. */
    final List<String[]> results = java.util.Collections.synchronizedList(new ArrayList<String[]>());
    volatile boolean stopped;
    /** A test thread would not die: the JVM cannot be trusted with another candidate. */
    volatile boolean poisoned;
    /** The JVM survived something (out of memory) after which a fresh one is safer. */
    volatile boolean restartAdvised;

    TestExecutor(ClassLoader loader, Report report, nl2fix.runner.Request job, ThreadGroup group,
            Set<String> candidateClasses) {
        this.loader = loader;
        this.candidateClasses = candidateClasses;
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

    /** The stack trace of a thrown object, which the code under test may have made: its
     * {@code toString} or {@code printStackTrace} may throw in turn, and the failure stays a
     * failure of the test either way. Called on the test thread only. */
    private static String trace(Throwable t) {
        if (t == null) {
            return "a failure without a thrown object";
        }
        java.io.StringWriter w = new java.io.StringWriter();
        try {
            t.printStackTrace(new java.io.PrintWriter(w));
        } catch (Throwable unreadable) {
            w.write(t.getClass().getName() + " (its stack trace could not be printed: " + unreadable.getClass().getName() + ")");
        }
        String s = w.toString();
        if (s.trim().isEmpty()) {
            // JUnit 4.13's multiple-failure exception prints only the failures it carries
            return t.getClass().getName() + " (it printed no stack trace)";
        }
        if (s.length() <= TRACE_LIMIT) {
            return s;
        }
        // The root cause is what explains a failure (an initializer's error under several wrappers):
        // keep the head and the innermost cause's first lines rather than the head alone.
        int cause = s.lastIndexOf("\nCaused by: ");
        if (cause < 0 || cause < TRACE_LIMIT / 2) {
            return s.substring(0, TRACE_LIMIT) + "...";
        }
        String tail = s.substring(cause + 1, Math.min(s.length(), cause + 1 + TRACE_LIMIT / 2));
        return s.substring(0, TRACE_LIMIT - tail.length()) + "\n\t...\n" + tail + (cause + 1 + tail.length() < s.length() ? "..." : "");
    }

    /** Why a test or class whose statement threw {@code t} failed, when JUnit reported no failure
     * for it. Called on the test thread only ({@link #trace} runs the thrown object's code). */
    static String unreported(Throwable t) {
        return "threw " + t.getClass().getName() + " carrying no failures: not a pass\n" + trace(t);
    }

    /** Whether the class of a stack frame is one compiled from the candidate's source file. */
    private boolean isCandidate(String className) {
        int nested = className.indexOf('$');
        return candidateClasses.contains(nested < 0 ? className : className.substring(0, nested));
    }

    void runAll() {
        event(Words.PHASE, Words.TRIGGER);
        for (String spec : job.triggers) {
            if (over()) {
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
        event(Words.PHASE, Words.RELEVANT);
        for (String cls : job.relevant) {
            if (over()) {
                return;
            }
            runClass(cls, done);
        }
    }

    /** Whether no more test runs: stopped, or a behaviour probe's label is decided ({@link BehaviourProbe#decided}). */
    private boolean over() {
        return stopped || job.behaviour && BehaviourProbe.decided();
    }

    private void runClass(String cls, final Set<String> skip) {
        Class<?> c = load(cls);
        if (c == null) {
            return;
        }
        Request request = Request.aClass(c);
        final Set<String> only = job.only.get(cls);
        if (skip != null && !skip.isEmpty() || only != null) {
            request = request.filterWith(new Filter() {
                @Override
                public boolean shouldRun(Description d) {
                    return d.getMethodName() == null
                            || (skip == null || !skip.contains(name(d))) && (only == null || only.contains(name(d)));
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
            classFailure(cls, trace(t));
            return null;
        }
    }

    private void classFailure(String cls, String message) {
        record(Words.CLASS, cls, message);
        done.add(cls);
        failed(cls);
    }

    private void failed(String test) {
        if (job.stopAtFirstFailure && !job.known.contains(test)) {
            stopped = true;
        }
    }

    private void run(final Request request, String label, String triggerSpec) {
        final RunNotifier notifier = new RunNotifier();
        final Listener listener = new Listener(notifier, triggerSpec);
        notifier.addListener(listener);
        final String[] crash = new String[1];
        final boolean[] ownStop = new boolean[1];
        Thread thread = new Thread(group, () -> {
            ReflectionWall.onTestThread();
            try {
                Runner runner = request.getRunner();
                runner.run(notifier);
                Throwable unclaimed = Thrown.take();
                if (unclaimed != null) {
                    // a class's statement threw (@BeforeClass, @AfterClass, a class rule) and JUnit
                    // reported no failure for it
                    crash[0] = unreported(unclaimed);
                }
            } catch (StoppedByUserException e) {
                // stop-at-first-failure skips the rest of this run on purpose; thrown by the
                // code under test instead, it would end the class without a failure
                if (!stopped) {
                    crash[0] = trace(e);
                }
            } catch (ThreadDeath e) {
                // the watchdog's own doing only when it stopped a test of this run; JUnit 3 lets any
                // other (the code under test throwing it) end the class without a failure
                ownStop[0] = true;
                crash[0] = trace(e);
            } catch (Throwable t) {
                crash[0] = trace(t);
            }
        }, "main");  // as a plain JUnit run's tests see their thread: a name of nl2fix's own told the candidate
        listener.thread = thread;
        ReflectionWall.testThread(thread);
        Thrown.watch(thread);
        MethodReach.runs(label, thread);
        BehaviourProbe.watch(thread, label);
        thread.setContextClassLoader(loader);
        // no daemon, as a plain JVM's main thread and a build's test runner are not (round 7's daemon_thread:
        // the flag told nl2fix's thread apart); nothing waits for it at exit: the runner ends its JVM by halt
        thread.start();
        watch(thread, listener, notifier, label);
        if (crash[0] != null && !(ownStop[0] && !listener.timedOut.isEmpty())) {
            classFailure(label, crash[0]);
        }
    }

    @SuppressWarnings({"deprecation", "removal"})
    private void watch(Thread thread, Listener listener, RunNotifier notifier, String label) {
        long limit = job.testTimeoutMs * 1_000_000L;
        long wallLimit = limit * WALL_FACTOR;
        long seen = listener.lastEvent;
        long cpuMark = cpuOf(thread);
        long gcMark = gcNanos();
        String killed = null;
        int kills = 0;
        // a behaviour probe's budget: the CPU its probing used (see BehaviourProbe#overBudget)
        long budget = job.behaviour ? job.behaviourBudgetMs * 1_000_000L : 0;
        long budgetStop = Long.MAX_VALUE;
        while (thread.isAlive()) {
            try {
                thread.join(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = System.nanoTime();
            long cpu = cpuOf(thread);
            if (job.behaviour && budgetStop == Long.MAX_VALUE && BehaviourProbe.referenceOverdue(thread, cpu)
                    && !initializingAClass(thread)) {
                // the reference's body on a derived input far slower than on the tests' calls: that body alone is
                // stopped (its row says timeout) and the test goes on, its clock started again
                BehaviourProbe.stopping(thread, true);
                thread.stop();
                BehaviourProbe.stopSent(thread);
                cpuMark = cpu;
                gcMark = gcNanos();
                continue;
            }
            if (job.behaviour && budgetStop == Long.MAX_VALUE && BehaviourProbe.candidateOverdue(thread, cpu)
                    && !initializingAClass(thread)) {
                // a candidate's body far slower than the reference on the same input: its row says timeout
                BehaviourProbe.stopping(thread, false);
                thread.stop();
                BehaviourProbe.stopSent(thread);
                if (++kills >= 4) {
                    poisoned = true;
                    return;
                }
                continue;
            }
            // the budget waits for the candidate's body to end or be stopped as overdue: the body gives its row
            if (budget > 0 && budgetStop == Long.MAX_VALUE && !BehaviourProbe.inCandidate(thread)
                    && BehaviourProbe.probing(thread, cpu) >= budget) {
                BehaviourProbe.overBudget(job.behaviourBudgetMs);
                stopped = true;
                budgetStop = now;
            }
            if (job.behaviour && budgetStop == Long.MAX_VALUE && BehaviourProbe.decided()) {
                stopped = true;
                budgetStop = now;
            }
            if (job.behaviour && !stopped && BehaviourProbe.exhausted()) {
                stopped = true;
                notifier.pleaseStop();  // before the class's next test: the one running ends as it would
            }
            if (budgetStop != Long.MAX_VALUE) {
                // no test timed out: the probe ends here, its rows so far kept
                if (now >= budgetStop && thread.isAlive()) {
                    notifier.pleaseStop();
                    BehaviourProbe.forgetStops(thread);
                    thread.stop();
                    if (++kills >= 4) {
                        poisoned = true;
                        return;
                    }
                    budgetStop = now + 500_000_000L;  // a moment to unwind, as after a time limit
                }
                continue;
            }
            long gc = gcNanos();
            if (listener.lastEvent != seen) {
                BehaviourProbe.forgetStops(thread);
                seen = listener.lastEvent;
                cpuMark = cpu;
                gcMark = gc;
            }
            long used = cpu - cpuMark + gc - gcMark;
            boolean over = cpu < 0 ? now - seen >= limit : used >= limit || now - seen >= wallLimit;
            if (!thread.isAlive() || !over) {
                continue;
            }
            Description cur = listener.current;
            String test = cur == null ? label : name(cur);
            if (!test.equals(killed)) {
                killed = test;
                kills = 0;
                listener.timedOut.add(test);
                done.add(test);
                String why = cpu >= 0 && used >= limit
                        ? "test used " + job.testTimeoutMs + " ms of CPU"
                                + (gc - gcMark >= limit / 2 ? ", most of it the garbage collector's" : "")
                        : "test timed out after " + (cpu < 0 ? limit : wallLimit) / 1_000_000L + " ms";
                record(Words.TEST, Words.TIMEOUT, test, Long.toString(job.testTimeoutMs), why);
                if (job.stopAtFirstFailure && !job.known.contains(test)) {
                    stopped = true;
                }
            }
            if (stopped) {
                notifier.pleaseStop();
            }
            BehaviourProbe.forgetStops(thread);
            thread.stop();
            if (++kills >= 4) {
                poisoned = true;
                stopped = true;
                return;
            }
            // give the stopped test a moment (half a second of either clock) to unwind before judging it again
            seen = now - (cpu < 0 ? limit : wallLimit) + 500_000_000L;
            listener.lastEvent = seen;
            cpuMark = cpu - limit + 500_000_000L;
            gcMark = gc;
        }
    }

    /** The garbage collectors' time so far, in nanoseconds (0 when this JVM cannot say). The serial collector
     * runs on a thread of the JVM's own, so a test that keeps what it allocates until the heap is nearly full
     * spends its time there, not on its thread: JacksonXml-1's answer that repeats a start element for ever ran
     * 26 s to the wall-clock limit, 42 CPU-s, where its thread's CPU limit was 4.4 s; in a JVM that had run other
     * candidates it ended the JVM twice, 118 CPU-s. */
    private static long gcNanos() {
        long ms = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : COLLECTORS) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms * 1_000_000L;
    }

    /** The CPU nanoseconds ``thread`` has used, or -1 when this JVM cannot say. */
    /** Whether {@code thread} runs a class's static initializer that the body it runs started (one above the runner's
     * own frames): a body stopped there for its pace leaves the class unusable (every later use throws
     * {@code NoClassDefFoundError}) for the rest of the job, in the tests' loader or the candidate's, so every later
     * input would differ there (Math-50's {@code FastMath}, first initialized on a caller's input on a slow machine:
     * the fix beside itself differed on 96 inputs, which candidates' probes then passed over). The body is stopped
     * once the initializer is done; the test's own time limit is not put off. Not an initializer the body runs inside
     * (a class whose static initializer calls the method under probe): a candidate looping there is stopped as ever.
     * A candidate adds no initializer of its own: only its method's body may change (the class-file check). */
    static boolean initializingAClass(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if ("<clinit>".equals(frame.getMethodName())) {
                return true;
            }
            if (frame.getClassName().startsWith("nl2fix.runner.")) {
                return false;
            }
        }
        return false;
    }

    private static long cpuOf(Thread thread) {
        try {
            return THREADS.isThreadCpuTimeSupported() ? THREADS.getThreadCpuTime(thread.getId()) : -1;
        } catch (UnsupportedOperationException e) {
            return -1;
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
        volatile Thread thread;
        private long startedAt;

        Listener(RunNotifier notifier, String triggerSpec) {
            this.notifier = notifier;
            this.triggerSpec = triggerSpec;
        }

        /** Whether JUnit fired this event, not the code under test (see the class comment). */
        private boolean genuine() {
            if (Thread.currentThread() == thread
                    && !WALKER.walk(frames -> frames.anyMatch(f -> isCandidate(f.getClassName())))) {
                return true;
            }
            forged.incrementAndGet();
            return false;
        }

        @Override
        public void testStarted(Description d) {
            if (!genuine() || classLevel(d)) {
                return;
            }
            Guard.takeExitAttempt();
            String refusal = noPass();
            if (refusal != null) {
                // refused outside any test (a class's set-up): the candidate may keep what it learnt there
                classFailure(d.getClassName(), refusal);
            }
            Throwable unclaimed = Thrown.take();
            if (unclaimed != null) {
                // reported outside any test (a suite's earlier class) with no failure: that class failed
                classFailure(d.getClassName(), unreported(unclaimed));
            }
            startedAt = System.nanoTime();
            lastEvent = startedAt;
            current = d;
            MethodReach.test(name(d));
            event(Words.BEGIN, name(d));
        }

        @Override
        public void testFailure(Failure f) {
            if (!genuine()) {
                return;
            }
            Description d = f.getDescription();
            Throwable e = f.getException();
            if (e instanceof OutOfMemoryError) {
                restartAdvised = true;
            }
            if (FILTER_CLASS.equals(d.getClassName())) {
                // Request.method found no such test: a trigger test that does not exist
                if (triggerSpec != null) {
                    record(Words.TEST, Words.FAIL, triggerSpec, "0", "no such test: " + trace(f.getException()));
                    done.add(triggerSpec);
                    failed(triggerSpec);
                    maybeStop();
                }
                return;
            }
            if (classLevel(d)) {
                Thrown.take();
                String exit = Guard.takeExitAttempt();
                classFailure(d.getClassName(), (exit == null ? "" : exit + "\n") + trace(e));
                maybeStop();
                return;
            }
            failures.put(name(d), f);
        }

        @Override
        public void testAssumptionFailure(Failure f) {
            if (!genuine()) {
                return;
            }
            assumptions.add(name(f.getDescription()));
        }

        @Override
        public void testIgnored(Description d) {
            if (!genuine()) {
                return;
            }
            record(Words.TEST, Words.SKIP, name(d), "0", "ignored");
        }

        @Override
        public void testFinished(Description d) {
            if (!genuine() || classLevel(d)) {
                return;
            }
            String n = name(d);
            current = null;
            MethodReach.test(null);
            lastEvent = System.nanoTime();
            done.add(n);
            Throwable threw = Thrown.take();
            if (timedOut.contains(n)) {
                return;
            }
            long ms = (System.nanoTime() - startedAt) / 1_000_000L;
            Failure f = failures.remove(n);
            String exit = Guard.takeExitAttempt();
            String refusal = noPass();
            if (refusal != null) {
                // refused, or out of memory, whether caught or not: no pass, no skip
                assumptions.remove(n);
                record(Words.TEST, Words.FAIL, n, Long.toString(ms), refusal);
                failed(n);
                maybeStop();
            } else if (assumptions.remove(n)) {
                record(Words.TEST, Words.SKIP, n, Long.toString(ms), "assumption failed");
            } else if (f == null && threw == null && hooked) {
                record(Words.TEST, Words.PASS, n, Long.toString(ms), "");
            } else if (f == null) {
                record(Words.TEST, Words.FAIL, n, Long.toString(ms), threw != null ? unreported(threw)
                        : "JUnit's reporting is not hooked: nl2fix cannot tell how this test ended, so it is no pass");
                failed(n);
                maybeStop();
            } else {
                record(Words.TEST, Words.FAIL, n, Long.toString(ms), (exit == null ? "" : exit + "\n") + trace(f.getException()));
                failed(n);
                maybeStop();
            }
        }

        /** A refused read of the environment ({@link Guard#takeRefusal}) or a limit met
         * ({@link Exhaustion#take}) since the last call, both taken: the test then is no pass. */
        private String noPass() {
            String refusal = Guard.takeRefusal();
            String ranOut = Exhaustion.take();
            return refusal != null ? refusal : ranOut;
        }

        private void maybeStop() {
            if (stopped) {
                notifier.pleaseStop();
            }
        }
    }
}
