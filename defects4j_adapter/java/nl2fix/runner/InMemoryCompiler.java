package nl2fix.runner;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * Compiles one source file against the compiled project with javax.tools, keeping the class
 * files in memory. The compiler and its file manager (with its index of the class path) stay
 * warm between candidates; only the changed file is parsed and compiled.
 */
final class InMemoryCompiler {
    private static final int MAX_ERRORS = 10;

    static final class Result {
        final Map<String, byte[]> classes;
        final String errors;
        /** javac itself failed on the file (its stack or heap): the compiling JVM is replaced. */
        final boolean compilerFailed;

        Result(Map<String, byte[]> classes, String errors, boolean compilerFailed) {
            this.classes = classes;
            this.errors = errors;
            this.compilerFailed = compilerFailed;
        }

        boolean ok() {
            return errors == null;
        }
    }

    /** Found on the first compile: a test JVM never compiles (the JVM that only compiles does). */
    private JavaCompiler javac;
    private final Map<String, StandardJavaFileManager> managers = new HashMap<>();

    private StandardJavaFileManager manager(List<String> classpath, String encoding) throws IOException {
        String key = encoding + "\n" + String.join(File.pathSeparator, classpath);
        StandardJavaFileManager fm = managers.get(key);
        if (fm == null) {
            fm = javac.getStandardFileManager(null, Locale.ROOT, Charset.forName(encoding));
            List<File> files = new ArrayList<>();
            for (String p : classpath) {
                files.add(new File(p));
            }
            fm.setLocation(StandardLocation.CLASS_PATH, files);
            managers.put(key, fm);
        }
        return fm;
    }

    Result compile(File source, List<String> classpath, String release, String encoding) throws IOException {
        if (javac == null) {
            javac = ToolProvider.getSystemJavaCompiler();
        }
        if (javac == null) {
            throw new IOException("no Java compiler in this JVM (a JRE, not a JDK?)");
        }
        StandardJavaFileManager std = manager(classpath, encoding);
        final Map<String, byte[]> out = new HashMap<>();
        JavaFileManager fm = new ForwardingJavaFileManager<StandardJavaFileManager>(std) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, final String className,
                    JavaFileObject.Kind kind, FileObject sibling) {
                URI uri = URI.create("mem:///" + className.replace('.', '/') + kind.extension);
                return new SimpleJavaFileObject(uri, kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return new ByteArrayOutputStream() {
                            @Override
                            public void close() {
                                out.put(className, toByteArray());
                            }
                        };
                    }
                };
            }
        };
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = new ArrayList<>(Arrays.asList(
                "-encoding", encoding, "-proc:none", "-g", "-nowarn", "-implicit:none", "-Xlint:none"));
        if (release != null && !release.isEmpty()) {
            // -source/-target, not --release: the project's own build (javac at -source 1.x) sees
            // the running JDK's whole API, and so must a candidate, or a call of a newer method
            // would be uncompilable here and compile under Defects4J (see java_level.py)
            options.addAll(Arrays.asList("-source", release, "-target", release, "-Xlint:-options"));
        }
        // javac catches its own crashes and only logs them ("An exception has occurred in the compiler")
        StringWriter log = new StringWriter();
        Boolean ok = javac.getTask(log, fm, diagnostics, options, null, std.getJavaFileObjects(source)).call();
        if (ok) {
            return new Result(out, null, false);
        }
        StringBuilder errors = new StringBuilder();
        int n = 0;
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR || n++ >= MAX_ERRORS) {
                continue;
            }
            String where = d.getSource() == null ? "" : new File(d.getSource().getName()).getName() + ":" + d.getLineNumber() + ": ";
            errors.append(where).append("error: ").append(d.getMessage(Locale.ROOT)).append('\n');
        }
        if (n == 0) {
            String failure = ownFailure(log.toString());
            if (failure == null) {
                throw new IOException("javac failed without a compile error: " + tail(log.toString()));
            }
            return new Result(null, failure, true);
        }
        return new Result(null, errors.toString(), false);
    }

    /** The source's fault when javac ran out of stack or heap on it (nesting or an operator chain
     * thousands deep: the project's own build would fail the same way), or null. */
    private static String ownFailure(String log) {
        for (String kind : new String[] {"java.lang.StackOverflowError", "java.lang.OutOfMemoryError"}) {
            if (log.contains("\n" + kind)) {
                return describe(kind);
            }
        }
        return null;
    }

    static String describe(String failure) {
        return "javac itself failed on this file (" + failure + "): nested or chained too deeply for the compiler\n";
    }

    private static String tail(String log) {
        String t = log.trim();
        return t.length() > 800 ? t.substring(0, 800) : t;
    }
}
