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
     * the class path entry the class came from (its code source): not through {@code findResource}, whose lookup
     * under a security manager opens a connection and checks a file permission for every class (170 microseconds
     * each; a job's 300 classes cost a wrong answer half its tests' time so). */
    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> c = super.findClass(name);
        java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
        String path = name.replace('.', '/') + ".class";
        byte[] classFile;
        try (InputStream in = resource(source == null ? null : source.getLocation(), path).openStream()) {
            classFile = in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
        defined.defined(this, c, classFile);
        return c;
    }

    /** The URL of {@code path} in the class path entry {@code entry} (a jar, a folder, the candidate's classes served
     * by the runner's handler); where none is given, the loader's own lookup. */
    private URL resource(URL entry, String path) throws IOException {
        if (entry == null) {
            URL found = findResource(path);
            if (found == null) {
                throw new IOException("no class file " + path);
            }
            return found;
        }
        String spec = entry.toExternalForm();
        return "file".equals(entry.getProtocol()) && !spec.endsWith("/") ? new URL("jar:" + spec + "!/" + path)
                : new URL(entry, path);
    }

    @Override
    protected void addURL(URL url) {
        throw new UnsupportedOperationException("a job's class path is fixed");
    }
}
