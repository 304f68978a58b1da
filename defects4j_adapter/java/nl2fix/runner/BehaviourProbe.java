package nl2fix.runner;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Behaviour probing: what a candidate method does, beside what a reference method (the developer's
 * fix, or in a user's project the method as it is) does, on the calls the tests make and on inputs
 * derived from them.
 *
 * <p>For a probe job the harness compiles a probe source (trusted text made in Python): the target
 * method's class with the reference renamed {@code m$nl2fix$ref} and in its place a wrapper {@code m}
 * with the original declaration that calls {@link #call}. The candidate is not in it: the job also holds
 * the candidate's class files exactly as validation compiled and checked them, which this class loads
 * with the project's class path in a loader of their own (the twin), so that its code is the code that
 * was tested -- same class, member names and nested classes' numbers -- and no path from it leads to
 * the tests' classes or the reference (every project class it reaches is the twin's copy). The tests run
 * on the reference's behaviour throughout, identical for every candidate. At each call a test thread
 * makes, the runner deep-copies receiver and arguments before anything runs ({@link Graphs#copy}), runs
 * the reference on one copy, again on a second (whether it repeats itself on this input; not on one its own
 * probe found steady, {@link #STEADY}) and the
 * candidate on a third made of the twin's classes (the target class's static fields put back in between,
 * the candidate's set as the reference's were; after the candidate the JDK-wide settings are put back
 * and the threads it started ended, and while it runs the wrapper refuses every call from outside a
 * reference), and snapshots each outcome -- the
 * return value or the thrown exception's class, receiver, arguments and the class's static fields
 * afterwards, as far as a caller can observe them (not the private fields of the method's class that the
 * reference's body does not name, {@link Graphs.View}; nothing of the state a failed call left) -- with
 * {@link Graphs#snapshot}, runner code that reads fields and never calls the code
 * under test: no {@code equals}, {@code hashCode} or {@code toString} of the candidate's choosing
 * decides anything. Then inputs derived from the call ({@link Derived}) are run the same way: its
 * arguments varied one at a time, then its receiver and arguments crossed with those of the job's
 * earlier calls, then its arguments on receivers in the states the class's objects were in when the tests'
 * code called their other methods ({@link #entered}); and the call of the class's method the tests' code made
 * that led to this one (a solver's {@code solve}, which sets the state its {@code doSolve} reads), run again
 * whole on both versions with its arguments varied ({@link Session#probeCaller}), in an order drawn from a seed of the job that no
 * code under test can read (their rows keep a fixed order); and finally the reference on the test's own
 * objects, whose result the test gets.
 *
 * <p>Each input gives one row: where it came from, the input's snapshot, the reference's and the
 * candidate's (shortened for display, with the SHA-256 of the whole), and the digest of the reference's
 * second outcome. The rows are signed by
 * {@link Main} after the tests stopped; the harness compares them. Candidate code cannot name this
 * class (the class-file check refuses references to the runner's package), nor reach its state (a named
 * module that opens nothing); a call of the wrapper made from inside the reference (recursion, a helper
 * calling back) runs the reference and is never recorded (the candidate's own calls stay in its twin
 * class); only threads the runner started for the tests record calls.
 * Bounded: at most {@link #MAX_CALLS} distinct recorded inputs, {@link #MAX_DERIVED} inputs with an
 * argument varied, {@link #MAX_CROSSED} crossed ones, {@link #MAX_REACHED} on reached states and {@link #MAX_BUILT} on built receivers a job (each
 * kind its own budget, so that one takes nothing away from another), each body under the per-test time limit,
 * the candidate's under {@link #CANDIDATE_PACE} and the reference's on a derived input under {@link #REFERENCE_PACE}
 * (a body stopped so ends its row as {@code timeout}; the reference's alone, the test going on), and the job's probing (its tests' own work left out) under its budget of CPU, when
 * it has one ({@link #overBudget}). A candidate's call that changes JVM-wide state the runner cannot put back (what
 * retires a JVM after its job) ends the probing: the reference's later runs would meet that state; the end row names
 * that call's input ({@code spoiledBy}).
 */
public final class BehaviourProbe {
    private BehaviourProbe() {
    }

    /** One of the two bodies of the method under probe, called on a receiver (null for a static
     * method) and the arguments. */
    public interface Body {
        Object call(Object receiver, Object[] args) throws Throwable;
    }

    static final int MAX_CALLS = 40;
    static final int MAX_DERIVED = 200;
    static final int MAX_CROSSED = 100;
    /** Inputs a job tries at the candidate's own constants ({@link Derived#at}). */
    static final int MAX_THEIRS = 48;
    /** The CPU those inputs may take a job, apart from the probe's budget. */
    static final long THEIRS_NANOS = 500_000_000L;
    /** Receivers kept from the entries of the class's other methods ({@link #entered}), distinct ones, and how
     * many entries may be copied to find them, a test class (so that a candidate's probe, which runs only the
     * test classes that called the method, keeps what the fix's own probe kept in them); inputs made of them a
     * call, and a job. */
    static final int MAX_STATES = 12;
    static final int STATE_TRIES = 60;
    static final int STATES_PER_CALL = 6;
    static final int MAX_REACHED = 60;
    /** Constructions of the class a test class's code made from outside it ({@link #built}) kept to build receivers
     * from (its last ones), and how many of a thread's are looked at; the receivers built from them (each construction
     * as it came and with its arguments varied, {@link Derived#constructions}), distinct, how many constructions may
     * run for one construction kept and for a test class; the inputs a call and a job run on them. */
    static final int MAX_CONSTRUCTIONS = 4;
    static final int CONSTRUCTIONS_LOOKED_AT = 64;
    static final int MAX_BUILT_STATES = 16;
    static final int BUILDS_EACH = 10;
    static final int BUILD_TRIES = 30;
    static final int BUILT_PER_CALL = 4;
    static final int MAX_BUILT = 48;
    /** Inputs a job runs the tests' calls of the class's other methods on ({@link Session#probeCaller}): the
     * calls themselves and their arguments varied, at most {@link #CALLER_PER_CALL} of one call. */
    static final int MAX_CALLER = 120;
    static final int CALLER_PER_CALL = Derived.PER_CALL + 1;
    /** Calls of one method a thread copies whatever their count ({@link #entered}). */
    static final int CALLS_PER_METHOD = 1;
    static final int SHOWN = 300;
    /** A row's second reference outcome when the reference ran once: the input is one on which its probe of
     * itself did the same three times, so a second run here would only repeat what the harness compares it
     * with anyway (an outcome unlike that probe's is the candidate's doing: state it left that the reference
     * reads), and a candidate's budget goes further. */
    static final String STEADY = "steady";
    /** A candidate's body may use this many times the CPU the reference used on the same input (and no less than
     * {@link #CANDIDATE_FLOOR_NS}) before the watchdog stops it and its row says {@code timeout}: a body that loops
     * where the fix answers differs from it, and would otherwise spend the job's budget and give no row. Not its first
     * call in a job, which loads its version of the project's classes (the reference's were loaded by the tests). */
    static final int CANDIDATE_PACE = 20;
    static final long CANDIDATE_FLOOR_NS = 1_000_000_000L;
    /** The reference's body on a derived input may use this many times the CPU it used on the job's tests' own calls
     * (the longest so far), and no less than {@link #REFERENCE_FLOOR_NS}, before the watchdog stops that body alone:
     * its row says {@code timeout} (no evidence: later probes of the bug pass it over) and the test goes on. Before,
     * it ran to the per-test limit and the test ended there: Cli-23's fix grows its buffer without end on a width of
     * 0 or 1, its own probe took 61 CPU-s, and each candidate's probe, passing those inputs over, reached calls the
     * fix's own probe never made and met the same loops there, till its budget was gone. */
    static final int REFERENCE_PACE = 20;
    static final long REFERENCE_FLOOR_NS = 200_000_000L;
    /** A row's second reference outcome when the reference's first failed in a way that makes a derived input no
     * evidence ({@link #UNEXPECTED}): the candidate is not run, and the row only tells later probes of the bug to pass
     * the input over (its reference may have filled the heap for seconds before it failed). */
    static final String NO_EVIDENCE = "no-evidence";
    /** An input is shown longer than an outcome: it is what a reader needs to run the call again. */
    static final int SHOWN_INPUT = 1000;
    /** Characters of whole texts a job's rows carry at most: where the candidate's outcome differs from the
     * reference's, the input and both outcomes are also written whole ({@link Graphs.View#whole}: arrays and
     * collections past {@link Graphs#MAX_ELEMENTS}, texts past {@link #SHOWN_INPUT} and {@link #SHOWN}), the
     * divergence's JUnit test being written from them; only on the calls that begin while the job has room left,
     * so that a candidate differing everywhere adds little, and attached in the rows' fixed order. Room for two rows'
     * three texts at their longest: the first differing row's always fit, however long the candidate makes its own
     * outcome. What is compared (the digests) is written as before. */
    static final int WHOLE_TEXTS = 6 * (Graphs.WHOLE_CHARS + 3);
    /** What a test's own assertion throws (JUnit 4's and 3's): the fix failing so on an input is no evidence
     * ({@code nl2fix.validation.behaviour.TEST_ASSERTIONS}), and its row decides nothing ({@link Session#decides}). */
    static final List<String> TEST_ASSERTIONS = List.of("java.lang.AssertionError", "junit.framework.AssertionFailedError",
            "org.junit.ComparisonFailure", "junit.framework.ComparisonFailure");
    /** The failures of the reference that make a derived input no evidence (see {@code unexpected}). */
    static final List<String> UNEXPECTED = List.of("java.lang.NullPointerException",
            "java.lang.ArrayIndexOutOfBoundsException", "java.lang.StringIndexOutOfBoundsException",
            "java.lang.IndexOutOfBoundsException", "java.lang.ClassCastException", "java.lang.ArithmeticException",
            "java.lang.NegativeArraySizeException", "java.lang.ArrayStoreException",
            "java.util.ConcurrentModificationException", "java.lang.StackOverflowError", "java.lang.OutOfMemoryError");

    private static volatile Session session;
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();
    /** The body running on this thread: a call from inside it runs the same body. */
    private static final ThreadLocal<Body> SIDE = new ThreadLocal<>();
    /** While the candidate runs, the reference is out of every thread's reach (see {@link #call}). */
    private static volatile boolean candidateRunning;
    /** While a body runs on copies (the reference's or the candidate's), no file is written ({@link Guard#checkWrite}). */
    private static volatile boolean onCopies;

    static boolean onCopies() {
        return onCopies;
    }

    /** The wrapper's whole body: probe this call (in a probe job, on a test thread), then run the
     * reference on the test's own objects and hand back its result or throw what it threw. While the
     * candidate runs, a call from outside a reference's body (from a thread the candidate started, say, or
     * through an object of the tests' loader) throws: the candidate cannot borrow the reference's answers. */
    public static Object call(Class<?> owner, String referenceName, Object receiver, Object[] args, Object[] constants,
            String[] named, Object[] theirs, String[] theirNamed, Body reference) {
        Body side = SIDE.get();
        if (side != null) {
            return run(side, receiver, args);
        }
        if (candidateRunning) {
            throw new IllegalStateException("the reference is out of reach while the candidate runs");
        }
        Session s = session;
        if (s != null && !s.ended() && s.tracks(Thread.currentThread())) {
            s.constants(owner, constants, named, theirs, theirNamed);
            s.probe(owner, referenceName, receiver, args, constants, named, reference);
        }
        return run(reference, receiver, args);
    }

    /** The hook of a constructor under probe (the reference's own constructor in the probe source, which the tests
     * construct their objects with), called before its {@code this(...)} or {@code super(...)} runs (from the first
     * argument's evaluation, through a static helper of the probe source) or, where that call has no argument, right
     * after it, with the constructor's arguments as they came: on a test thread, outside every body the probe runs, the construction is
     * probed as a static method's call is ({@code reference} makes a new object on copies of them; the candidate's
     * constructor of the same parameters, in the twin, another), the new object compared as a result. The
     * constructor is the one that called this ({@code StackWalker}: the frame below, of {@code owner}). */
    public static void constructing(Class<?> owner, Object[] args, Object[] constants, String[] named, Object[] theirs,
            String[] theirNamed, Body reference) {
        if (SIDE.get() != null) {
            return;  // the reference's construction on copies, made by the probe itself
        }
        if (candidateRunning) {
            throw new IllegalStateException("the reference is out of reach while the candidate runs");
        }
        Session s = session;
        if (s == null || s.ended() || !s.tracks(Thread.currentThread())) {
            return;
        }
        // the constructor's own frame, or the one below the probe source's helper that its this(...) or super(...)
        // calls first
        Constructor<?> constructor = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames ->
                frames.skip(1).limit(2).filter(f -> f.getDeclaringClass() == owner && "<init>".equals(f.getMethodName()))
                        .findFirst().map(f -> {
                            try {
                                return owner.getDeclaredConstructor(f.getMethodType().parameterArray());
                            } catch (NoSuchMethodException e) {
                                return null;
                            }
                        }).orElse(null));
        if (constructor != null && constructor.getParameterCount() == args.length) {
            s.constants(owner, constants, named, theirs, theirNamed);
            s.probe(owner, constructor, null, args, constants, named, reference);
        }
    }

    /** Called first in each of the probed class's methods a caller outside it may call on an object
     * ({@link CallInserter#receivers}; the probe source's class only, never the candidate's), with its arguments
     * and its number in the job's list of such methods: on a test
     * thread, outside every body the probe runs, and called from outside the class (not in the middle of
     * one of its own methods, where its fields may be half updated), the receiver's state is a state the
     * project's code reached -- a tableau between two pivots, a parser between two tokens -- which the
     * method under probe may be called in; a copy of it is kept, at a thread's first, second, fourth,
     * eighth ... such entry (a loop's states, at a cost that grows with the log of its length), for
     * {@link Derived#reached} on the calls of the same test class; and a copy of the call itself, receiver and
     * arguments, which the method under probe, called before it returns, runs again ({@link Session#probeCaller}). */
    public static void entered(Object receiver, Object[] args, int method) {
        Session s = session;
        Thread t = Thread.currentThread();
        // what the probe runs itself (its bodies, its copies) differs between the fix's own probe and a candidate's:
        // not counted, so that both keep the same entries
        if (s == null || receiver == null || candidateRunning || SIDE.get() != null
                || s.probingOn == t && s.probingSince >= 0) {
            return;
        }
        // counted without the session's lock: an entry costs a few nanoseconds unless it is one to copy
        Entries n = Entries.of(s);
        long k = ++n.count;
        boolean state = (k & (k - 1)) == 0;
        // the receiver is kept at the thread's 1st, 2nd, 4th ... entry, and so is the call; and each method's first
        // call on the thread (a test calls its solver after building it, its other methods before: at whichever count
        // that comes, red team 23), spread as the states are over the test class, not spent on its first calls
        boolean call = method >= 0 && method < n.calls.length && (state || n.calls[method] < CALLS_PER_METHOD);
        if (!state && !call || s.ended() || !s.tracks(t) || !calledFromOutside()) {
            return;
        }
        if (call) {
            n.calls[method]++;
        }
        s.entered(state ? receiver : null, call ? receiver : null, args, method);
    }

    /** Called first in each of the probed class's constructors that is not private ({@link CallInserter#receivers}; the
     * probe source's class only, never the candidate's), with its arguments and its number in the job's list: on a
     * test thread, outside every body the probe runs, and called from outside the class (not its own {@code this(...)}
     * nor one of its factories), the construction is kept, the last {@link #MAX_CONSTRUCTIONS} a test class, from which
     * the class's own constructor builds receivers in states its code sets up from them, with the arguments as they
     * came and varied: a counter of other dimensions, a range of other ends ({@link Session#builtStates}). Its stack is
     * looked at for the thread's first {@link #CONSTRUCTIONS_LOOKED_AT} constructions and then at its 128th, 256th ...
     * (a loop building thousands of objects costs a few nanoseconds each). */
    public static void built(Object[] args, int method) {
        Session s = session;
        Thread t = Thread.currentThread();
        if (s == null || candidateRunning || SIDE.get() != null || s.probingOn == t && s.probingSince >= 0
                || s.ended() || !s.tracks(t)) {
            return;
        }
        long k = ++Entries.of(s).constructions;
        if (k > CONSTRUCTIONS_LOOKED_AT && (k & (k - 1)) != 0 || !calledFromOutside()) {
            return;
        }
        // the constructor this was called first in: the frame below
        Constructor<?> constructor = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames ->
                frames.skip(1).findFirst().filter(f -> "<init>".equals(f.getMethodName())).map(f -> {
                    try {
                        return f.getDeclaringClass().getDeclaredConstructor(f.getMethodType().parameterArray());
                    } catch (NoSuchMethodException e) {
                        return null;
                    }
                }).orElse(null));
        if (constructor != null && constructor.getParameterCount() == args.length) {
            s.construction(t, constructor, args);
        }
    }

    /** A thread's count of {@link #entered} calls in the session {@code [0]} names. */
    private static final ThreadLocal<Entries> ENTRIES = ThreadLocal.withInitial(Entries::new);

    /** A thread's {@link #entered} calls in the session {@link #session} names: how many, and the calls copied of
     * each method. */
    private static final class Entries {
        long session;
        long count;
        int[] calls = new int[0];
        /** {@link #built} calls. */
        long constructions;

        /** This thread's counts in session {@code s}, all 0 where they were an earlier session's: which entries and
         * constructions are looked at never depends on an earlier job. */
        static Entries of(Session s) {
            Entries n = ENTRIES.get();
            if (n.session != s.id) {
                n.session = s.id;
                n.count = 0;
                n.calls = new int[s.entries.size()];
                n.constructions = 0;
            }
            return n;
        }
    }
    private static long sessions;

    /** Whether no frame below the method {@link #entered} was called from is of that method's source file (a
     * top-level class and its nested ones are one file): not the class's own method halfway through an update,
     * whether it called this one directly, through a lambda, or through the JDK (a sort calling back a
     * comparator of the class's own: red team 18). */
    private static boolean calledFromOutside() {
        String[] frames = StackWalker.getInstance().walk(f -> f.map(StackWalker.StackFrame::getClassName)
                .map(BehaviourProbe::topLevel).dropWhile(BehaviourProbe.class.getName()::equals)
                .toArray(String[]::new));
        for (int i = 1; i < frames.length; i++) {
            if (frames[i].equals(frames[0])) {
                return false;
            }
        }
        return frames.length > 1;
    }

    private static String topLevel(String className) {
        int nested = className.indexOf('$');
        return nested < 0 ? className : className.substring(0, nested);
    }

    private static Object run(Body body, Object receiver, Object[] args) {
        Body outer = SIDE.get();
        SIDE.set(body);
        try {
            return body.call(receiver, args);
        } catch (Throwable t) {
            throw BehaviourProbe.<RuntimeException>sneaky(t);
        } finally {
            if (outer == null) {
                SIDE.remove();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** A probe job: the candidate's class files as validated ({@code candidate}), loaded with the project's
     * class path ({@code classPath}) by a loader of their own under {@code parent}, which defines the classes of
     * {@code closed} from those class files ({@link Statics#prepare}); {@code fixReference}:
     * whether the reference is the developer's fix (see {@link #unexpected}); {@code skip}: the digests of
     * inputs passed over, run on neither body (those on which the reference's probe of itself timed out, did
     * not repeat itself or failed unexpectedly, {@link #NO_EVIDENCE}: never compared, and a reference that runs
     * long on one would spend a candidate's budget there); {@code steady}: the digests of inputs on which it did the same three
     * times, run on the reference once (see {@link #STEADY}), each with the digest of what it did there. */
    static void begin(Map<String, byte[]> candidate, URL[] classPath, ClassLoader parent, Map<String, byte[]> closed,
            boolean fixReference, Set<String> skip, Map<String, String> steady, List<String> entries)
            throws IOException {
        URL[] urls = new URL[classPath.length + 1];
        urls[0] = Overlay.entry(candidate);
        System.arraycopy(classPath, 0, urls, 1, classPath.length);
        session = new Session(JobClasses.twin(urls, parent, closed), fixReference, Set.copyOf(skip),
                Map.copyOf(steady), ++sessions, List.copyOf(entries));
    }

    /** The rows of the job's probe, and no probing after it. */
    static List<String[]> end() {
        Session s = session;
        session = null;
        if (s == null) {
            return Collections.emptyList();
        }
        try {
            s.twin.close();
        } catch (IOException e) {
            // its classes are all read: nothing is left open that a job could still need
        }
        Graphs.releaseAllFiles();
        Graphs.forgetTwins();
        synchronized (s.rows) {
            List<String[]> out = new ArrayList<>(s.rows);
            String[] pending = s.pending;
            if (pending != null) {
                // a candidate's body that would not stop (it caught every stop): its row says timeout
                out.add(pending);
            }
            out.add(new String[] {Words.BEHAVIOUR_END, Integer.toString(s.calls),
                Integer.toString(s.derived + s.crossed + s.reached + s.builtInputs + s.callerInputs),
                Integer.toString(s.skipped), Long.toString(s.budgetMetMs), Integer.toString(s.passedOver),
                s.spoiledBy == null ? "" : s.spoiledBy, s.firstUncopyable == null ? "" : s.firstUncopyable,
                s.decidedBy == null ? "" : s.decidedBy});
            return out;
        }
    }

    /** The CPU nanoseconds the job's probing used so far (the tests' own work left out): the calls probed, and
     * the one {@code thread} is in, if any, as far as its CPU time {@code cpu} tells (-1: unknown). */
    static long probing(Thread thread, long cpu) {
        Session s = session;
        if (s == null) {
            return 0;
        }
        long start = s.probingSince;
        return s.probingNanos + (start >= 0 && cpu >= 0 && s.probingOn == thread ? Math.max(0, cpu - start) : 0);
    }

    /** Whether a row of the job's probe decided its label ({@link Session#decides}): the watchdog ends the job as it
     * does at the budget, the rows so far kept (the tests' own work after it would be spent for nothing). */
    static boolean decided() {
        Session s = session;
        return s != null && s.decidedBy != null;
    }

    /** Whether the job's probe can make no more rows: the calls it probes all were (and a caller's, where the method
     * takes no parameters), or a candidate's call left state the reference would meet ({@link Session#spoiledBy}). The
     * test running ends as it would, and no other starts: SimplexSolverTest's 26 tests gave Math-82's 40 calls in
     * their first few, and the rest ran the reference for nothing. */
    static boolean exhausted() {
        Session s = session;
        return s != null && (s.exhausted || s.spoiledBy != null);
    }

    /** The job's probing used its budget of {@code ms} CPU milliseconds: no call is probed from now on,
     * and the body the test thread is then stopped in gives no row (stopped by the budget, not by its own
     * loop, it is no {@code timeout} of the candidate's or the reference's); the rows made so far are kept,
     * and the end row says the budget was met, so the harness labels the probe unfinished. */
    static void overBudget(long ms) {
        Session s = session;
        if (s != null) {
            s.budgetMetMs = ms;
        }
    }

    /** Whether {@code thread} runs a candidate's body that used more CPU ({@code cpu}: the thread's CPU time, -1
     * unknown) than its input allows ({@link #CANDIDATE_PACE}): the watchdog stops it, and its row says timeout. */
    static boolean candidateOverdue(Thread thread, long cpu) {
        Session s = session;
        return s != null && cpu >= 0 && s.candidateOn == thread && cpu - s.candidateSince >= s.candidateAllowance;
    }

    /** Whether {@code thread} runs the reference's body on a derived input that used more CPU than the job's calls
     * allow it ({@link #REFERENCE_PACE}), and is not being stopped for it yet: the watchdog stops that body alone
     * ({@link #stopping}), its row says timeout and the test goes on, so that the calls after it are probed in every
     * job of the bug alike (a later probe passes that input over and would reach calls that a stopped test never
     * made in the fix's own probe). */
    static boolean referenceOverdue(Thread thread, long cpu) {
        Session s = session;
        return s != null && cpu >= 0 && s.referenceOn == thread && !s.referenceStop.on(thread)
                && cpu - s.referenceSince >= s.referenceAllowance;
    }

    /** The watchdog is about to stop {@code thread} for its overdue body, the reference's ({@code reference}) or the
     * candidate's: the {@code ThreadDeath} it meets next is that body's timeout, and a body that catches it and
     * returns all the same has timed out too (a loop that ends only when stopped is no answer). */
    static void stopping(Thread thread, boolean reference) {
        Session s = session;
        if (s != null) {
            (reference ? s.candidateStop : s.referenceStop).forget(thread);
            (reference ? s.referenceStop : s.candidateStop).mark(thread);
        }
    }

    /** The watchdog's {@code Thread.stop} of {@code thread} returned ({@link #stopping}). */
    static void stopSent(Thread thread) {
        Session s = session;
        if (s != null) {
            s.referenceStop.sent(thread);
            s.candidateStop.sent(thread);
        }
    }

    /** No {@code ThreadDeath} {@code thread} meets from now on is a body's stop: the watchdog is about to stop it for
     * anything else (its test's limit, the budget), which ends what it always ended; or a test of the thread began or
     * ended since, so that stop was met in the test's own code. */
    static void forgetStops(Thread thread) {
        Session s = session;
        if (s != null) {
            s.referenceStop.forget(thread);
            s.candidateStop.forget(thread);
        }
    }

    /** The watchdog's stop of one body on a thread: marked before {@code Thread.stop}, sent once it returned, and
     * taken by the probe. */
    private static final class Stop {
        private volatile Thread on;
        private volatile Thread sent;

        void mark(Thread thread) {
            sent = null;
            on = thread;
        }

        void sent(Thread thread) {
            if (on == thread) {
                sent = thread;
            }
        }

        void forget(Thread thread) {
            if (on == thread) {
                on = null;
            }
        }

        boolean on(Thread thread) {
            return on == thread;
        }

        /** The stop of this thread's body is over: once the watchdog has sent it, a stop still on its way is met here
         * (a native call's return delivers it) and goes no further, so that it cannot land in what runs next (the
         * candidate's body, the test); then the mark goes. */
        void take() {
            Thread self = Thread.currentThread();
            long until = System.nanoTime() + 1_000_000_000L;
            while (sent != self && on == self && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            try {
                Thread.yield();
            } catch (ThreadDeath late) {
                // the stop, delivered only now
            }
            on = null;
            sent = null;
        }
    }

    /** Whether {@code thread} runs a candidate's body now: the job's budget waits for its end (or its stop as
     * overdue), so that the body gives its row. */
    static boolean inCandidate(Thread thread) {
        Session s = session;
        return s != null && s.candidateOn == thread;
    }

    /** A thread the runner started to run the tests of {@code testClass}: only its calls are recorded,
     * under that class (the class the runner ran, not a superclass declaring the test method). */
    static void watch(Thread thread, String testClass) {
        Session s = session;
        if (s != null) {
            s.threads.put(thread, testClass);
        }
    }

    static String sha(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            // not String.format: a Formatter a byte was a sixth of a probe's CPU
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < 12; i++) {
                hex.append(Character.forDigit((d[i] >> 4) & 0xf, 16)).append(Character.forDigit(d[i] & 0xf, 16));
            }
            return hex.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String shownInput(String text) {
        return text.length() <= SHOWN_INPUT ? text : text.substring(0, SHOWN_INPUT) + "...";
    }

    /** {@code text} shortened to about {@link #SHOWN} characters, from a little before {@code from} (where
     * two outcomes first differ, so that the shortened texts show the difference). */
    static String shown(String text, int from) {
        int start = Math.max(0, Math.min(from - SHOWN / 3, text.length() - SHOWN));
        int end = Math.min(text.length(), start + SHOWN);
        return (start > 0 ? "..." : "") + text.substring(start, end) + (end < text.length() ? "..." : "");
    }

    static int firstDifference(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return i;
            }
        }
        return a.length() == b.length() ? 0 : n;
    }

    private static final class Session {
        /** The candidate's version of the project: its class exactly as tested (its own name, members and
         * nested classes' numbers), every other project class a copy of its own, so that no path from the
         * candidate's code leads to the tests' classes or the reference. */
        final URLClassLoader twin;
        /** Orders each call's derived inputs; drawn by the runner, never seen by the code under test. */
        final java.util.Random order = new java.util.Random(new java.security.SecureRandom().nextLong());
        final Map<Thread, String> threads = Collections.synchronizedMap(new java.util.WeakHashMap<Thread, String>());
        final List<String[]> rows = Collections.synchronizedList(new ArrayList<String[]>());
        final Set<String> seen = new HashSet<>();
        /** The constants derived inputs try: the reference's literals and its named constants, read at the
         * job's first probed call ({@link Derived#withNamed}). */
        Object[] tried;
        /** The candidate's own literals and named constants that {@link #tried} does not hold, read with it: tried in
         * room of their own ({@link Derived#THEIRS_PER_CALL}, {@link #MAX_THEIRS}), so that a candidate's constants
         * never crowd out an input the fix's own probe tries; none in the fix's own probe. */
        Object[] theirs;
        int theirInputs;
        /** The CPU the inputs at the candidate's constants took, which the job's probing does not count. */
        long theirNanos;
        /** The inputs of the distinct calls so far, as copied before anything ran on them (never run on:
         * bodies run on copies of them), to cross later calls with; bounded by {@link #MAX_CALLS}. */
        final List<Object[]> recorded = new ArrayList<>();
        /** Per test class: receivers copied at entries of the class's methods ({@link BehaviourProbe#entered}),
         * distinct, never run on, with the snapshots that tell them apart and how many entries were copied; a
         * call is run on those of its own test class only. */
        final Map<String, States> states = new java.util.HashMap<>();
        /** Per test class: the constructions of the class from outside it ({@link BehaviourProbe#built}) and the
         * receivers built from them ({@link #builtStates}). */
        final Map<String, Constructions> constructions = new java.util.HashMap<>();
        /** Tells this session's entry counts from an earlier one's ({@code ENTRIES}). */
        final long id;
        /** The methods that call {@link BehaviourProbe#entered}, by their number ({@link CallInserter.Result#methods}),
         * and those found so far. */
        final List<String> entries;
        final Map<Integer, Method> entryMethods = new java.util.HashMap<>();
        /** Per thread: the last call of one of the class's methods from outside it, copied at its entry (the
         * method, then receiver and arguments), till the method under probe is called or another such call is. */
        final Map<Thread, Object[]> callerCalls = new java.util.WeakHashMap<>();
        int calls;
        int derived;
        int crossed;
        int reached;
        int builtInputs;
        int callerInputs;
        /** Whether the method under probe takes no parameters (so far as its calls tell): only then are callers run. */
        boolean callersWanted = true;
        /** Whether no call can be probed any more ({@link BehaviourProbe#exhausted}). */
        volatile boolean exhausted;
        int skipped;
        /** What the first input that could not be copied held that cannot be (a class, a field), or null. */
        String firstUncopyable;
        /** The budget the job met, in CPU milliseconds; 0 while it has not (see {@link #overBudget}). */
        volatile long budgetMetMs;
        /** The digest of the input on which the candidate changed JVM-wide state that the runner cannot put back
         * (what retires a JVM after its job: {@link Guard#tainted}, the canary, a logging configuration read), null
         * while it has not: every reference run after it would meet that state, so no input is probed from then
         * on, and the end row names it. */
        volatile String spoiledBy;
        /** The digest of the first input whose row decides the label ({@link #decides}), null while none has: the
         * rows of the call it is an input of are kept, no input is probed after them, and the watchdog ends the job
         * ({@link BehaviourProbe#decided}). */
        volatile String decidedBy;
        /** CPU nanoseconds of the calls probed so far; the thread probing one now, and its CPU time when it began
         * (-1: none). */
        volatile long probingNanos;
        /** The texts hashed last and their digests ({@link #digest}; under the session's lock, as every row is made). */
        private final String[] hashed = new String[6];
        private final String[] digests = new String[hashed.length];
        private int nextHashed;
        volatile Thread probingOn;
        volatile long probingSince = -1;
        final boolean fixReference;
        /** The thread in a candidate's body now (null: none), the thread's CPU time when the body began, and the
         * CPU it may use ({@link #CANDIDATE_PACE}); whether the candidate was called in this job yet. */
        volatile Thread candidateOn;
        volatile long candidateSince;
        volatile long candidateAllowance;
        boolean candidateCalled;
        /** The thread in the reference's body on a derived input now (null: none), its CPU time when the body
         * began, and the CPU the body may use ({@link #REFERENCE_PACE}); the most the reference used on one of the
         * tests' own calls in this job so far. */
        volatile Thread referenceOn;
        volatile long referenceSince;
        volatile long referenceAllowance;
        long longestCallNanos;
        /** The watchdog's stops of the reference's body on a derived input, and of the candidate's (see {@link Stop}). */
        final Stop referenceStop = new Stop();
        final Stop candidateStop = new Stop();
        /** The row of the input whose candidate's body runs now, as it reads if that body never returns (timeout). */
        volatile String[] pending;
        /** Characters of whole texts the job's rows may still carry ({@link #WHOLE_TEXTS}). */
        int wholeLeft = WHOLE_TEXTS;
        /** Digests of the inputs passed over (see {@link BehaviourProbe#begin}), and how many were. */
        final Set<String> skip;
        int passedOver;
        /** Digests of the inputs the reference runs on once (see {@link #STEADY}), each with the digest of what it did
         * there in its own probe. */
        final Map<String, String> steady;

        Session(URLClassLoader twin, boolean fixReference, Set<String> skip, Map<String, String> steady, long id,
                List<String> entries) {
            this.twin = twin;
            this.id = id;
            this.entries = entries;
            this.fixReference = fixReference;
            this.skip = skip;
            this.steady = steady;
        }

        boolean tracks(Thread t) {
            return threads.containsKey(t);
        }

        /** Whether no input is probed from now on: the budget was met, the candidate spoiled the JVM, or a row
         * decided the label. */
        boolean ended() {
            return budgetMetMs != 0 || spoiledBy != null || decidedBy != null;
        }

        /** An entry from outside the class: {@code state}, the receiver to keep the state of, or null; {@code call},
         * the receiver of a call to copy with its {@code args}, or null. */
        synchronized void entered(Object state, Object call, Object[] args, int number) {
            Thread t = Thread.currentThread();
            timed(() -> {
                if (state != null) {
                    keepState(t, state);
                }
                if (call != null) {
                    keepCall(t, call, args, number);
                }
            });
        }

        /** A construction from outside the class ({@link BehaviourProbe#built}), kept as it came (its arguments as
         * they are when receivers are built from it: the tests' own objects, which no body runs on): the test class's
         * last {@link #MAX_CONSTRUCTIONS}. */
        synchronized void construction(Thread t, Constructor<?> constructor, Object[] args) {
            List<Object[]> kept = constructions.computeIfAbsent(threads.get(t), k -> new Constructions()).made;
            if (kept.size() >= MAX_CONSTRUCTIONS) {
                kept.remove(0);
            }
            kept.add(concat(new Object[] {constructor}, args));
        }

        /** The receivers built so far from test class {@code test}'s constructions ({@link #construction}) by the
         * class's own constructors, on the reference's version of the class: the newest construction not built from
         * yet (the one that made the receiver of the call probed now, most often) as it came and then with its
         * arguments varied ({@link Derived#constructions}; {@link #BUILDS_EACH} in all), then the next newest, within
         * {@link #BUILD_TRIES} a test class. Those that returned are kept (a construction that throws is a state its
         * class refuses, as Randoop keeps only sequences that do not throw), when they read as no receiver before.
         * Each runs on copies of its arguments, its class's static fields put back after it, with the reference's pace
         * on a derived input (a constructor looping on a varied argument is stopped, and builds nothing), no file
         * written. */
        private List<Object> builtStates(String test, Body reference) {
            Constructions kept = constructions.get(test);
            if (kept == null) {
                return List.of();
            }
            for (int c = kept.made.size() - 1; c >= 0; c--) {
                Object[] made = kept.made.get(c);
                if (kept.objects.size() >= MAX_BUILT_STATES || kept.builds >= BUILD_TRIES || budgetMetMs != 0) {
                    break;
                }
                if (!kept.done.add(made)) {
                    continue;
                }
                Constructor<?> constructor = (Constructor<?>) made[0];
                Object[] input;
                try {
                    input = Graphs.kept(concat(new Object[] {null}, rest(made)));
                } catch (Graphs.Uncopyable | RuntimeException | StackOverflowError e) {
                    continue;  // arguments that cannot be copied build no receiver
                }
                List<Object[]> each = new ArrayList<>();
                each.add(input);
                // varied only where every caller may construct so: a constructor that is not public (or of a class that
                // is not) trusts the project's own code in its package to hand it sound arguments (a factory that
                // reduces a fraction), and a receiver built past that holds a state no caller can make (red team 26)
                if (Modifier.isPublic(constructor.getModifiers())
                        && Modifier.isPublic(constructor.getDeclaringClass().getModifiers())) {
                    each.addAll(Derived.constructions(input, constructor.getParameterTypes(), tried));
                }
                for (Object[] args : each.subList(0, Math.min(BUILDS_EACH, each.size()))) {
                    if (kept.objects.size() >= MAX_BUILT_STATES || kept.builds >= BUILD_TRIES || budgetMetMs != 0) {
                        break;
                    }
                    kept.builds++;
                    Object object = construct(constructor, rest(args), reference);
                    try {
                        String text = object == null ? null : Graphs.input(new Object[] {object}, new Class<?>[0]);
                        if (text != null && text.length() <= Graphs.MAX_CHARS && kept.texts.add(text)) {
                            kept.objects.add(object);
                        }
                    } catch (RuntimeException | StackOverflowError e) {
                        // a receiver that cannot be written is not tried
                    }
                }
            }
            return kept.objects;
        }

        /** A new object of {@code constructor}'s class made by it from copies of {@code args}; null when it throws, is
         * stopped as overdue or cannot be run. Nested calls of the method under probe run the reference, unrecorded. */
        private Object construct(Constructor<?> constructor, Object[] args, Body reference) {
            Class<?> owner = constructor.getDeclaringClass();
            if (Modifier.isAbstract(owner.getModifiers())) {
                return null;
            }
            List<Object[]> statics = statics(owner);
            Thread self = Thread.currentThread();
            Object made = null;
            try {
                // the arguments and the class's static objects copied in one graph, the fields set to the copies while
                // it runs (put back after it): a constructor registering its object in the class's static list must not
                // register it in the tests' own (red team 26, as red team 23's caller)
                Object[] both = Graphs.copy(concat(args, values(statics)));
                Object[] copy = java.util.Arrays.copyOf(both, args.length);
                set(statics, java.util.Arrays.copyOfRange(both, args.length, both.length));
                constructor.setAccessible(true);
                referenceAllowance = Math.max(REFERENCE_FLOOR_NS, REFERENCE_PACE * longestCallNanos);
                referenceSince = CPU.getCurrentThreadCpuTime();
                referenceOn = self;
                Exhaustion.take();
                onCopies = true;
                SIDE.set(reference);
                try {
                    made = constructor.newInstance(copy);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    if (e.getCause() instanceof ThreadDeath) {
                        throw (ThreadDeath) e.getCause();  // a stop, the watchdog's or not: below
                    }
                    made = null;
                } finally {
                    SIDE.remove();
                    onCopies = false;
                    referenceOn = null;
                }
            } catch (ThreadDeath d) {
                if (!referenceStop.on(self)) {
                    restore(statics);
                    throw d;
                }
                made = null;
            } catch (Graphs.Uncopyable | ReflectiveOperationException | RuntimeException | LinkageError
                    | StackOverflowError | OutOfMemoryError e) {
                made = null;
            }
            restore(statics);
            if (referenceStop.on(self)) {
                // stopped, and it returned all the same, or the stop is still on its way (taken here)
                referenceStop.take();
                made = null;
            }
            return Exhaustion.take() != null ? null : made;
        }

        private void keepState(Thread t, Object receiver) {
            States kept = states.computeIfAbsent(threads.get(t), k -> new States());
            if (kept.objects.size() >= MAX_STATES || kept.tries >= STATE_TRIES) {
                return;
            }
            kept.tries++;
            try {
                Object copy = Graphs.kept(new Object[] {receiver})[0];
                String text = Graphs.input(new Object[] {copy}, new Class<?>[0]);
                if (text.length() <= Graphs.MAX_CHARS && kept.texts.add(text)) {
                    kept.objects.add(copy);
                }
            } catch (Graphs.Uncopyable | RuntimeException | StackOverflowError e) {
                // a state that cannot be copied or written is not tried (the calls' own inputs say what could not
                // be copied); nothing of the probe's is thrown into the project's method it entered
            }
        }

        /** The call, copied as it begins, for {@link #probeCaller}; the thread's earlier one goes. */
        private void keepCall(Thread t, Object receiver, Object[] args, int number) {
            callerCalls.remove(t);
            Method method = entryMethod(receiver.getClass(), number);
            if (method == null || args == null || callerInputs >= MAX_CALLER || !callersWanted) {
                return;
            }
            try {
                Object[] input = Graphs.kept(concat(new Object[] {receiver}, args));
                callerCalls.put(t, concat(new Object[] {method}, input));
            } catch (Graphs.Uncopyable | RuntimeException | StackOverflowError e) {
                // a call that cannot be copied is not run again
            }
        }

        /** The method of number {@code number} ({@link CallInserter.Result#methods}), declared by {@code type} or one
         * of its superclasses; null when there is none. */
        private Method entryMethod(Class<?> type, int number) {
            if (entryMethods.containsKey(number)) {
                return entryMethods.get(number);
            }
            Method found = null;
            String[] entry = number >= 0 && number < entries.size() ? entries.get(number).split("\t") : new String[0];
            for (Class<?> c = type; c != null && entry.length == 3 && found == null; c = c.getSuperclass()) {
                if (!c.getName().equals(entry[0])) {
                    continue;
                }
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals(entry[1]) && descriptor(m).equals(entry[2])) {
                        found = m;
                    }
                }
            }
            if (found != null) {
                try {
                    // a package-private or protected method the tests of its package call (red team 23)
                    found.setAccessible(true);
                } catch (RuntimeException e) {
                    found = null;
                }
            }
            entryMethods.put(number, found);
            return found;
        }

        /** The constants the job's derived inputs try, read at its first probed call: the reference's ({@link #tried})
         * and the candidate's own ({@link #theirs}). */
        synchronized void constants(Class<?> owner, Object[] constants, String[] named, Object[] theirLiterals,
                String[] theirNamed) {
            if (tried == null) {
                tried = Derived.withNamed(owner, constants, named);
                List<Object> own = new ArrayList<>();
                for (Object c : Derived.withNamed(owner, theirLiterals, theirNamed)) {
                    if (!java.util.Arrays.asList(tried).contains(c)) {
                        own.add(c);
                    }
                }
                theirs = own.toArray();
            }
        }

        /** A constructor's construction ({@link #constructing}), probed as a static method's call. */
        synchronized void probe(Class<?> owner, Constructor<?> constructor, Object receiver, Object[] args,
                Object[] constants, String[] named, Body reference) {
            if (calls < MAX_CALLS) {
                timed(() -> probeCall(owner, constructor, constructor.getParameterTypes(), receiver, args, constants,
                        named, reference));
            }
        }

        /** {@code probing} run as the probe's own work: its CPU counted in the job's probing ({@link #probing}). */
        private void timed(Runnable probing) {
            probingOn = Thread.currentThread();
            resume();
            try {
                probing.run();
            } finally {
                pause();
            }
        }

        /** Stops counting this thread's CPU as the job's probing; the thread's CPU time now. */
        private long pause() {
            long now = CPU.getCurrentThreadCpuTime();
            long since = probingSince;
            probingSince = -1;
            if (since >= 0) {
                probingNanos += Math.max(0, now - since);
            }
            return now;
        }

        /** Counts this thread's CPU as the job's probing again, from now; the thread's CPU time now. */
        private long resume() {
            long now = CPU.getCurrentThreadCpuTime();
            probingSince = now;
            return now;
        }

        synchronized void probe(Class<?> owner, String referenceName, Object receiver, Object[] args, Object[] constants,
                String[] named, Body reference) {
            Object[] caller = callerCalls.remove(Thread.currentThread());
            if (calls >= MAX_CALLS && caller == null) {
                return;
            }
            timed(() -> {
                // only for a method without parameters, whose input nothing but its receiver's state varies: a caller's
                // run is the whole of the project's work (Math-7's integrate: 35 ms each, 13 CPU-s a probe), where a
                // method's own arguments are varied at a fraction of that
                callersWanted &= args.length == 0;
                if (caller != null && callersWanted && ((Method) caller[0]).getDeclaringClass() == owner
                        && onStack((Method) caller[0])) {
                    probeCaller(owner, (Method) caller[0], rest(caller), named, reference);
                }
                if (calls < MAX_CALLS && decidedBy == null) {
                    Class<?>[] types = parameterTypes(owner, referenceName, args.length);
                    Method method = method(owner,
                            referenceName.substring(0, referenceName.length() - REFERENCE_SUFFIX.length()), types);
                    probeCall(owner, method, types, receiver, args, constants, named, reference);
                }
            });
            // what a later call, a receiver it enters or a construction it sees could add is an input of a call probed
            // after this one: there is none
            exhausted = calls >= MAX_CALLS && (!callersWanted || callerInputs >= MAX_CALLER);
        }

        private void probeCall(Class<?> owner, Executable method, Class<?>[] types, Object receiver, Object[] args,
                Object[] constants, String[] named, Body reference) {
            Object[] entry = new Object[args.length + 1];
            entry[0] = receiver;
            System.arraycopy(args, 0, entry, 1, args.length);
            Object[] input;
            try {
                input = Graphs.kept(entry);
            } catch (Graphs.Uncopyable u) {
                uncopyable(u);
                return;
            }
            String test = threads.get(Thread.currentThread());
            String text = Graphs.input(input, types);
            if (!seen.add(text)) {
                // an input probed already, as a derived one of an earlier call: its arguments on the built receivers
                // are not (a counter's index 4 is the earlier index 3's neighbour, and meets a larger counter only so)
                List<Object[]> chosen = new ArrayList<>();
                List<String> texts = new ArrayList<>();
                List<String> origins = new ArrayList<>();
                onBuilt(input, types, test, reference, chosen, texts, origins);
                compareAll(origins, test, owner, method, types, chosen, texts, reference,
                        new Graphs.View(owner.getName(), named));
                return;
            }
            calls++;
            // which inputs a call gives is fixed (the fix's own probe is the yardstick), and so is the order of
            // their rows (the first difference is the same in every run); the order they run in, the call's own
            // among them, is not, so that a candidate keeping a history cannot tell a derived input by its place
            List<Object[]> chosen = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            List<String> origins = new ArrayList<>();
            chosen.add(input);
            texts.add(text);
            origins.add(Words.CALL);
            derived += choose(Words.DERIVED, Derived.variants(input, types, tried), MAX_DERIVED - derived, types, chosen,
                    texts, origins);
            crossed += choose(Words.DERIVED, Derived.crossed(input, recorded),
                    Math.min(Derived.CROSSED_PER_CALL, MAX_CROSSED - crossed), types, chosen, texts, origins);
            States kept = states.get(test);
            reached += choose(Words.DERIVED, Derived.reached(input, kept == null ? List.of() : kept.objects),
                    Math.min(STATES_PER_CALL, MAX_REACHED - reached), types, chosen, texts, origins);
            onBuilt(input, types, test, reference, chosen, texts, origins);
            // last, so that the first difference the fix's own inputs show stays the one shown
            theirInputs += choose(Words.THEIRS, Derived.at(input, types, theirs),
                    Math.min(Derived.THEIRS_PER_CALL, MAX_THEIRS - theirInputs), types, chosen, texts, origins);
            // a new object is the construction's whole result: every field of it, however its constructor set it (through
            // this(...) or a private helper, which the hooked constructor's text does not name: red team 24)
            Graphs.View view = method instanceof Constructor ? Graphs.View.ALL : new Graphs.View(owner.getName(), named);
            compareAll(origins, test, owner, method, types, chosen, texts, reference, view);
            // a snapshot cut at its length limit is a large graph: not kept alive for the rest of the job
            if (text.length() <= Graphs.MAX_CHARS) {
                recorded.add(input);
            }
        }

        /** The call's arguments on receivers built by the class's constructors ({@link #builtStates}), into
         * {@code chosen}; none for a static method, a constructor, or a receiver of a subclass. */
        private void onBuilt(Object[] input, Class<?>[] types, String test, Body reference, List<Object[]> chosen,
                List<String> texts, List<String> origins) {
            if (input[0] == null || builtInputs >= MAX_BUILT) {
                return;
            }
            List<Object[]> on = Derived.reached(input, builtStates(test, reference));
            if (on.isEmpty()) {
                return;
            }
            // each call starts further along the built receivers, so that the job's calls meet them all
            Constructions kept = constructions.get(test);
            Collections.rotate(on, -(kept.calls++ * BUILT_PER_CALL % on.size()));
            builtInputs += choose(Words.BUILT, on, Math.min(BUILT_PER_CALL, MAX_BUILT - builtInputs), types, chosen,
                    texts, origins);
        }

        /** The call of {@code method} (one of the class's methods, with the method under probe called in it) that
         * the tests' code made from outside the class, its receiver and arguments as they were when it began
         * ({@code input}), run again whole, on the reference's version of the class and on the candidate's, and with
         * its arguments varied ({@link Derived#variants}; the literals and named constants the reference reads among
         * them): states the class's own code sets up from its arguments (a solver's bounds, its function) before the
         * method under probe reads them, which no variant of that method's own input reaches -- a receiver with a
         * field nudged could hold a state no call of the class builds, these are all ones its code built. */
        private void probeCaller(Class<?> owner, Method method, Object[] input, String[] named, Body reference) {
            String origin = Words.CALLER + ":" + signature(method);
            Class<?>[] types = method.getParameterTypes();
            String test = threads.get(Thread.currentThread());
            List<Object[]> chosen = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            List<String> origins = new ArrayList<>();
            int most = Math.min(CALLER_PER_CALL, MAX_CALLER - callerInputs);
            List<Object[]> candidates = new ArrayList<>();
            candidates.add(input);
            candidates.addAll(Derived.variants(input, types, tried));
            callerInputs += choose(origin, candidates, most, types, chosen, texts, origins);
            // nested calls of the method under probe run the reference's body, unrecorded, as in the reference's own
            // calls (the candidate's version of the class runs its own)
            Body whole = (receiver, args) -> {
                SIDE.set(reference);
                try {
                    return method.invoke(receiver, args);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            compareAll(origins, test, owner, method, types, chosen, texts, whole,
                    new Graphs.View(owner.getName(), named));
        }

        /** {@code chosen} compared ({@link #compare}), each of its origin in {@code origins}, in an order drawn anew each
         * job; their rows kept in the fixed order ({@link #keep}). */
        private void compareAll(List<String> origins, String test, Class<?> owner, Executable method,
                Class<?>[] types, List<Object[]> chosen, List<String> texts, Body reference, Graphs.View view) {
            Integer[] at = new Integer[chosen.size()];
            for (int i = 0; i < at.length; i++) {
                at[i] = i;
            }
            Collections.shuffle(java.util.Arrays.asList(at), order);
            String[][] made = new String[at.length][];
            try {
                for (int i : at) {
                    // an input at the candidate's own constant, one the candidate chose (a bound where the fix loops long,
                    // say), spends a CPU budget of its own, never the probe's (red team 25)
                    boolean theirs = Words.THEIRS.equals(origins.get(i));
                    if (theirs && theirNanos >= THEIRS_NANOS) {
                        continue;
                    }
                    long paused = theirs ? pause() : 0;
                    try {
                        compare(origins.get(i), test, owner, method, chosen.get(i), texts.get(i), reference, view,
                                made, i);
                    } finally {
                        if (theirs) {
                            theirNanos += Math.max(0, resume() - paused);
                        }
                    }
                }
            } finally {
                keep(made, chosen, types, texts);
            }
        }

        /** Whether a frame of {@code method} (by its class and name) is on this thread's stack: the call it was
         * copied at has not returned (or another call of it is under way), so the method under probe is reached from
         * it. */
        private boolean onStack(Method method) {
            String owner = method.getDeclaringClass().getName();
            return StackWalker.getInstance().walk(f -> f.anyMatch(
                    frame -> frame.getClassName().equals(owner) && frame.getMethodName().equals(method.getName())));
        }

        /** The first {@code most} of {@code variants} not probed yet in this job, added to {@code chosen} with their
         * snapshots in {@code texts} and {@code origin} in {@code origins}; how many. */
        private int choose(String origin, List<Object[]> variants, int most, Class<?>[] types, List<Object[]> chosen,
                List<String> texts, List<String> origins) {
            int taken = 0;
            for (Object[] variant : variants) {
                if (taken >= most) {
                    break;
                }
                String variantText = fresh(origin, variant, types);
                if (variantText != null) {
                    taken++;
                    chosen.add(variant);
                    texts.add(variantText);
                    origins.add(origin);
                }
            }
            return taken;
        }

        /** The rows of a call's inputs, in their fixed order. A row whose outcomes were also written whole
         * ({@link #compareCopies}: the candidate's differs) gets them after it, with its input written whole (empty
         * where that is what the row shows), while the job's {@link #WHOLE_TEXTS} last: in the rows' order (never the
         * order they ran in, which is drawn anew each job); the first that does not fit ends them for the job. */
        private void keep(String[][] made, List<Object[]> chosen, Class<?>[] types, List<String> texts) {
            for (int i = 0; i < made.length; i++) {
                String[] row = made[i];
                if (row == null) {
                    continue;
                }
                if (row.length > ROW) {
                    String input = wholeLeft > 0 ? wholeInput(chosen.get(i), types) : "";
                    String[] whole = java.util.Arrays.copyOf(row, ROW + 3);
                    whole[ROW] = input.equals(texts.get(i)) && input.length() <= SHOWN_INPUT ? "" : input;
                    whole[ROW + 1] = row[ROW];
                    whole[ROW + 2] = row[ROW + 1];
                    int size = whole[ROW].length() + whole[ROW + 1].length() + whole[ROW + 2].length();
                    row = java.util.Arrays.copyOf(row, ROW);
                    if (wholeLeft > 0 && size <= wholeLeft) {
                        wholeLeft -= size;
                        row = whole;
                    } else {
                        wholeLeft = 0;
                    }
                }
                rows.add(row);
                if (decidedBy == null && decides(row)) {
                    decidedBy = row[4];
                }
            }
        }

        /** Whether {@code row} decides the candidate's label whatever the rows after it say: the harness counts it and
         * finds the candidate's outcome unlike the fix's there ({@code nl2fix.validation.behaviour.label}: an input its
         * own probe found steady, run once here, on which the fix did again what it did there, neither a timeout nor a
         * test's own assertion failing, and the candidate did otherwise), so the label is {@code diverges} with this
         * row or one before it as its first difference, in every job of the bug alike (rows keep their fixed order).
         * Only beside the developer's fix: without one, every input's outcome goes to the clusters. The probe of an
         * overfitting candidate so ends at its first difference: Math-28's ran 1.7-2.9 CPU-s to its end. */
        private boolean decides(String[] row) {
            String expected = fixReference ? steady.get(row[4]) : null;
            if (expected == null || !STEADY.equals(row[9]) || !expected.equals(row[6]) || expected.equals(row[8])
                    || Words.TIMEOUT.equals(row[5])) {
                return false;
            }
            for (String assertion : TEST_ASSERTIONS) {
                if (row[5].startsWith("throws " + assertion + "=")) {
                    return false;
                }
            }
            return true;
        }

        private static String wholeInput(Object[] input, Class<?>[] types) {
            try {
                return Graphs.input(input, types, Graphs.View.ALL.whole());
            } catch (ThreadDeath d) {
                throw d;
            } catch (Throwable t) {
                return "";  // the input as its row shows it
            }
        }

        /** {@code row} with both outcomes written whole, now, while the objects are as the bodies left them (kept or not
         * in the rows' order, {@link #keep}); {@code row} as it is when they cannot be, or when what was compared no
         * longer reads as it did, before or after (a thread of the candidate's that outlived its stop, rewriting its
         * objects: red team 22). */
        private static String[] withWhole(String[] row, Outcome reference, Outcome candidate) {
            try {
                if (!reference.unchanged() || !candidate.unchanged()) {
                    return row;
                }
                String[] whole = java.util.Arrays.copyOf(row, ROW + 2);
                whole[ROW] = reference.whole();
                whole[ROW + 1] = candidate.whole();
                return reference.unchanged() && candidate.unchanged() ? whole : row;
            } catch (ThreadDeath d) {
                throw d;
            } catch (Throwable t) {
                return row;  // a text for a test, never a reason to lose the row
            }
        }

        /** Whether a row's candidate's outcome differs from the reference's, which repeated itself (or ran once on an
         * input its own probe found steady), and the candidate ended. */
        private static boolean differs(String[] row) {
            return !row[8].equals(row[6]) && (row[9].equals(row[6]) || STEADY.equals(row[9]))
                    && !Words.TIMEOUT.equals(row[7]);
        }

        /** An input not probed, as it cannot be copied faithfully; the first such one's reason is kept for the end row. */
        private void uncopyable(Graphs.Uncopyable u) {
            skipped++;
            if (firstUncopyable == null) {
                firstUncopyable = u.getMessage();
            }
        }

        /** The snapshot of an input not probed yet in this job (now counted as probed), else null. */
        private String fresh(String origin, Object[] input, Class<?>[] types) {
            String text = Graphs.input(input, types);
            if ((Words.THEIRS.equals(origin) || Words.BUILT.equals(origin)) && seen.contains(text)) {
                // a call's or a derived input already: probed once, as that, never marking one as probed: a receiver
                // built as a test's was, with a later call's arguments, would have that call passed over with every input
                // derived from it (Math-41's probe reached 121 inputs instead of 157)
                return null;
            }
            return seen.add(key(origin, text)) ? text : null;
        }

        /** Runs the reference twice and the candidate once on copies of {@code input}; the row into
         * {@code made[slot]} (none for an input that cannot be copied). Its copies' scratch files go after
         * ({@link Graphs#releaseFiles}). */
        private void compare(String origin, String test, Class<?> owner, Executable method, Object[] input, String text,
                Body reference, Graphs.View view, String[][] made, int slot) {
            int mark = Graphs.scratchMark();
            try {
                compareCopies(origin, test, owner, method, input, text, reference, view, made, slot);
            } finally {
                Graphs.releaseFiles(mark, -1);
            }
        }

        private void compareCopies(String origin, String test, Class<?> owner, Executable method, Object[] input,
                String text, Body reference, Graphs.View view, String[][] made, int slot) {
            if (spoiledBy != null || decidedBy != null) {
                return;
            }
            String digest = digest(key(origin, text));
            if (skip.contains(digest)) {
                passedOver++;
                return;
            }
            int runs = steady.containsKey(digest) ? 1 : 2;
            List<Object[]> statics = statics(owner);
            Object[][] copies = new Object[3][];
            Object[] staticValues = values(statics);
            Object[] twinStatics;
            // the reference's runs on copies of the class's static objects too (put back after each), as the
            // candidate's: a run must not change what the tests' own calls read next (a caller appending to the
            // class's static list: red team 23)
            Object[][] referenceStatics = new Object[2][];
            int referenceFiles = Graphs.scratchMark();
            int twinFiles;
            try {
                for (int i = 0; i < runs; i++) {
                    Object[] both = Graphs.copy(concat(input, staticValues));
                    copies[i] = java.util.Arrays.copyOf(both, input.length);
                    referenceStatics[i] = java.util.Arrays.copyOfRange(both, input.length, both.length);
                }
                twinFiles = Graphs.scratchMark();
                // the candidate's copy and its class's static fields in one graph: what they share stays shared
                Object[] both = Graphs.copy(concat(input, staticValues), twin);
                copies[2] = java.util.Arrays.copyOf(both, input.length);
                twinStatics = java.util.Arrays.copyOfRange(both, input.length, both.length);
            } catch (Graphs.Uncopyable u) {
                uncopyable(u);
                return;
            }
            String[] outcomes = {"", "", ""};
            Outcome last = null;  // the reference's last run, written whole where the candidate differs
            int i = 0;
            long referenceNanos = 0;
            try {
                // the reference twice (whether it repeats itself on this input, in this job), then the candidate
                boolean own = Words.CALL.equals(origin);
                referenceAllowance = Math.max(REFERENCE_FLOOR_NS, REFERENCE_PACE * longestCallNanos);
                for (; i < runs; i++) {
                    Object[] copy = copies[i];
                    set(statics, referenceStatics[i]);
                    long start = CPU.getCurrentThreadCpuTime();
                    referenceSince = start;
                    referenceOn = own ? null : Thread.currentThread();
                    try {
                        last = outcome(() -> run(reference, copy[0], rest(copy)), owner, copy, view);
                        outcomes[i] = last.text;
                    } finally {
                        referenceOn = null;
                    }
                    referenceNanos = Math.max(referenceNanos, CPU.getCurrentThreadCpuTime() - start);
                    restore(statics);
                    if (referenceStop.on(Thread.currentThread())) {
                        // stopped, and it returned all the same: a body that catches every Throwable took the stop
                        // as an answer, or the stop is still on its way (taken here). No answer either way
                        referenceStop.take();
                        outcomes[i] = Words.TIMEOUT;
                        made[slot] = row(origin, test, text, outcomes, runs);
                        return;
                    }
                    if (i == 0 && fixReference && !own && unexpected(outcomes[0])) {
                        made[slot] = row(origin, test, text, new String[] {outcomes[0], NO_EVIDENCE, ""}, runs);
                        return;
                    }
                }
                if (own) {
                    longestCallNanos = Math.max(longestCallNanos, referenceNanos);
                }
                i = 2;
                // what the reference wrote into its copies' files is written down: gone before the candidate runs
                Graphs.releaseFiles(referenceFiles, twinFiles);
                pending = row(origin, test, text, new String[] {outcomes[0], outcomes[1], Words.TIMEOUT}, runs);
                Outcome theirs;
                try {
                    theirs = candidate(owner, method, statics, twinStatics, copies[2], view, digest, referenceNanos);
                } finally {
                    pending = null;  // left set only by a body that never returns
                }
                if (theirs == null) {
                    skipped++;
                    return;
                }
                outcomes[2] = theirs.text;
                String[] row = row(origin, test, text, outcomes, runs);
                if (Ulps.alike(outcomes[0], outcomes[2])) {
                    row[8] = row[6];  // the same behaviour: what it shows stays the candidate's own
                }
                made[slot] = row;
                if (wholeLeft > 0 && differs(row)) {
                    made[slot] = withWhole(row, last, theirs);
                }
            } catch (ThreadDeath d) {
                if (budgetMetMs == 0 && referenceStop.on(Thread.currentThread())) {
                    referenceStop.take();
                    restore(statics);
                    if (i < runs) {
                        outcomes[i] = Words.TIMEOUT;
                        made[slot] = row(origin, test, text, outcomes, runs);
                    }
                    return;
                }
                if (candidateStop.on(Thread.currentThread())) {
                    candidateStop.take();
                }
                if (budgetMetMs == 0) {
                    outcomes[i] = Words.TIMEOUT;
                    made[slot] = row(origin, test, text, outcomes, runs);
                }
                throw d;
            }
        }

        /** Whether the reference's outcome is a failure no caller is meant to meet (a null dereferenced, an
         * index out of range, a cast or arithmetic gone wrong, no stack or memory left): a derived input on
         * which the developer's fix fails so is outside what it handles, and no evidence against a candidate.
         * A buggy method standing in for the fix (a user's bug) sets no such bound: where candidates part
         * there (one throws on null, one answers "") is what a user choosing among them needs to see. */
        private static boolean unexpected(String outcome) {
            for (String failure : UNEXPECTED) {
                if (outcome.startsWith("throws " + failure + "=")) {
                    return true;
                }
            }
            return false;
        }

        /** The candidate's outcome on {@code copy} (of its loader's classes; null when it cannot be run there),
         * in its own version of the
         * project: its class's static fields set as the reference's were (the values copied), the JDK-wide
         * settings put back after it and the threads it started ended, so that nothing of one input's call
         * reaches the next one's; where what it changed cannot be put back, or its objects fail that clean-up,
         * {@link #spoiledBy} is the input's {@code digest}. Its body may use {@link #CANDIDATE_PACE} times the
         * reference's CPU on the input ({@code referenceNanos}). */
        private Outcome candidate(Class<?> owner, Executable method, List<Object[]> statics, Object[] values,
                Object[] copy, Graphs.View view, String digest, long referenceNanos) {
            Class<?> own;
            Executable twinMethod;
            try {
                own = Graphs.twin(owner, twin);
                Class<?>[] types = method.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    types[i] = Graphs.twin(types[i], twin);
                }
                twinMethod = method instanceof Constructor ? own.getDeclaredConstructor(types)
                        : own.getDeclaredMethod(method.getName(), types);
                twinMethod.setAccessible(true);
                for (int i = 0; i < statics.size(); i++) {
                    Field f = own.getDeclaredField(((Field) statics.get(i)[0]).getName());
                    f.setAccessible(true);
                    f.set(null, values[i]);
                }
            } catch (Graphs.Uncopyable | ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;  // the twin has no such method or field: an input not probed, like one not copied
            }
            ThreadGroup group = Thread.currentThread().getThreadGroup();
            Set<Thread> before = Threads.of(group);
            boolean taintedBefore = Guard.tainted();
            boolean reconfiguredBefore = JdkState.reconfigured();
            int foreignBefore = JdkState.foreignLoggers();
            JdkState saved = new JdkState();
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            String name = Thread.currentThread().getName();
            Thread.currentThread().setContextClassLoader(twin);
            candidateAllowance = candidateCalled
                    ? Math.max(CANDIDATE_FLOOR_NS, CANDIDATE_PACE * referenceNanos) : Long.MAX_VALUE;
            candidateCalled = true;
            candidateSince = CPU.getCurrentThreadCpuTime();
            candidateOn = Thread.currentThread();
            candidateRunning = true;
            try {
                Outcome result = outcome(() -> {
                    try {
                        return twinMethod instanceof Constructor ? ((Constructor<?>) twinMethod).newInstance(rest(copy))
                                : ((Method) twinMethod).invoke(copy[0], rest(copy));
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                }, own, copy, view);
                if (candidateStop.on(Thread.currentThread())) {
                    // stopped as overdue, and it returned all the same: it caught the stop (a loop that ends only so,
                    // answering then what the fix would), or the stop is still on its way (taken here)
                    candidateStop.take();
                    return new Outcome(Words.TIMEOUT, null, null, view);
                }
                return result;
            } finally {
                candidateRunning = false;
                boolean clean = false;
                try {
                    Thread.currentThread().setContextClassLoader(context);
                    Thread.currentThread().setName(name);
                    Thread.interrupted();  // nor the interrupt flag it may have set on the thread
                    saved.restore();
                    Threads.stopNew(group, before);
                    clean = !(!taintedBefore && Guard.tainted() || !reconfiguredBefore && JdkState.reconfigured()
                            || JdkState.foreignLoggers() > foreignBefore || !Canary.jdkIntact());
                } catch (RuntimeException | Error e) {
                    if (e instanceof ThreadDeath) {
                        throw e;
                    }
                    // an object of the candidate's failed the clean-up (a logger of its own class, say): its doing
                } finally {
                    candidateOn = null;
                    if (!clean) {
                        spoiledBy = digest;
                    }
                }
            }
        }

        private String[] row(String origin, String test, String input, String[] outcomes, int runs) {
            int from = firstDifference(outcomes[0], outcomes[2]);
            return new String[] {Words.BEHAVIOUR, origin, test, shownInput(input), digest(key(origin, input)),
                shown(outcomes[0], from),
                digest(outcomes[0]), shown(outcomes[2], from), digest(outcomes[2]),
                NO_EVIDENCE.equals(outcomes[1]) ? NO_EVIDENCE : runs == 1 ? STEADY : digest(outcomes[1])};
        }

        /** {@link BehaviourProbe#sha} of {@code text}, hashed once however often an input's rows name it: SHA-256 in
         * the quick compiler's code takes 0.3 ms for a text of {@link Graphs#MAX_CHARS}, and an input's rows named its
         * own text twice, the reference's outcome up to three times and the candidate's, most often the same text,
         * once more (eight digests an input, an eighth of Math-82's probing). */
        private String digest(String text) {
            for (int i = 0; i < hashed.length; i++) {
                String known = hashed[i];
                if (known != null && (known == text || known.length() == text.length() && known.equals(text))) {
                    return digests[i];
                }
            }
            String made = sha(text);
            hashed[nextHashed] = text;
            digests[nextHashed] = made;
            nextHashed = (nextHashed + 1) % hashed.length;
            return made;
        }

        /** One body run on one copy: its result (or thrown class) and the state it left that a caller can
         * observe ({@code view}: not the private fields of the method's class that the reference leaves alone). */
        private static Outcome outcome(Run body, Class<?> owner, Object[] copy, Graphs.View view) {
            Object[] args = rest(copy);
            Object result = null;
            String thrown = null;
            Exhaustion.take();
            onCopies = true;
            try {
                result = body.run();
            } catch (ThreadDeath d) {
                throw d;
            } catch (Throwable t) {
                thrown = t.getClass().getName();
            } finally {
                onCopies = false;
            }
            if (Exhaustion.take() != null) {
                // ran out of heap or threads, caught or not: nl2fix's limits, which a candidate may test to take
                // the fix's path only here (found9/overfit_by_heap); on the fix's run, no evidence (UNEXPECTED)
                thrown = OutOfMemoryError.class.getName();
            }
            if (thrown != null) {
                // what a failed call left in its receiver, arguments and class is no state a caller may rely
                // on: a version that throws one statement later throws the same to every caller
                return new Outcome(Graphs.snapshot(new Object[] {null}, new String[] {"throws " + thrown}), null, null,
                        view);
            }
            List<Object[]> statics = new ArrayList<>();
            for (Object[] s : statics(owner)) {
                if (view.shows((Field) s[0])) {
                    statics.add(s);
                }
            }
            Object[] after = new Object[args.length + 2 + statics.size()];
            after[0] = result;
            after[1] = copy[0];
            System.arraycopy(args, 0, after, 2, args.length);
            String[] labels = new String[after.length];
            labels[0] = "return";
            labels[1] = "this";
            for (int i = 0; i < args.length; i++) {
                labels[2 + i] = "arg" + i;
            }
            for (int i = 0; i < statics.size(); i++) {
                after[2 + args.length + i] = statics.get(i)[1];
                labels[2 + args.length + i] = "static " + ((Field) statics.get(i)[0]).getName();
            }
            return new Outcome(Graphs.snapshot(after, labels, view), after, labels, view);
        }
    }

    /** What one body did on one copy, as written ({@code text}), and what it was written from: the result and the
     * objects afterwards ({@code roots}, as they are; null for a thrown exception or a stop, whose text is whole). */
    private static final class Outcome {
        final String text;
        private final Object[] roots;
        private final String[] labels;
        private final Graphs.View view;

        Outcome(String text, Object[] roots, String[] labels, Graphs.View view) {
            this.text = text;
            this.roots = roots;
            this.labels = labels;
            this.view = view;
        }

        /** The outcome written whole ({@link Graphs.View#whole}), from the objects as they are now: a text that was not
         * cut is that text (the reference's objects may have met its scratch files' release since). */
        String whole() {
            return roots == null || !text.contains("...") ? text : Graphs.snapshot(roots, labels, view.whole());
        }

        /** Whether the objects still read as {@link #text}. */
        boolean unchanged() {
            return roots == null || Graphs.snapshot(roots, labels, view).equals(text);
        }
    }

    /** The receivers one test class's entries left ({@link Session#entered}). */
    private static final class States {
        final List<Object> objects = new ArrayList<>();
        final Set<String> texts = new HashSet<>();
        int tries;
    }

    /** The constructions one test class's code made ({@link Session#construction}): the constructor, then its
     * arguments; and the receivers built from them ({@link Session#builtStates}). */
    private static final class Constructions {
        final List<Object[]> made = new ArrayList<>();
        /** The constructions built from already, by identity. */
        final Set<Object[]> done = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final List<Object> objects = new ArrayList<>();
        final Set<String> texts = new HashSet<>();
        int builds;
        /** Calls probed on the built receivers: each starts further along them. */
        int calls;
    }

    /** A call of one body on one input. */
    private interface Run {
        Object run() throws Throwable;
    }

    static final String REFERENCE_SUFFIX = "$nl2fix$ref";
    /** Columns of a probe row as the harness reads them, before the whole texts ({@link #WHOLE_TEXTS}). */
    static final int ROW = 10;

    /** What tells an input apart in a job and across its jobs (what its digest is of): its snapshot, after the
     * method it is a call of when that is not the method under probe ({@link Words#CALLER}). */
    static String key(String origin, String text) {
        return Words.CALL.equals(origin) || Words.DERIVED.equals(origin) ? text : origin + "\n" + text;
    }

    /** A method as a caller row names it: its name and its parameters' types ({@code solve(int,double)}). */
    static String signature(Method method) {
        StringBuilder out = new StringBuilder(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            out.append(i > 0 ? "," : "").append(types[i].getTypeName());
        }
        return out.append(')').toString();
    }

    /** {@code method}'s descriptor, as its class file writes it. */
    static String descriptor(Method method) {
        StringBuilder out = new StringBuilder("(");
        for (Class<?> type : method.getParameterTypes()) {
            out.append(descriptor(type));
        }
        return out.append(')').append(descriptor(method.getReturnType())).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return type.getName().replace('.', '/');
        }
        if (!type.isPrimitive()) {
            return "L" + type.getName().replace('.', '/') + ";";
        }
        return String.valueOf("ZBCSIJFDV".charAt(java.util.Arrays.asList(boolean.class, byte.class, char.class,
                short.class, int.class, long.class, float.class, double.class, void.class).indexOf(type)));
    }

    private static Object[] rest(Object[] copy) {
        return java.util.Arrays.copyOfRange(copy, 1, copy.length);
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The method under probe, as the wrapper declares it (the reference's name without its suffix). */
    static Method method(Class<?> owner, String name, Class<?>[] types) {
        try {
            return owner.getDeclaredMethod(name, types);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("the probe source has no wrapper " + name, e);
        }
    }

    /** The reference's parameter types (the wrapper's own, by the renamed method's name). */
    static Class<?>[] parameterTypes(Class<?> owner, String name, int count) {
        for (Method m : owner.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == count) {
                return m.getParameterTypes();
            }
        }
        Class<?>[] unknown = new Class<?>[count];
        java.util.Arrays.fill(unknown, Object.class);
        return unknown;
    }

    /** The target class's static fields that are not final, with their values now, in name order. */
    static List<Object[]> statics(Class<?> owner) {
        List<Object[]> out = new ArrayList<>();
        Field[] fields = owner.getDeclaredFields();
        java.util.Arrays.sort(fields, (a, b) -> a.getName().compareTo(b.getName()));
        for (Field f : fields) {
            int mod = f.getModifiers();
            if (!Modifier.isStatic(mod) || Modifier.isFinal(mod) || f.isSynthetic()) {
                continue;
            }
            try {
                f.setAccessible(true);
                out.add(new Object[] {f, f.get(null)});
            } catch (RuntimeException | IllegalAccessException e) {
                // not readable: neither compared nor put back
            }
        }
        return out;
    }

    static void restore(List<Object[]> statics) {
        for (Object[] saved : statics) {
            set((Field) saved[0], saved[1]);
        }
    }

    /** The values {@link #statics} read, in order. */
    static Object[] values(List<Object[]> statics) {
        Object[] values = new Object[statics.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = statics.get(i)[1];
        }
        return values;
    }

    /** The fields of {@code statics} set to {@code values}, in order. */
    static void set(List<Object[]> statics, Object[] values) {
        for (int i = 0; i < values.length; i++) {
            set((Field) statics.get(i)[0], values[i]);
        }
    }

    private static void set(Field field, Object value) {
        try {
            field.set(null, value);
        } catch (RuntimeException | IllegalAccessException e) {
            // as read: a field that could be read can be written
        }
    }
}
