package nl2fix.runner;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which tests execute the target method, recorded on a trusted version (the recording job, whose
 * classes {@link CallInserter} gave a call of {@link #hit()} at the method's start). A hit is
 * the running test's when it comes from the test thread while a test runs (between JUnit's
 * "started" and "finished", so its {@code @Before}, {@code @After} and its class's constructor
 * count) and no class is being initialised on the way; otherwise it is a stray of the test class
 * then running: a static initialiser (its effect outlives the test: the harness then keeps every
 * test), {@code @BeforeClass}, a suite's set-up, another thread (the harness keeps that class whole).
 *
 * <p>Public only so that instrumented code in the unnamed module can call {@link #hit()}, which
 * does nothing outside a recording; what it records is reachable from this package only. A
 * candidate's classes may not refer to this package at all (the class-file check's policy).
 */
public final class MethodReach {
    private MethodReach() {
    }

    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final String CLINIT = new String("<clinit>".toCharArray());
    private static volatile MethodReach recording;

    private volatile Thread testThread;
    private volatile String label = "";
    private volatile String test;
    /** Hits as {@code label<TAB>test}, in the order first seen. */
    final Set<String> hits = Collections.synchronizedSet(new LinkedHashSet<String>());
    /** Test classes (the run's label) with a hit outside their tests. */
    final Set<String> strays = Collections.synchronizedSet(new LinkedHashSet<String>());
    /** Every test run, as {@code label<TAB>test}: which test class's run each test belongs to. */
    final Set<String> ran = Collections.synchronizedSet(new LinkedHashSet<String>());
    /** Hits while a class was being initialised, as {@code label<TAB>test}. */
    final Set<String> initialising = Collections.synchronizedSet(new LinkedHashSet<String>());

    /** The call {@link CallInserter} puts at the start of the method. */
    public static void hit() {
        MethodReach p = recording;
        if (p != null) {
            p.record();
        }
    }

    private void record() {
        String running = test;
        if (Thread.currentThread() != testThread || running == null) {
            strays.add(label);
        } else if (WALKER.walk(frames -> frames.anyMatch(f -> CLINIT.equals(f.getMethodName())))) {
            initialising.add(label + "\t" + running);
        } else {
            hits.add(label + "\t" + running);
        }
    }

    /** Starts a recording: from now on hits count, until {@link #stop}. */
    static MethodReach start() {
        MethodReach p = new MethodReach();
        recording = p;
        return p;
    }

    static void stop() {
        recording = null;
    }

    /** Called by the test executor before each JUnit run: the test class (label) it runs, on which thread. */
    static void runs(String label, Thread thread) {
        MethodReach p = recording;
        if (p != null) {
            p.test = null;
            p.label = label;
            p.testThread = thread;
        }
    }

    /** Called by the test executor's listener on the test thread: the test now running, or null. */
    static void test(String name) {
        MethodReach p = recording;
        if (p != null) {
            p.test = name;
            if (name != null) {
                p.ran.add(p.label + "\t" + name);
            }
        }
    }

    private static final String INSTRUMENTED = new String("INSTRUMENTED".toCharArray());
    private static final String HIT = new String("HIT".toCharArray());
    private static final String STRAY = new String("STRAY".toCharArray());
    private static final String INIT = new String("INIT".toCharArray());
    private static final String RAN = new String("RAN".toCharArray());

    /** The recording into the signed report: {@code INSTRUMENTED methods refused}, then a {@code HIT label
     * test} per test that executed the method, {@code INIT label test} per test in which a static
     * initialiser did, {@code RAN label test} per test run, {@code STRAY label}
     * per test class with a hit outside its tests. The next sequence number. */
    int report(Report report, long k0, long k1, int seq, String id, CallInserter.Result instrumented) {
        report.signed(k0, k1, seq++, id, INSTRUMENTED, Integer.toString(instrumented.instrumented),
                Integer.toString(instrumented.refused));
        String[] kinds = {RAN, HIT, INIT, STRAY};
        java.util.List<Set<String>> sets = java.util.Arrays.asList(ran, hits, initialising, strays);
        for (int k = 0; k < kinds.length; k++) {
            synchronized (sets.get(k)) {
                for (String row : sets.get(k)) {
                    report.signed(k0, k1, seq++, id, kinds[k], row.split("\t", -1));
                }
            }
        }
        return seq;
    }
}
