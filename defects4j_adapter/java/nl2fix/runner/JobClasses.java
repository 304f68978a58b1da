package nl2fix.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import nl2fix.loader.JobLoader;

/**
 * What the job's loader ({@link JobLoader}, {@link Lifetime#LOADER}) defined from its class path itself,
 * kept here where no reflection from the class path reaches (the loader's own package is open to it).
 * Two things follow:
 * <ul>
 * <li>which of its classes are the project's ({@link #own}). A class of any other making
 * ({@code ClassLoader#defineClass} reached by reflection, with bytes of the candidate's and any name and
 * protection domain it likes, the name of a class path class not loaded yet included) is none of the
 * project's, whatever its name and code source claim: {@link ReflectionWall} counts its frames as the
 * candidate's. Only the bound loader's own {@code findClass} is heard: a call from anywhere else (the
 * candidate holding this object through the loader's {@code defined()}, or a loader of its own making
 * that names this object) changes nothing;</li>
 * <li>which members of its classes hand out {@code sun.misc.Unsafe} (a field of that type, a method
 * returning one: a library's fast-copy helper keeps it so). They are hidden from reflection through the
 * JDK's own filter ({@link ReflectionFilters}) before any code can reflect over the class, so the project's
 * own reflective getters ({@code FieldUtils.readStaticField}) cannot hand a candidate the JVM's memory;
 * the class's own code uses them as before.</li>
 * </ul>
 * The set lives as long as the loader (which holds this object): nothing here keeps a job alive.
 */
final class JobClasses implements JobLoader.Defined {
    private static final StackWalker CALLER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final Set<Class<?>> own = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private final Map<String, byte[]> replaced;
    private volatile JobLoader loader;

    private JobClasses(Map<String, byte[]> replaced) {
        this.replaced = Map.copyOf(replaced);
    }

    /** A new job's loader, bound to a new record of its classes. */
    static JobLoader loader(java.net.URL[] urls, ClassLoader parent) {
        return loader(urls, parent, Map.of());
    }

    /** A new job's loader, bound to a new record of its classes, that defines the classes of {@code replaced}
     * (binary name to class file: {@link Statics#prepare}) from those class files. */
    static JobLoader loader(java.net.URL[] urls, ClassLoader parent, Map<String, byte[]> replaced) {
        JobClasses classes = new JobClasses(replaced);
        JobLoader loader = LoaderName.asTheJdks(new JobLoader(Lifetime.LOADER, urls, parent, classes));
        classes.loader = loader;
        return loader;
    }

    /** A probe's twin loader ({@code BehaviourProbe}): the candidate's version of the project, none of whose classes
     * is the project's own ({@link #own}), with the classes of {@code replaced} defined from those class files. */
    static JobLoader twin(java.net.URL[] urls, ClassLoader parent, Map<String, byte[]> replaced) {
        Map<String, byte[]> kept = Map.copyOf(replaced);
        JobLoader[] bound = new JobLoader[1];
        JobLoader twin = new JobLoader(Lifetime.LOADER, urls, parent, new JobLoader.Defined() {
            @Override
            public void defined(JobLoader from, Class<?> c, byte[] classFile) {
                // nothing of the twin's is the project's own
            }

            @Override
            public byte[] replacement(JobLoader from, String name) {
                return kept.isEmpty() ? null
                        : replacing(kept, from == bound[0] && CALLER.getCallerClass() == JobLoader.class, name);
            }
        });
        bound[0] = twin;
        return LoaderName.asTheJdks(twin);
    }

    @Override
    public byte[] replacement(JobLoader from, String name) {
        return replaced.isEmpty() ? null
                : replacing(replaced, from == loader && CALLER.getCallerClass() == JobLoader.class, name);
    }

    /** A copy of class {@code name}'s replacement in {@code replaced}, for the bound loader's own {@code findClass}
     * only ({@code asked}: the bound loader's {@code findClass} asks): whoever else holds the record learns nothing,
     * and no one can change what a later class is defined from. */
    private static byte[] replacing(Map<String, byte[]> replaced, boolean asked, String name) {
        if (!asked) {
            return null;
        }
        byte[] classFile = replaced.get(name);
        return classFile == null ? null : classFile.clone();
    }

    @Override
    public void defined(JobLoader from, Class<?> c, byte[] classFile) {
        if (from != loader || CALLER.getCallerClass() != JobLoader.class || c.getClassLoader() != loader) {
            return;
        }
        ClassFile.Members unsafe;
        try {
            unsafe = ClassFile.handingOutUnsafe(classFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        own.add(c);
        if (unsafe != null) {
            ReflectionFilters.hide(c, unsafe.fields, unsafe.methods);
        }
    }

    /** Whether a job's loader is {@code l} (one the runner made, not one of the job's own making). */
    static boolean isJobLoader(ClassLoader l) {
        return l instanceof JobLoader && ((JobLoader) l).defined() instanceof JobClasses
                && ((JobClasses) ((JobLoader) l).defined()).loader == l;
    }

    /** Whether {@code c} was defined by a job's loader from its class path (the candidate's compiled
     * classes among it). */
    static boolean own(Class<?> c) {
        ClassLoader l = c.getClassLoader();
        return isJobLoader(l) && ((JobClasses) ((JobLoader) l).defined()).own.contains(c);
    }
}
