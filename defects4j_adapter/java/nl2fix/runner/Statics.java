package nl2fix.runner;

import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The static fields of the project's classes whose static initialiser is closed (it computes them from constants
 * alone, see {@code defects4j_adapter/bytecode/closed_init.py}): computed once a JVM, in a loader of their own
 * before any job's code runs, and handed to each job's copy of the class as copies ({@link #get}). The harness
 * rewrote those classes' initialisers to ask here for each field; the job's loader and a probe's twin define the
 * rewritten class instead of the class path's ({@link #prepare}), except where the candidate's file declares it.
 *
 * <p>Nothing a job does reaches another: every array is copied whole for each class that asks, and the values kept
 * here are read by nothing else. A class that is not prepared gets nothing ({@link IllegalStateException}), so no code
 * can have the runner load or initialise a class of its choosing.
 */
public final class Statics {
    private Statics() {
    }

    /** Per class name, its static fields' values as its own initialiser left them, in the class path below. */
    private static final Map<String, Map<String, Object>> VALUES = new ConcurrentHashMap<>();
    private static volatile List<String> classPath = List.of();

    /** Of the rewritten class files {@code rewritten} (binary names with dots), those a job of {@code classPath} defines
     * in place of the class path's: every one whose initialiser ran in a loader of its own here and left values this
     * class can copy, and whose top-level class is not one of {@code candidateClasses}. */
    static Map<String, byte[]> prepare(Map<String, byte[]> rewritten, List<String> classPath,
            Set<String> candidateClasses) {
        if (!classPath.equals(Statics.classPath)) {
            VALUES.clear();
            Statics.classPath = List.copyOf(classPath);
        }
        Map<String, byte[]> used = new HashMap<>();
        for (Map.Entry<String, byte[]> e : rewritten.entrySet()) {
            String name = e.getKey();
            int nested = name.indexOf('$');
            if (candidateClasses.contains(nested < 0 ? name : name.substring(0, nested))) {
                continue;
            }
            if (VALUES.containsKey(name) || compute(name, classPath)) {
                used.put(name, e.getValue());
            }
        }
        return used;
    }

    private static boolean compute(String name, List<String> classPath) {
        URL[] urls = new URL[classPath.size()];
        try {
            for (int i = 0; i < urls.length; i++) {
                urls[i] = Paths.get(classPath.get(i)).toUri().toURL();
            }
        } catch (IOException e) {
            return false;
        }
        try (URLClassLoader own = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Class<?> c = Class.forName(name, true, own);
            Map<String, Object> values = new HashMap<>();
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                Object value = f.get(null);
                if (!copyable(value)) {
                    return false;
                }
                values.put(f.getName(), value);
            }
            VALUES.put(name, values);
            return true;
        } catch (ReflectiveOperationException | IOException | RuntimeException | LinkageError e) {
            // the class path's own class is defined instead, and its initialiser runs as it always did
            return false;
        }
    }

    /** Values a copy of which is the same to every reader: numbers, strings, arrays of them. */
    private static boolean copyable(Object value) {
        if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean
                || value instanceof Character) {
            return true;
        }
        Class<?> type = value.getClass();
        if (!type.isArray()) {
            return false;
        }
        if (type.getComponentType().isPrimitive()) {
            return true;
        }
        for (int i = 0, n = Array.getLength(value); i < n; i++) {
            if (!copyable(Array.get(value, i))) {
                return false;
            }
        }
        return true;
    }

    private static Object copy(Object value) {
        if (value == null || !value.getClass().isArray()) {
            return value;
        }
        int n = Array.getLength(value);
        Object out = Array.newInstance(value.getClass().getComponentType(), n);
        if (value.getClass().getComponentType().isPrimitive()) {
            System.arraycopy(value, 0, out, 0, n);
        } else {
            for (int i = 0; i < n; i++) {
                Array.set(out, i, copy(Array.get(value, i)));
            }
        }
        return out;
    }

    private static Object value(Class<?> c, String field) {
        Map<String, Object> values = VALUES.get(c.getName());
        if (values == null || !values.containsKey(field)) {
            throw new IllegalStateException("nl2fix: no prepared value of " + c.getName() + "." + field);
        }
        return values.get(field);
    }

    /** A copy of {@code c}'s static field {@code field} as its own initialiser left it. */
    public static Object get(Class<?> c, String field) {
        return copy(value(c, field));
    }

    public static boolean getBoolean(Class<?> c, String field) {
        return (Boolean) value(c, field);
    }

    public static byte getByte(Class<?> c, String field) {
        return (Byte) value(c, field);
    }

    public static char getChar(Class<?> c, String field) {
        return (Character) value(c, field);
    }

    public static short getShort(Class<?> c, String field) {
        return (Short) value(c, field);
    }

    public static int getInt(Class<?> c, String field) {
        return (Integer) value(c, field);
    }

    public static long getLong(Class<?> c, String field) {
        return (Long) value(c, field);
    }

    public static float getFloat(Class<?> c, String field) {
        return (Float) value(c, field);
    }

    public static double getDouble(Class<?> c, String field) {
        return (Double) value(c, field);
    }
}
