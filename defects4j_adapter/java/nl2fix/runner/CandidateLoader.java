package nl2fix.runner;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;

/**
 * A fresh loader per candidate: the classes compiled from the candidate's source file (held in
 * memory) first, then the project's class path. Runner, JUnit and the JDK come from the parent,
 * so nothing the code under test keeps in static fields outlives the candidate.
 */
final class CandidateLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, byte[]> overlay;

    CandidateLoader(URL[] classpath, Map<String, byte[]> overlay, ClassLoader parent) {
        super(classpath, parent);
        this.overlay = overlay;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] bytes = overlay.get(name);
        if (bytes != null) {
            return defineClass(name, bytes, 0, bytes.length);
        }
        return super.findClass(name);
    }
}
