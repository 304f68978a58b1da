package nl2fix.runner;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * nl2fix's test runner. {@code run REQUEST} validates one candidate and exits;
 * {@code serve} reads request-file paths from standard input, one per line, and validates each
 * in turn in this warm JVM (compiler, JUnit and JIT stay loaded; each candidate gets a fresh
 * class loader). Output: {@link Report} lines. After a candidate that left the JVM in doubt
 * (a test thread that would not die, out of memory), the server exits and is started afresh.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Report report = new Report();
        JdkState.isolateStreams();
        report.line("GUARD", ExitGuard.install() != null ? "exit" : "none");
        InMemoryCompiler compiler = new InMemoryCompiler();
        if (args.length == 2 && "run".equals(args[0])) {
            handle(Request.read(Paths.get(args[1])), compiler, report);
            ExitGuard.halt(0);
        }
        if (args.length != 1 || !"serve".equals(args[0])) {
            report.line("ERROR", "usage: Main run REQUEST | Main serve");
            ExitGuard.halt(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(FileDescriptor.in), StandardCharsets.UTF_8));
        report.line("READY");
        String line;
        while ((line = in.readLine()) != null) {
            if (!line.isEmpty() && handle(Request.read(Paths.get(line)), compiler, report)) {
                break;
            }
        }
        ExitGuard.halt(0);
    }

    /** Validates one candidate; true when this JVM should not take another. */
    static boolean handle(Request job, InMemoryCompiler compiler, Report report) throws Exception {
        report.line("START", job.id);
        Map<String, byte[]> overlay = Collections.emptyMap();
        if (job.source != null) {
            InMemoryCompiler.Result compiled;
            try {
                compiled = compiler.compile(new File(job.source), job.compileClasspath, job.release, job.encoding);
            } catch (Throwable t) {
                report.line("ERROR", "the compiler failed: " + t);
                report.line("END", job.id, "error", "1");
                return true;
            }
            if (!compiled.ok()) {
                report.line("COMPILE", "error", compiled.errors);
                report.line("END", job.id, "compile-error", "0");
                return false;
            }
            report.line("COMPILE", "ok", "");
            overlay = compiled.classes;
        }
        List<String> cp = job.classpath;
        URL[] urls = new URL[cp.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = new File(cp.get(i)).toURI().toURL();
        }
        CandidateLoader loader = new CandidateLoader(urls, overlay, SystemLoader.class.getClassLoader());
        ThreadGroup group = new ThreadGroup("nl2fix-candidate");
        JdkState saved = new JdkState();
        JdkState.isolateStreams();
        SystemLoader.use(loader);
        TestExecutor executor = new TestExecutor(loader, report, job, group);
        try {
            executor.runAll();
        } finally {
            SystemLoader.use(null);
            saved.restore();
        }
        boolean clean = Threads.stopAll(group) & Threads.killProcesses();
        boolean restart = executor.poisoned || executor.restartAdvised || !clean;
        report.line("END", job.id, executor.poisoned ? "poisoned" : executor.stopped ? "stopped" : "complete", restart ? "1" : "0");
        loader.close();
        return restart;
    }
}
