package nl2fix.runner;

import java.security.Permission;

/**
 * The runner's security manager. It allows what the tests of a project need and refuses what
 * would let the code under test reach the judge: {@code System.exit} becomes a
 * {@link SecurityException} (the test fails, the runner goes on); reading live stack frames
 * ({@code java.lang.LiveStackFrame}, whose locals hold the job's key on the runner's thread) is
 * refused; no other thread may stop, suspend, interrupt or rename the runner's own thread. Changes
 * to JVM-wide state that {@link JdkState} cannot put back (URL and socket factories, security
 * providers and policy) are allowed but taint the JVM, which then takes no further candidate; so is
 * a security manager of the tests' own (JacksonDatabind's {@code AccessFixTest} puts one in and
 * this one back, as Defects4J lets it). The candidate's own classes cannot name
 * {@code System.setSecurityManager} nor call it reflectively (the class-file check); while a test's
 * manager is in, what this one refuses can only cost the candidate its own verdict: an exit or a
 * halt ends the JVM before its signed end, and the job's key lives in the locals of the runner's
 * thread, which no other thread's stack walk reaches. Needs
 * {@code -Djava.security.manager=allow} on Java 18+; where no security manager can be installed
 * (Java 24+) the runner says so on its {@code GUARD} line.
 */
final class Guard extends SecurityManager {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final java.util.Set<String> LOGGING_SET_UP = java.util.Set.of(
            "ensureLogManagerInitialized", "readPrimordialConfiguration", "initializeGlobalHandlers");
    private static volatile boolean allowExit;
    private static volatile String lastExit;
    /** What of the JVM's environment the candidate last asked for and was refused, since the last call
     * of {@link #takeRefusal}. A refusal the candidate catches must still cost it the test: a plain JVM
     * has no such refusal, so {@code catch (SecurityException e)} alone would tell nl2fix's JVM apart. */
    private static volatile String refused;
    private static volatile boolean tainted;
    /** The candidate asked for the declared members of a class of another loader on this thread; the package is next. */
    private static final ThreadLocal<Boolean> DECLARED_ASKED = new ThreadLocal<>();
    private static volatile Thread runnerThread;

    @Override
    public void checkPermission(Permission perm) {
        String name = perm.getName();
        if (readsEnvironment(perm) && ReflectionWall.candidateAsks()) {
            refuse("nl2fix: the candidate's classes may not " + (perm instanceof java.io.FilePermission
                    ? "resolve links under the JVM's process entries: " + name : "read the file systems' sizes"));
        }
        if (perm instanceof RuntimePermission) {
            if ("liveStackFrames".equals(name)) {
                throw new SecurityException("nl2fix: the code under test may not read live stack frames");
            }
            if ("setSecurityManager".equals(name)) {
                tainted = true;
            }
            if ("accessDeclaredMembers".equals(name) && ReflectionWall.candidateAsks()) {
                // the candidate, or a project's reflective helper it drives, asks for the private members of a class
                // of another loader; the JDK names its package next (checkPackageAccess)
                DECLARED_ASKED.set(Boolean.TRUE);
            }
            // a factory set once stays for the JVM's life (a second set throws): the next candidate's
            // tests would meet this one's. A shutdown hook, though, runs after the last job's signed
            // end, when nothing it prints counts, and the JDK adds its own (java.util.logging's
            // LogManager does on first use), so it does not retire the JVM.
            if ("setFactory".equals(name)) {
                tainted = true;
            }
        } else if (perm instanceof java.security.SecurityPermission && changesSecurity(name)) {
            tainted = true;
        } else if (setsJvmDefault(perm) && !loggingSetsItselfUp() && ReflectionWall.candidateAsks()) {
            // JVM-wide state the runner does not put back, changed by the candidate: a logger's level, the
            // default authenticator, proxy selector or cookie handler, a JDBC log: the next candidate's
            // tests would meet it (a fix judged wrong in a warm JVM is not judged again), so the JVM goes.
            // Not when the project's own tests change it: they do so in every job alike.
            tainted = true;
        } else if (perm instanceof java.lang.reflect.ReflectPermission && "suppressAccessChecks".equals(name)
                && !ReflectionWall.mayLookUpPrivately()) {
            throw new SecurityException("nl2fix: the candidate's classes may not make a private lookup (ReflectionWall)");
        }
    }

    /** The JVM's own process entries (its command line, mounts, status) and the kernel's: what a
     * candidate could tell nl2fix's JVM from any other by (and be the fix only there), read through a path
     * built at run time that no class-file check sees. Every file read of the JDK's asks here first; the
     * path is resolved as the kernel will (links included: {@code /dev/fd} leads into {@code /proc}). */
    @Override
    public void checkRead(String file) {
        String path = canonical(file);
        if (processEntry(path) && ReflectionWall.candidateAsks()) {
            refuse("nl2fix: the candidate's classes may not read the JVM's process entries: " + file);
        }
        if (HiddenPlaces.hides(path) && ReflectionWall.candidateAsks()) {
            refuse("nl2fix: the candidate's classes may not look where nl2fix hides what a plain run shows: " + file);
        }
    }

    /** Round 6 ({@code tests/fixtures/redteam/found6/}): besides reads, a link resolved under {@code /proc}
     * ({@code Files#readSymbolicLink} asks for {@code FilePermission "readlink"}: {@code /proc/self/fd/0} is
     * the runner's key pipe) and the file systems' sizes ({@code File#getTotalSpace} and kin ask for
     * {@code getFileSystemAttributes}, a {@code FileStore} for {@code getFileStoreAttributes}: the job's
     * scratch tmpfs has the sandbox's quota) tell nl2fix's JVM from the user's. No Defects4J project's code
     * asks for either; the project's own code, off the candidate's stack, still may. */
    private static boolean readsEnvironment(Permission perm) {
        if (perm instanceof java.io.FilePermission) {
            // the link itself, not where it leads (/proc/self/fd/7 leads to a jar: its path is the tell)
            java.io.File link = new java.io.File(perm.getName()).getAbsoluteFile();
            return perm.getActions().contains("readlink") && (processEntry(canonical(link.getPath()))
                    || link.getParent() != null && processEntry(canonical(link.getParent())));
        }
        return perm instanceof RuntimePermission && ("getFileSystemAttributes".equals(perm.getName())
                || "getFileStoreAttributes".equals(perm.getName()));
    }

    private static void refuse(String why) {
        refused = why;
        throw new SecurityException(why);
    }

    /** The candidate's last refused read of the JVM's environment since the last call, or null: the test
     * during which it came fails whether or not the candidate caught the refusal. */
    static String takeRefusal() {
        String s = refused;
        refused = null;
        return s;
    }

    @Override
    public void checkRead(String file, Object context) {
        checkRead(file);
    }

    /** A body the behaviour probe runs on copies, the reference's as the candidate's, writes and deletes no file
     * (red team 19): what it does is what it leaves in its copies, where it is compared; a file it opened by its path
     * (the test's own, named by a descriptor's link) would reach the test and the inputs copied after it. */
    @Override
    public void checkWrite(String file) {
        onCopies(file);
        super.checkWrite(file);
    }

    @Override
    public void checkWrite(java.io.FileDescriptor fd) {
        onCopies("a file descriptor");
        super.checkWrite(fd);
    }

    @Override
    public void checkDelete(String file) {
        onCopies(file);
        super.checkDelete(file);
    }

    private static void onCopies(String file) {
        if (BehaviourProbe.onCopies()) {
            throw new SecurityException("nl2fix: a body the behaviour probe runs on copies may not write " + file);
        }
    }

    /** The path as the kernel will resolve it (links included). */
    private static String canonical(String file) {
        try {
            return new java.io.File(file).getCanonicalPath();
        } catch (java.io.IOException e) {
            return new java.io.File(file).getAbsolutePath();
        }
    }

    private static boolean processEntry(String path) {
        return path.equals("/proc") || path.startsWith("/proc/") || path.equals("/sys") || path.startsWith("/sys/");
    }

    @Override
    public void checkPackageAccess(String pkg) {
        if (DECLARED_ASKED.get() != null) {
            DECLARED_ASKED.remove();
            // the private members of the JDK's or JUnit's classes, which every later job of this JVM shares: what the
            // candidate sets there nothing puts back or checks (the JDK's temporary folder, JUnit's class validator:
            // red team 14's tmpdir_path, junit_validator), and a warm failure is final. Not java.lang's: a helper
            // that walks a class's members up its superclasses reaches Object's (Beans-1's, Jackson's introspection),
            // and what java.lang holds that a job may change is put back or checked (JdkState, Canary)
            if (!"java.lang".equals(pkg)) {
                tainted = true;
            }
        }
        if (!ReflectionWall.mayReach(pkg)) {
            String why = "nl2fix: the candidate's classes may not reflect into " + pkg + " (ReflectionWall)";
            if (ReflectionWall.sourceAsks()) {
                // asked by the candidate, itself or through the project's own code, the test fails even where it
                // catches the refusal: a plain JVM lists a JDK class's public methods (red team 13's
                // public_methods: Charset.forName("UTF-8").getClass().getMethods())
                refuse(why);
            }
            throw new SecurityException(why);
        }
        super.checkPackageAccess(pkg);
    }

    /** Changes the Java security model guards, of JVM-wide defaults that {@link JdkState} does not put back.
     * A system property it does put back, but the JDK reads some once and keeps them ({@code java.io.tmpdir}
     * at the first temporary file, {@code jdk.serialFilter}): red team 11's {@code tmpdir_capture} left every
     * later job's temporary files in a folder the runner then emptied. The deserialization filter, set once,
     * holds for the JVM's life (red team 11's {@code serial_filter}: the fix judged next {@code wrong}). */
    private static boolean setsJvmDefault(Permission perm) {
        String kind = perm.getClass().getName();
        String name = perm.getName();
        return "java.util.logging.LoggingPermission".equals(kind)
                || perm instanceof java.util.PropertyPermission && perm.getActions().contains("write")
                || perm instanceof java.io.SerializablePermission && name.startsWith("serialFilter")
                || ("java.net.NetPermission".equals(kind) || "javax.net.ssl.SSLPermission".equals(kind)
                || "java.sql.SQLPermission".equals(kind)) && (name.startsWith("set") || name.startsWith("deregister"))
                || perm instanceof RuntimePermission && ("preferences".equals(name) || "charsetProvider".equals(name)
                || "localeServiceProvider".equals(name) || "loggerFinder".equals(name));
    }

    /** The JDK's own first reading of its logging configuration (at the first logger, the first record
     * logged) checks the same permission as a change: no change anyone asked for. */
    private static boolean loggingSetsItselfUp() {
        return WALKER.walk(s -> s.anyMatch(f -> "java.util.logging.LogManager".equals(f.getClassName())
                && LOGGING_SET_UP.contains(f.getMethodName())));
    }

    private static boolean changesSecurity(String name) {
        return name.startsWith("insertProvider") || name.startsWith("removeProvider") || name.startsWith("putProvider")
                || name.startsWith("clearProvider") || name.startsWith("setProperty.") || "setPolicy".equals(name);
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
        checkPermission(perm);
    }

    @Override
    public void checkAccess(Thread t) {
        Thread runner = runnerThread;
        if (t == runner && Thread.currentThread() != runner) {
            throw new SecurityException("nl2fix: the code under test may not modify the runner's thread");
        }
    }

    @Override
    public void checkExit(int status) {
        if (!allowExit) {
            lastExit = "System.exit(" + status + ") called by the code under test";
            throw new SecurityException("nl2fix: " + lastExit);
        }
    }

    /** The exit attempt since the last call, or null. */
    static String takeExitAttempt() {
        String s = lastExit;
        lastExit = null;
        return s;
    }

    /** Whether the code under test changed JVM-wide state that cannot be put back, since the last call of
     * {@link #takeTainted} (which this leaves as it is). */
    static boolean tainted() {
        return tainted;
    }

    /** Whether the code under test changed JVM-wide state that cannot be put back, since the last call. */
    static boolean takeTainted() {
        boolean t = tainted;
        tainted = false;
        return t;
    }

    /** Installs the guard for the calling (the runner's) thread; false where the JVM has no
     * security manager any more. */
    static boolean install() {
        runnerThread = Thread.currentThread();
        // before the guard is in: its every read asks HiddenPlaces, whose loading would ask again
        HiddenPlaces.remember();
        try {
            System.setSecurityManager(new Guard());
            return true;
        } catch (UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    static void halt(int status) {
        allowExit = true;
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }
}
