package nl2fix.loader;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * A job's class loader: the candidate's classes first, then the project's class path; runner, JUnit
 * and the JDK from the parent. It sits in a package of its own that the runner's module opens, because
 * projects' tests reflect over the loader of the code under test as they do under Defects4J (PowerMock,
 * JacksonDatabind's {@code TestTypeFactoryWithClassLoader}: {@code setAccessible} on its methods). So it
 * holds no state worth forging: every class it defines from its class path is reported to the runner's
 * {@link Defined} with the class file's bytes, and the runner keeps what it learns where reflection from
 * the class path cannot reach. Its class path is fixed ({@link #addURL} refuses).
 */
public final class JobLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    /** The runner's side: told of each class {@link #findClass} defined from the class path. */
    public interface Defined {
        void defined(JobLoader loader, Class<?> c, byte[] classFile);

        /** The class file the loader defines class {@code name} from instead of the class path's (a class whose
         * closed static initialiser the runner computes once a JVM: {@code nl2fix.runner.Statics}), or null. */
        default byte[] replacement(JobLoader loader, String name) {
            return null;
        }
    }

    private final Defined defined;

    public JobLoader(String name, URL[] urls, ClassLoader parent, Defined defined) {
        super(name, urls, parent);
        this.defined = defined;
    }

    /** Who is told of this loader's classes (the runner checks that it was this loader that told). */
    public Defined defined() {
        return defined;
    }

    /** Defines the class as {@code URLClassLoader} does, then tells the runner, with the class file read again from
     * the class path entry the class came from (its code source), by the URL {@code URLClassLoader} itself reads it
     * by: not through {@code findResource}, whose lookup under a security manager opens a connection and checks a
     * file permission for every class (170 microseconds each, most of a job's class loading and so a third of a
     * wrong answer's tests). Where that read fails, {@code findResource}'s (the class is defined by then: a class
     * it cannot be told of must not be left to be found later untold). */
    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] replaced = defined.replacement(this, name);
        Class<?> c = replaced == null ? null : defineReplaced(name, replaced);
        c = c == null ? super.findClass(name) : c;
        java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
        String path = name.replace('.', '/') + ".class";
        byte[] classFile;
        try {
            classFile = read(source == null ? null : resource(source.getLocation(), path));
        } catch (IOException | java.net.URISyntaxException e) {
            try {
                classFile = read(findResource(path));
            } catch (IOException again) {
                throw new LinkageError("nl2fix: the class file of " + name + " could not be read again", again);
            }
        }
        defined.defined(this, c, classFile);
        return c;
    }

    /** Class {@code name} defined from the runner's {@code classFile} with the code source of the class path's own
     * class file (a folder's), whose bytes are what a read of the class file as a resource still finds: the class is
     * the project's in everything but its static initialiser. Null when that class file is not in a folder. */
    private Class<?> defineReplaced(String name, byte[] classFile) {
        String path = name.replace('.', '/') + ".class";
        URL found = findResource(path);
        String spec = found == null ? "" : found.toExternalForm();
        String escaped;
        try {
            escaped = new java.net.URI(null, null, path, null).getRawPath();
        } catch (java.net.URISyntaxException e) {
            return null;
        }
        if (!"file".equals(found == null ? "" : found.getProtocol()) || !spec.endsWith("/" + escaped)) {
            return null;
        }
        URL entry;
        try {
            entry = new URL(spec.substring(0, spec.length() - escaped.length()));
        } catch (java.net.MalformedURLException e) {
            return null;
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0 && getDefinedPackage(name.substring(0, dot)) == null) {
            try {
                // as URLClassLoader defines the package of a folder's class: no manifest
                definePackage(name.substring(0, dot), null, null, null, null, null, null, null);
            } catch (IllegalArgumentException e) {
                // defined meanwhile by another thread
            }
        }
        return defineClass(name, classFile, 0, classFile.length,
                new java.security.CodeSource(entry, (java.security.CodeSigner[]) null));
    }

    private static byte[] read(URL url) throws IOException {
        if (url == null) {
            throw new IOException("no class file");
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        }
    }

    /** The URL of {@code path} in the class path entry {@code entry} as {@code URLClassLoader}'s own lookup makes it:
     * the path's characters that a URL reads otherwise escaped ({@code #}, {@code %}, {@code ?}), and a jar's entry
     * read as the running Java's version of a multi-release jar ({@code #runtime}: else its base version, which the
     * class defined from it need not be). */
    private static URL resource(URL entry, String path) throws IOException, java.net.URISyntaxException {
        String escaped = new java.net.URI(null, null, path, null).getRawPath();
        String spec = entry.toExternalForm();
        return "file".equals(entry.getProtocol()) && !spec.endsWith("/")
                ? new URL("jar:" + spec + "!/" + escaped + "#runtime")
                : new URL(entry, escaped);
    }

    @Override
    protected void addURL(URL url) {
        throw new UnsupportedOperationException("a job's class path is fixed");
    }
}
