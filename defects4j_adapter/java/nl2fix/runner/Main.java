package nl2fix.runner;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * nl2fix's test runner. {@code run REQUEST} validates one candidate and exits;
 * {@code serve} validates one candidate per line of standard input in this warm JVM (compiler,
 * JUnit and JIT stay loaded; each candidate gets a fresh class loader). After a candidate that
 * left the JVM in doubt (a test thread that would not die, out of memory, a thread that outlived
 * its job, anything that could still run its code: {@link Lifetime}; its temporary folder and
 * working directory not back as at start: {@link Scratch}), the server exits and is started afresh.
 *
 * <p>Each job comes with a fresh 128-bit key on standard input ({@code run}: the first line;
 * {@code serve}: {@code REQUEST-PATH KEY} per line), read byte by byte straight into two local
 * {@code long}s and passed down as arguments only: no field, object or file ever holds it, and
 * the harness writes a job's line only after the previous job ended, so no code of another job
 * is there to read it either (a thread that outlives its job makes this JVM exit first). The
 * verdict comes from the lines {@link Report#signed} writes with that key, after the code under
 * test has stopped; anything the code under test prints is at most progress.
 */
public final class Main {
    private Main() {
    }

    private static final java.util.concurrent.atomic.AtomicBoolean STARTED = new java.util.concurrent.atomic.AtomicBoolean();

    /** serve: the job's folders as they were before the first job (run: null, the JVM ends with its job). */
    private static Scratch scratch;

    public static void main(String[] args) {
        // the package is exported (the launcher needs this method): code under test calling it
        // would start a second server reading the harness's input
        if (!STARTED.compareAndSet(false, true)) {
            throw new IllegalStateException("the nl2fix runner is already running");
        }
        try {
            start(args);
        } catch (Throwable t) {
            // the tests' threads are no daemons (a plain JVM's main thread is none): a JVM left to end
            // by itself would wait for one a candidate keeps alive, so every way out is a halt
            t.printStackTrace();
            Guard.halt(1);
        }
    }

    private static void start(String[] args) throws Exception {
        // first: the JDK makes the common pool once, with the factory named at that moment
        boolean poolHidden = PoolWorkers.makeCommon();
        // the JDK's security providers, which it loads on first use (a test's File.createTempFile seeds a
        // SecureRandom): registering their services is a change the guard retires a JVM for, so a test JVM
        // that met it in its first job would take no second candidate
        java.security.Security.getProviders();
        Report report = new Report();
        MemoryWall.check(report);
        // before the guard: each class the JDK's loader defines under a security manager pays its checks (JUnit's and
        // Hamcrest's, 0.17 instead of 0.23 CPU-s of a fresh JVM's start on a slow machine); no job has run yet
        TestClasses.defineClassPath(System.getProperty("java.class.path"), Main.class.getClassLoader());
        JdkState.isolateStreams();
        report.line("GUARD", Guard.install() ? "exit" : "none");
        report.line("REFLECTION", ReflectionWall.hideClassInternals() & poolHidden & ReflectionFilters.remember()
                ? "filtered" : "unfiltered");
        Canary.remember();
        String jobDirs = System.getProperty("nl2fix.jobDirs", "");
        String launchFile = System.getProperty("nl2fix.launchFile");
        hideLaunch();
        if (launchFile != null) {
            // the @argfile the JVM was started from (runner.py's jvm_command) holds the launch the command
            // line no longer shows: gone before any job, and before the job's folders are taken as they are
            java.nio.file.Files.deleteIfExists(Paths.get(launchFile));
        }
        InMemoryCompiler compiler = new InMemoryCompiler();
        InputStream in = new FileInputStream(FileDescriptor.in);
        if (args.length == 2 && "run".equals(args[0])) {
            long k0 = SipHash.readHex(in);
            long k1 = SipHash.readHex(in);
            handle(Request.read(Paths.get(args[1])), k0, k1, compiler, report);
            Guard.halt(0);
        }
        if (args.length != 1 || !"serve".equals(args[0])) {
            report.line("ERROR", "usage: Main run REQUEST | Main serve");
            Guard.halt(2);
        }
        scratch = Scratch.declared(jobDirs);
        Lifetime.rememberHeld();
        report.line("READY");
        String path;
        while ((path = readUntil(in, ' ')) != null) {
            long k0 = SipHash.readHex(in);
            long k1 = SipHash.readHex(in);
            if (readUntil(in, '\n') == null || handle(Request.read(Paths.get(path)), k0, k1, compiler, report)) {
                break;
            }
        }
        Guard.halt(0);
    }

    /** The system properties that name nl2fix or its launch, removed once the runner has read them (before
     * any job, whose {@link JdkState} puts these back after it): nothing in them tells a job that nl2fix
     * runs it, so that a candidate cannot be the fix only here (the red team's {@code right_under_nl2fix/}).
     * The class-file check refuses reading them besides; this is for a candidate whose buggy version
     * already reads properties. The runner's own folder leaves the class path (JUnit's stay, as in any
     * JUnit run); the main class, the system class loader's name and the module path go. */
    private static void hideLaunch() {
        String runner = System.getProperty("jdk.module.path", "");
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("nl2fix.")) {
                System.clearProperty(name);
            }
        }
        System.clearProperty("sun.java.command");
        System.clearProperty("java.system.class.loader");
        System.clearProperty("jdk.module.path");
        StringBuilder kept = new StringBuilder();
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!entry.isEmpty() && (runner.isEmpty() || !entry.startsWith(runner))) {
                kept.append(kept.length() == 0 ? "" : File.pathSeparator).append(entry);
            }
        }
        System.setProperty("java.class.path", kept.toString());
    }

    /** The bytes up to {@code end} (not included), or null at the end of the input. */
    private static String readUntil(InputStream in, char end) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != end) {
            if (c < 0) {
                return null;
            }
            b.write(c);
        }
        return new String(b.toByteArray(), StandardCharsets.UTF_8);
    }

    /** The classes of {@code compiled} that belong to the given top-level classes (all of them
     * when none are given). */
    static Map<String, byte[]> own(Map<String, byte[]> compiled, List<String> topLevel) {
        if (topLevel.isEmpty()) {
            return compiled;
        }
        Map<String, byte[]> kept = new java.util.HashMap<>();
        for (Map.Entry<String, byte[]> e : compiled.entrySet()) {
            int nested = e.getKey().indexOf('$');
            if (topLevel.contains(nested < 0 ? e.getKey() : e.getKey().substring(0, nested))) {
                kept.put(e.getKey(), e.getValue());
            }
        }
        return kept;
    }

    /** The class files under {@code root}, by binary name. */
    static Map<String, byte[]> classFiles(java.nio.file.Path root) throws IOException {
        Map<String, byte[]> found = new java.util.HashMap<>();
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(root)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) walk::iterator) {
                String rel = root.relativize(p).toString().replace(File.separatorChar, '/');
                if (rel.endsWith(".class")) {
                    found.put(rel.substring(0, rel.length() - 6).replace('/', '.'), java.nio.file.Files.readAllBytes(p));
                }
            }
        }
        return found;
    }

    /** Validates one candidate; true when this JVM should not take another. */
    static boolean handle(Request job, long k0, long k1, InMemoryCompiler compiler, Report report) throws Exception {
        int seq = 0;
        report.signed(k0, k1, seq++, job.id, Words.START);
        Map<String, byte[]> overlay = Collections.emptyMap();
        if (job.compiled != null) {
            overlay = classFiles(Paths.get(job.compiled));
        } else if (job.source != null) {
            InMemoryCompiler.Result compiled;
            try {
                compiled = compiler.compile(new File(job.source), job.compileClasspath, job.release, job.encoding);
            } catch (VirtualMachineError e) {
                // out of stack or heap outside javac's own handler: still the file's doing
                compiled = new InMemoryCompiler.Result(null, InMemoryCompiler.describe(e.getClass().getName()), true);
            } catch (Throwable t) {
                report.signed(k0, k1, seq++, job.id, Words.ERROR, "the compiler failed: " + t);
                report.signed(k0, k1, seq, job.id, Words.END, Words.FAILED, Words.YES);
                return true;
            }
            if (!compiled.ok()) {
                report.signed(k0, k1, seq++, job.id, Words.COMPILE, Words.FAILED, compiled.errors);
                report.signed(k0, k1, seq, job.id, Words.END, Words.COMPILE_ERROR,
                        compiled.compilerFailed ? Words.YES : Words.NO);
                return compiled.compilerFailed;
            }
            overlay = compiled.classes;
        }
        // from here on code of the candidate may run: a JVM that dies now is the candidate's doing
        report.signed(k0, k1, seq++, job.id, Words.COMPILE, Words.OK, "");
        // the class files as compiled, before any of their code runs: the harness checks them
        // against the buggy version's (only the method may change; see defects4j_adapter/bytecode);
        // classes given compiled were checked before they came
        if (job.compiled == null) {
            for (String name : new TreeSet<>(overlay.keySet())) {
                report.signedBytes(k0, k1, seq++, job.id, Words.CLASS_FILE, name, overlay.get(name));
            }
        }
        if (job.compileOnly) {
            report.signed(k0, k1, seq, job.id, Words.END, Words.COMPLETE, Words.NO);
            return false;
        }
        Set<String> candidateClasses = new HashSet<>(job.candidateClasses);
        for (String name : overlay.keySet()) {
            int nested = name.indexOf('$');
            candidateClasses.add(nested < 0 ? name : name.substring(0, nested));
        }
        // only the file's own classes are taken from what the candidate compiled: a top-level class
        // it adds (a stand-in for a test class, say) is never defined, and the harness rejects it
        overlay = own(overlay, job.candidateClasses);
        CallInserter.Result instrumented = job.reach == null ? null : CallInserter.instrument(overlay, job.reach);
        overlay = instrumented == null ? overlay : instrumented.classes;
        // computed here, before any of the job's code runs; never over the candidate's own file's classes
        Map<String, byte[]> closed = job.closedInit == null ? Collections.emptyMap()
                : Statics.prepare(classFiles(Paths.get(job.closedInit)), job.classpath, candidateClasses);
        List<String> entries = List.of();
        if (job.behaviour) {
            // the probe source: trusted, compiled by the harness; its receivers' states and the calls of its methods
            // seen at their entries (a class file the rewriter cannot read is probed without them)
            try {
                CallInserter.Result entered = CallInserter.receivers(overlay);
                overlay = entered.classes;
                entries = entered.methods;
            } catch (IOException | RuntimeException e) {
                // the calls' own inputs and those derived from them are probed all the same
            }
        }
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        SystemLoader.takeDelegated();
        Guard.takeTainted();
        JdkState.takeReconfigured();
        Guard.takeRefusal(); // an earlier job's, after its last test: not this job's
        Exhaustion.take(); // the same
        // A fresh loader per candidate, so nothing the code under test keeps in static fields outlives
        // it: the candidate's classes first, then the project's class path; runner, JUnit and the JDK
        // from the parent.
        List<String> cp = job.classpath;
        URL[] urls = new URL[cp.size() + 1];
        urls[0] = Overlay.entry(overlay);
        for (int i = 0; i < cp.size(); i++) {
            urls[i + 1] = new File(cp.get(i)).toURI().toURL();
        }
        URLClassLoader loader = JobClasses.loader(urls, SystemLoader.class.getClassLoader(), closed);
        Lifetime.Watch watch = new Lifetime.Watch(loader);
        // named as the JVM's own group, which a plain JUnit run's test thread prints (Thread#toString)
        ThreadGroup group = new ThreadGroup("main");
        JdkState saved = new JdkState();
        JdkState.isolateStreams();
        SystemLoader.use(loader);
        TestExecutor executor = new TestExecutor(loader, report, job, group, candidateClasses);
        ReflectionWall.judging(candidateClasses);
        if (job.behaviour) {
            BehaviourProbe.begin(own(classFiles(Paths.get(job.behaviourCandidate)), job.candidateClasses),
                    java.util.Arrays.copyOfRange(urls, 1, urls.length), SystemLoader.class.getClassLoader(), closed,
                    job.behaviourFixReference, job.behaviourSkip,
                    job.behaviourSteady, entries);
        }
        List<String[]> behaviour;
        MethodReach recording = instrumented == null ? null : MethodReach.start();
        try {
            TestClasses.defineFirst(loader, job, overlay.keySet());
            executor.runAll();
        } finally {
            behaviour = BehaviourProbe.end();
            MethodReach.stop();
            ReflectionWall.judging(Collections.emptySet());
            Thrown.watch(null); // the last test thread (its context class loader is the job's) and what it threw
            SystemLoader.use(null);
            saved.restore();
        }
        boolean clean = Threads.stopAll(group) & Threads.killProcesses() & !Threads.outlived(before);
        boolean restart = executor.poisoned || executor.restartAdvised || !clean | SystemLoader.takeDelegated()
                | Guard.takeTainted() | !Canary.intact() | JdkState.takeReconfigured();
        synchronized (executor.results) {
            for (String[] row : executor.results) {
                report.signed(k0, k1, seq++, job.id, row[0], java.util.Arrays.copyOfRange(row, 1, row.length));
            }
        }
        seq = behaviour(report, k0, k1, seq, job.id, behaviour);
        if (recording != null) {
            seq = recording.report(report, k0, k1, seq, job.id, instrumented);
            recording = null; // it knows the test threads, whose context class loader is the job's
        }
        int forged = executor.forged.get();
        if (forged > 0) {
            report.signed(k0, k1, seq++, job.id, Words.FORGED, Integer.toString(forged));
        }
        String end = executor.poisoned ? Words.POISONED : executor.stopped ? Words.STOPPED : Words.COMPLETE;
        // this frame holds nothing of the job from here on, so its loader can be shown unreachable
        executor = null;
        loader.close();
        loader = null;
        // the job's members hidden from reflection go, and with them the filter's hold on its classes
        ReflectionFilters.restore();
        if (scratch != null && !restart) {
            // the folders only once no code of the job can write them any more
            String left = watch.left();
            left = left != null ? left : scratch.left();
            // the canary once more: a finalizer may have run since
            left = left != null || Canary.intact() ? left : "the canary is not intact";
            if (left != null) {
                restart = true;
                System.err.println("nl2fix: this JVM takes no further job: " + left);
            }
        }
        report.signed(k0, k1, seq, job.id, Words.END, end, restart ? Words.YES : Words.NO);
        return restart;
    }

    /** A behaviour probe's rows, signed: their whole texts are bounded by the probe ({@link BehaviourProbe#WHOLE_TEXTS}),
     * past the report's own field limit. The next line's number. */
    static int behaviour(Report report, long k0, long k1, int seq, String id, List<String[]> rows) {
        for (String[] row : rows) {
            report.signed(Graphs.WHOLE_CHARS + 3, k0, k1, seq++, id, row[0], java.util.Arrays.copyOfRange(row, 1, row.length));
        }
        return seq;
    }
}
