package nl2fix.runner;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The JVM's system class loader ({@code -Djava.system.class.loader}), which hands whatever its
 * parent (runner, JUnit, JDK) does not have to the current candidate's {@link CandidateLoader}.
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

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        try {
            return getParent().loadClass(name);
        } catch (ClassNotFoundException e) {
            ClassLoader c = current;
            if (c == null) {
                throw e;
            }
            return c.loadClass(name);
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
