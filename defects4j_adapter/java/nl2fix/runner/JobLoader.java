package nl2fix.runner;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * A job's class loader ({@link Lifetime#LOADER}): the candidate's classes first, then the project's class
 * path; runner, JUnit and the JDK from the parent. Two things only it can say:
 * <ul>
 * <li>which of its classes it read from its class path itself ({@link #own}). A class of any other making
 * ({@code ClassLoader#defineClass} reached by reflection, with bytes of the candidate's and any name and
 * protection domain it likes, the name of a class path class not loaded yet included) is none of the
 * project's, whatever its name and code source claim: {@link ReflectionWall} counts its frames as the
 * candidate's;</li>
 * <li>which members of its classes hand out {@code sun.misc.Unsafe} (a field of that type, a method
 * returning one: a library's fast-copy helper keeps it so). They are hidden from reflection through the
 * JDK's own filter ({@link ReflectionFilters}) before any code can reflect over the class, so the project's
 * own reflective getters ({@code FieldUtils.readStaticField}) cannot hand a candidate the JVM's memory;
 * the class's own code uses them as before.</li>
 * </ul>
 * The class file is read twice (here, and by {@link URLClassLoader#findClass}, which keeps package
 * definition and code sources as they are); the second read comes from the open jar's cache.
 */
final class JobLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Set<Class<?>> own = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    JobLoader(URL[] urls, ClassLoader parent) {
        super(Lifetime.LOADER, urls, parent);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        URL url = findResource(name.replace('.', '/') + ".class");
        if (url == null) {
            throw new ClassNotFoundException(name);
        }
        ClassFile.Members unsafe;
        try (InputStream in = url.openStream()) {
            unsafe = ClassFile.handingOutUnsafe(in.readAllBytes());
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
        Class<?> c = super.findClass(name);
        own.add(c);
        if (unsafe != null) {
            ReflectionFilters.hide(c, unsafe.fields, unsafe.methods);
        }
        return c;
    }

    /** Whether this loader defined {@code c} from its class path (the candidate's compiled classes among it). */
    boolean own(Class<?> c) {
        return own.contains(c);
    }
}
