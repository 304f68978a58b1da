package nl2fix.runner;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The JVM's system class loader ({@code -Djava.system.class.loader}), which hands whatever its
 * parent (runner, JUnit, JDK) does not have to the current candidate's loader.
 * Code under test that asks the system loader for classes or resources
 * ({@code ClassLoader.getSystemResource}) then sees the project's class path, as it would when
 * Defects4J puts the project on the JVM's class path, although each candidate has its own loader.
 */
public final class SystemLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static volatile ClassLoader current;

    public SystemLoader(ClassLoader parent) {
        super(parent);
    }

    static void use(ClassLoader loader) {
        current = loader;
    }

    /** No candidate's loader is in use (between jobs). */
    static boolean idle() {
        return current == null;
    }

    /** A class of the current candidate was handed out for a request to this loader. */
    private static volatile boolean delegated;

    /** Whether a candidate's class was handed out since the last call. The JVM remembers this
     * loader as an initiating loader of such a class ({@code Class.forName(name, false,
     * systemLoader)}, as the StAX and other factory finders do) and answers later requests for
     * that name itself, without asking: the next candidate would get this candidate's class (a
     * Woodstox writer of another loader, say, that Jackson no longer recognises). A JVM that
     * handed one out therefore takes no further candidate. */
    static boolean takeDelegated() {
        boolean d = delegated;
        delegated = false;
        return d;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        try {
            return getParent().loadClass(name);
        } catch (ClassNotFoundException e) {
            ClassLoader c = current;
            if (c == null) {
                throw e;
            }
            Class<?> found = c.loadClass(name);
            delegated = true;
            return found;
        }
    }

    @Override
    public URL getResource(String name) {
        URL url = getParent().getResource(name);
        ClassLoader c = current;
        return url != null || c == null ? url : c.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> all = new ArrayList<>(Collections.list(getParent().getResources(name)));
        ClassLoader c = current;
        if (c != null) {
            for (URL u : Collections.list(c.getResources(name))) {
                if (!all.contains(u)) {
                    all.add(u);
                }
            }
        }
        return Collections.enumeration(all);
    }
}
