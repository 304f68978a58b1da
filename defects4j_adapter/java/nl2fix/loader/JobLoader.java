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

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        URL url = findResource(name.replace('.', '/') + ".class");
        if (url == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] classFile;
        try (InputStream in = url.openStream()) {
            classFile = in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
        // URLClassLoader's own definition keeps package definition and code sources as they are; the
        // second read comes from the open jar's cache
        Class<?> c = super.findClass(name);
        defined.defined(this, c, classFile);
        return c;
    }

    @Override
    protected void addURL(URL url) {
        throw new UnsupportedOperationException("a job's class path is fixed");
    }
}
