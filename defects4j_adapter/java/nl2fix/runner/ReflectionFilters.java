package nl2fix.runner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The JDK's reflection filter ({@code jdk.internal.reflect.Reflection}'s {@code fieldFilterMap} and
 * {@code methodFilterMap}: members {@code getDeclaredFields} and kin never show). It is JVM-wide and
 * changes every later job's reflection: a candidate that reached it once hid a test's field from the
 * developer's fix judged next ({@code found2/defined_poison}). The runner changes it itself, to hide
 * {@link ReflectionWall#hideClassInternals Class's natives} for good and a job's members that hand out
 * {@code Unsafe} for that job ({@link JobClasses}); so the maps are the runner's objects, known by
 * identity and content: after each job they must be what the runner put there ({@link #intact}, part of
 * the {@link Canary}) and go back to how they were before the first job ({@link #restore}), which also
 * lets go of the job's classes. Needs {@code --add-opens java.base/jdk.internal.reflect=nl2fix.runner}
 * (to the runner alone); without it, or on a JDK whose maps look otherwise, {@link #available} is false,
 * the runner says so, and nothing is hidden or checked.
 */
final class ReflectionFilters {
    private ReflectionFilters() {
    }

    private static final VarHandle FIELDS;
    private static final VarHandle METHODS;

    static {
        VarHandle fields = null;
        VarHandle methods = null;
        try {
            Class<?> reflection = Class.forName("jdk.internal.reflect.Reflection");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(reflection, MethodHandles.lookup());
            fields = lookup.findStaticVarHandle(reflection, "fieldFilterMap", Map.class);
            methods = lookup.findStaticVarHandle(reflection, "methodFilterMap", Map.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            fields = null;
            methods = null;
        }
        FIELDS = fields;
        METHODS = methods;
    }

    /** Hides {@code names} of {@code c}'s {@code kind} ({@code "Fields"} or {@code "Methods"}) for the JVM's
     * life, through the JDK's own registration (before {@link #remember}, which then keeps them); false where
     * this JDK has none. */
    static boolean hideForGood(String kind, Class<?> c, Set<String> names) {
        try {
            Class<?> reflection = Class.forName("jdk.internal.reflect.Reflection");
            String register = "register" + kind + "ToFilter";
            try {
                reflection.getMethod(register, Class.class, Set.class).invoke(null, c, names);
            } catch (NoSuchMethodException java11) {
                reflection.getMethod(register, Class.class, String[].class).invoke(null, c, names.toArray(new String[0]));
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** The maps as the runner left them (its objects), and their content as it put it. */
    private static Map<?, ?> fieldsInstalled;
    private static Map<?, ?> methodsInstalled;
    private static Map<Class<?>, Set<String>> fieldsExpected;
    private static Map<Class<?>, Set<String>> methodsExpected;
    /** Before the first job. */
    private static Map<?, ?> fieldsAtStart;
    private static Map<?, ?> methodsAtStart;
    /** Whether the JDK keeps names as {@code String[]} (Java 11) rather than {@code Set<String>} (17). */
    private static boolean arrays;

    static boolean available() {
        return FIELDS != null && fieldsAtStart != null;
    }

    /** The JDK's classes whose static initializers add to the maps (found in the class files of JDK 11 and
     * 17: the callers of {@code registerFieldsToFilter} and {@code registerMethodsToFilter}), initialized
     * before the maps are taken, so that a job's first annotation read or static field access does not
     * change them (it would retire every JVM after its first job). */
    private static final String[] JDK_REGISTRANTS = {"sun.misc.Unsafe", "jdk.internal.reflect.ConstantPool",
        "jdk.internal.reflect.UnsafeStaticFieldAccessorImpl", "java.lang.invoke.MethodHandles$Lookup"};

    /** Takes the maps as they are (the runner's own filters in), before the first job; false when this JDK
     * offers no such maps. */
    static synchronized boolean remember() {
        if (FIELDS == null) {
            return false;
        }
        for (String registrant : JDK_REGISTRANTS) {
            try {
                Class.forName(registrant, true, ClassLoader.getPlatformClassLoader());
            } catch (ClassNotFoundException | LinkageError absent) {
                // not in this JDK: it registers nothing either
            }
        }
        Map<?, ?> fields = (Map<?, ?>) FIELDS.getVolatile();
        Map<?, ?> methods = (Map<?, ?>) METHODS.getVolatile();
        Object sample = methods.get(Class.class);
        arrays = sample instanceof String[];
        if (!arrays && !(sample instanceof Set)) {
            return false;
        }
        fieldsAtStart = fields;
        methodsAtStart = methods;
        restore();
        return true;
    }

    /** Puts the maps back as they were before the first job. */
    static synchronized void restore() {
        if (fieldsAtStart == null) {
            return;
        }
        FIELDS.setVolatile(fieldsAtStart);
        METHODS.setVolatile(methodsAtStart);
        fieldsInstalled = fieldsAtStart;
        methodsInstalled = methodsAtStart;
        fieldsExpected = content(fieldsAtStart);
        methodsExpected = content(methodsAtStart);
    }

    /** Whether the maps are the runner's objects and hold what it put in them. The identity first: a map
     * of anyone else's is not even asked (a proxy's {@code get} runs its maker's code). */
    static synchronized boolean intact() {
        if (!available()) {
            return true;
        }
        return FIELDS.getVolatile() == fieldsInstalled && METHODS.getVolatile() == methodsInstalled
                && content(fieldsInstalled).equals(fieldsExpected) && content(methodsInstalled).equals(methodsExpected);
    }

    /** Hides {@code fields} and {@code methods} of {@code c} from reflection until {@link #restore}. */
    static synchronized void hide(Class<?> c, Set<String> fields, Set<String> methods) {
        if (!available()) {
            return;
        }
        fieldsInstalled = added(FIELDS, fieldsInstalled, fieldsExpected, c, fields);
        methodsInstalled = added(METHODS, methodsInstalled, methodsExpected, c, methods);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<?, ?> added(VarHandle handle, Map<?, ?> installed, Map<Class<?>, Set<String>> expected,
            Class<?> c, Set<String> names) {
        if (names.isEmpty()) {
            return installed;
        }
        Map copy = new HashMap<>(installed);
        // Java 11's filter compares a member's name by identity with these (its names are interned)
        copy.put(c, arrays ? names.stream().map(String::intern).toArray(String[]::new) : Set.copyOf(names));
        expected.put(c, Set.copyOf(names));
        handle.setVolatile(copy);
        return copy;
    }

    /** A map's content as the runner's own copy: class to names. */
    @SuppressWarnings("unchecked")
    private static Map<Class<?>, Set<String>> content(Map<?, ?> map) {
        Map<Class<?>, Set<String>> copy = new HashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            Object names = e.getValue();
            copy.put((Class<?>) e.getKey(), Set.copyOf(names instanceof String[] ? Arrays.asList((String[]) names) : (Set<String>) names));
        }
        return copy;
    }
}
