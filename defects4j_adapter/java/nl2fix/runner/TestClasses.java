package nl2fix.runner;

import java.io.File;
import java.util.Set;
import java.util.TreeSet;

/**
 * Defines the tests' own classes in a candidate's loader before any code of the candidate runs.
 * A class loader holds one class per name, so code under test that defines a class itself
 * ({@code MethodHandles.lookup().defineClass}, which needs no permission inside its own
 * package) cannot put a lenient stand-in in place of a test class that has not been loaded
 * yet: the trigger and relevant test classes, and every compiled test class in the packages
 * the candidate's classes live in, are taken first. Loading does not initialise, so no test
 * code runs early. For the same reason the runner's class path (JUnit, Hamcrest) is defined whole
 * when the JVM starts, before any candidate; the runner itself is a named module, whose package no
 * other code can define classes in.
 */
final class TestClasses {
    private TestClasses() {
    }

    static void defineClassPath(String classPath, ClassLoader loader) throws java.io.IOException {
        Set<String> names = new TreeSet<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            File f = new File(entry);
            if (f.isFile()) {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(f)) {
                    for (java.util.Enumeration<java.util.jar.JarEntry> e = jar.entries(); e.hasMoreElements();) {
                        addClass(names, e.nextElement().getName());
                    }
                }
            } else if (f.isDirectory()) {
                java.nio.file.Path root = f.toPath();
                try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(root)) {
                    walk.forEach(p -> addClass(names, root.relativize(p).toString().replace(File.separatorChar, '/')));
                }
            }
        }
        load(names, loader);
    }

    private static void addClass(Set<String> names, String path) {
        if (path.endsWith(".class") && !path.startsWith("META-INF/") && !path.endsWith("module-info.class")) {
            names.add(path.substring(0, path.length() - 6).replace('/', '.'));
        }
    }

    private static void load(Set<String> names, ClassLoader loader) {
        for (String name : names) {
            try {
                Class.forName(name, false, loader);
            } catch (Throwable t) {
                // a class that cannot load (say, a missing optional dependency) cannot be replaced either
            }
        }
    }

    static void defineFirst(ClassLoader loader, Request job, Set<String> candidateClasses) {
        Set<String> names = new TreeSet<>(job.relevant);
        for (String t : job.triggers) {
            int sep = t.indexOf("::");
            names.add(sep < 0 ? t : t.substring(0, sep));
        }
        Set<String> packages = new TreeSet<>(job.packages);
        for (String c : candidateClasses) {
            int dot = c.lastIndexOf('.');
            packages.add(dot < 0 ? "" : c.substring(0, dot));
        }
        for (String dir : job.testClasses) {
            for (String pkg : packages) {
                File[] files = new File(dir, pkg.replace('.', File.separatorChar)).listFiles();
                for (File f : files == null ? new File[0] : files) {
                    String file = f.getName();
                    if (file.endsWith(".class")) {
                        names.add((pkg.isEmpty() ? "" : pkg + ".") + file.substring(0, file.length() - 6));
                    }
                }
            }
        }
        // a test class that cannot load is reported by the test executor, when it runs it
        load(names, loader);
    }
}
