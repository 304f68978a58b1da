package nl2fix.runner;

import java.util.Collections;
import java.util.Set;

/**
 * What a candidate may not name in its bytecode (JDK internals, the runner: the class-file check's
 * policy) it may not reach by reflection either, when its class already reflects by name (a class
 * that calls {@code Class.forName} and {@code setAccessible}, as commons-lang's {@code FieldUtils}
 * does, passes the class-file check with every string it likes). The prize is
 * {@code sun.misc.Unsafe}, which reads and writes any memory of the JVM: the runner's listener, the
 * JDK's tables, the job's key on the runner thread's stack ({@code tests/fixtures/redteam/found/}).
 *
 * <p>Three doors, each closed while a class of the candidate's source file is on the stack (the
 * project's own code and libraries reflect as before; the runner's own reflection, the behaviour
 * probe's, is its own business):
 * <ul>
 * <li>the JDK asks the security manager about a package whenever reflection or a method-handle
 * lookup crosses from a class loader into one it does not descend from ({@code getDeclaredField},
 * {@code getMethod}, {@code findVirtual} on a JDK class): {@code sun.*}, {@code jdk.*},
 * {@code com.sun.*} and the runner's package are refused ({@link #mayReach});</li>
 * <li>{@code MethodHandles.privateLookupIn}, a full-privilege lookup in any open class, which
 * resolves private members without any package check ({@link #mayLookUpPrivately});</li>
 * <li>{@code java.lang.Class}'s own private reflection natives ({@code getDeclaredFields0} and
 * kin), which hand out members with no check at all: hidden from reflection JVM-wide at start-up
 * through the JDK's own filter ({@link #hideClassInternals}), as the JDK hides {@code Class}'s fields.</li>
 * </ul>
 * "The candidate asks" when a frame of the candidate's classes is on the stack: the classes of its source
 * file and any class its job's loader did not read from the class path itself ({@link #madeAtRunTime}),
 * wherever their frames are. And on any thread but the test threads the runner started for the job
 * ({@link #testThread}), a frame of <em>any</em> class of the job (the project's included) is enough:
 * work handed to another thread (the common pool, an executor, a timer, a {@code CompletableFuture}, a
 * finalizer) carries no trace of who handed it over, so a task of the project's own reflective
 * utility ({@code MethodUtils}) queued by the candidate ran there with nothing of the candidate's on the
 * stack ({@code tests/fixtures/redteam/found5/pool_work}). What such threads may not do is only what the
 * candidate may not: reach the packages below by reflection. A library's own {@code Unsafe} is hidden
 * from reflection ({@link JobClasses}).
 */
final class ReflectionWall {
    private ReflectionWall() {
    }

    /** JDK internals and the runner, as the class-file check's policy names them; and the JDK's
     * packages that call or define anything by name on the caller's behalf (a trusted lookup in
     * {@code java.lang.invoke}, {@code java.beans}' event handlers, script engines). */
    private static final String[] RESTRICTED = {"sun.", "jdk.", "com.sun.", "nl2fix.", "java.lang.invoke.",
        "java.beans.", "javax.script."};
    private static final Set<String> CLASS_INTERNALS = Set.of(
            "getDeclaredFields0", "getDeclaredMethods0", "getDeclaredConstructors0", "getDeclaredClasses0",
            "privateGetDeclaredFields", "privateGetDeclaredMethods", "privateGetDeclaredConstructors",
            "privateGetPublicFields", "privateGetPublicMethods", "searchFields", "searchMethods",
            "getDeclaredPublicMethods", "getField0", "getMethod0", "getMethodsRecursive", "getConstructor0",
            "reflectionData", "getReflectionFactory", "getConstantPool", "getRecordComponents0");
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    /** For whose code asks: with the hidden frames, since a method reference ({@code pool.submit(f::list)}) runs
     * the JDK's method from a lambda's hidden class, the candidate's own frame nowhere else on a pool thread's
     * stack (red team 12). A lambda's class is named for the class that made it. */
    private static final StackWalker ASKER = StackWalker.getInstance(
            java.util.Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE, StackWalker.Option.SHOW_HIDDEN_FRAMES));
    private static volatile Set<String> candidate = Collections.emptySet();
    /** The threads the runner started for the job's tests, while the job runs. */
    private static final Set<Thread> TEST_THREADS = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** A thread a test thread started with no class of the job on its stack (JUnit's own: a test with a
     * time limit runs on a thread JUnit starts) is a test thread too; one started by the job's code, the
     * candidate's or the project's, is not. Decided on the starting thread, as the new thread is made. */
    private static final InheritableThreadLocal<Boolean> TEST_LINEAGE = new InheritableThreadLocal<>() {
        @Override
        protected Boolean childValue(Boolean parent) {
            return parent != null && parent && testThread() && !jobOnStack() ? Boolean.TRUE : null;
        }
    };
    private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();
    private static final ClassLoader SYSTEM = ClassLoader.getSystemClassLoader();
    /** Set while this thread walks its stack: the walk's own class loading and linking (lambda
     * bootstraps in {@code jdk.internal.*}) asks about packages too, and must not walk again. */
    private static final ThreadLocal<Boolean> WALKING = new ThreadLocal<>();

    /** The top-level classes of the candidate's source file, while its job runs (empty between jobs). */
    static void judging(Set<String> classes) {
        if (classes.isEmpty()) {
            TEST_THREADS.clear();
        }
        candidate = classes;
    }

    /** A thread the runner starts to run the job's tests, where the stack tells who asks. */
    static void testThread(Thread t) {
        TEST_THREADS.add(t);
    }

    /** Called first on each test thread the runner starts: threads JUnit starts from it are test threads too. */
    static void onTestThread() {
        TEST_LINEAGE.set(Boolean.TRUE);
    }

    private static boolean testThread() {
        return TEST_THREADS.contains(Thread.currentThread()) || TEST_LINEAGE.get() != null && !TEST_THREADS.isEmpty();
    }

    private static boolean jobOnStack() {
        return WALKER.walk(s -> s.anyMatch(f -> JobClasses.isJobLoader(f.getDeclaringClass().getClassLoader())
                || madeAtRunTime(f.getDeclaringClass())));
    }

    static boolean mayReach(String pkg) {
        for (String prefix : RESTRICTED) {
            if ((pkg + ".").startsWith(prefix)) {
                return loading() || !candidateAsks();
            }
        }
        return true;
    }

    /** Whether a class loader asks, loading a class of that package (linking, not reflection: a
     * candidate class instrumented to call the runner's {@link MethodReach} (the recording job), a
     * project's library in {@code com.sun.*}, {@code Class.forName} of a name, which hands out nothing but the class);
     * what the candidate may link to is the class-file check's. */
    private static boolean loading() {
        if (WALKING.get() != null) {
            return true;
        }
        WALKING.set(Boolean.TRUE);
        try {
            return WALKER.walk(s -> s.map(StackWalker.StackFrame::getClassName)
                    .filter(n -> !n.startsWith("nl2fix.runner.Guard") && !n.startsWith("nl2fix.runner.ReflectionWall"))
                    .findFirst().map(n -> n.startsWith("java.lang.ClassLoader") || n.startsWith("jdk.internal.loader."))
                    .orElse(false));
        } finally {
            WALKING.remove();
        }
    }

    static boolean mayLookUpPrivately() {
        if (candidate.isEmpty() || WALKING.get() != null) {
            return true;
        }
        WALKING.set(Boolean.TRUE);
        boolean lookup;
        try {
            lookup = WALKER.walk(s -> s.limit(12).anyMatch(
                    f -> "java.lang.invoke.MethodHandles".equals(f.getClassName()) && "privateLookupIn".equals(f.getMethodName())));
        } finally {
            WALKING.remove();
        }
        return !lookup || !candidateAsks();
    }

    /** Whether a class of the candidate's (or, off the test threads, of the job) is on the stack and the
     * nearest caller outside the JDK is not the runner (whose behaviour probe reflects over objects while
     * a candidate's wrapper is below it). */
    static boolean candidateAsks() {
        Set<String> classes = candidate;
        if (classes.isEmpty() || WALKING.get() != null) {
            return false;
        }
        WALKING.set(Boolean.TRUE);
        try {
            return walkFor(classes);
        } finally {
            WALKING.remove();
        }
    }

    private static boolean walkFor(Set<String> classes) {
        boolean testThread = testThread();
        return ASKER.walk(s -> {
            boolean first = true;
            for (java.util.Iterator<StackWalker.StackFrame> it = s.iterator(); it.hasNext();) {
                StackWalker.StackFrame f = it.next();
                String name = f.getClassName();
                if (name.startsWith("nl2fix.runner.Guard") || name.startsWith("nl2fix.runner.ReflectionWall")) {
                    continue;
                }
                if (first && !jdk(name)) {
                    first = false;
                    if (name.startsWith("nl2fix.runner.")) {
                        return false;
                    }
                }
                int nested = name.indexOf('$');
                Class<?> c = f.getDeclaringClass();
                if (classes.contains(nested < 0 ? name : name.substring(0, nested)) || madeAtRunTime(c)
                        || !testThread && JobClasses.isJobLoader(c.getClassLoader())) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Whether the nearest frame that is not the JDK's (nor the guard's) is the candidate's or the project's own
     * source's: the candidate asked, itself or through the project's reflective helper (red team 13's
     * {@code public_methods}, the lead's {@code helper_methods}), not a library jar on its behalf, which may catch
     * a refusal and go another way (Objenesis does). */
    static boolean sourceAsks() {
        Set<String> classes = candidate;
        if (classes.isEmpty() || WALKING.get() != null) {
            return false;
        }
        WALKING.set(Boolean.TRUE);
        try {
            return ASKER.walk(s -> s.filter(f -> !f.getClassName().startsWith("nl2fix.runner.Guard")
                    && !f.getClassName().startsWith("nl2fix.runner.ReflectionWall") && !jdk(f.getClassName()))
                    .findFirst().map(f -> {
                        String name = f.getClassName();
                        int nested = name.indexOf('$');
                        Class<?> c = f.getDeclaringClass();
                        return classes.contains(nested < 0 ? name : name.substring(0, nested)) || madeAtRunTime(c)
                                || JobClasses.own(c) && !fromJar(c);
                    }).orElse(false));
        } finally {
            WALKING.remove();
        }
    }

    private static boolean fromJar(Class<?> c) {
        java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
        return source != null && source.getLocation() != null && source.getLocation().getPath().endsWith(".jar");
    }

    /** A class that came from none of the places the JVM was given: not the JDK's, not the runner's
     * or JUnit's (the system loader's), and not one the job's loader read from its class path itself
     * ({@link JobClasses#own}: a class defined from bytes may claim any name, the name of a class path class
     * not loaded yet included, and any code source). Any other loader's classes are the job's own making.
     * Its frames are the candidate's wherever they run. */
    private static boolean madeAtRunTime(Class<?> c) {
        ClassLoader loader = c.getClassLoader();
        if (loader == null || loader == PLATFORM || loader == SYSTEM || loader == SYSTEM.getParent()
                || loader.getClass().getName().startsWith("jdk.internal.")) {
            // the JDK's own loaders, its reflection's generated accessors' among them (after a few calls
            // of a method, Method#invoke runs through a class it defines), which no code outside the
            // JDK can make: jdk.* is out of the candidate's reach
            return false;
        }
        return !JobClasses.own(c);
    }

    private static boolean jdk(String name) {
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.") || name.startsWith("com.sun.");
    }

    /** Hides {@code java.lang.Class}'s private reflection natives from reflection, JVM-wide, before any
     * code under test runs (needs {@code --add-exports java.base/jdk.internal.reflect=nl2fix.runner});
     * false when this JDK offers no such filter. */
    static boolean hideClassInternals() {
        return ReflectionFilters.hideForGood("Methods", Class.class, CLASS_INTERNALS);
    }
}
