package nl2fix.runner;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
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

        Result(Map<String, byte[]> classes, String errors) {
            this.classes = classes;
            this.errors = errors;
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
        Boolean ok = javac.getTask(null, fm, diagnostics, options, null, std.getJavaFileObjects(source)).call();
        if (ok) {
            return new Result(out, null);
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
        return new Result(null, errors.toString());
    }
}
