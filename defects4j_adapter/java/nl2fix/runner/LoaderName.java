package nl2fix.runner;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;

/**
 * How the JVM names a job's class loader in its own messages (a {@code ClassCastException}'s, a
 * {@code LinkageError}'s, an {@code IllegalAccessError}'s): {@code loader 'app'}, as it names the JDK's
 * application loader, which defines a plain run's classes. The JDK appends {@code " @<identity hash>"}
 * to the name of every loader that is not one of its built-in ones ({@code ClassLoader}'s private final
 * {@code nameAndId}, computed in its constructor), so a job's loader, although named {@link Lifetime#LOADER},
 * printed {@code loader 'app' @8909f18}: a candidate that cast an object to a type it is not and read the
 * message was the fix only under nl2fix ({@code tests/fixtures/redteam/found8/loader_id}). HotSpot reads
 * that field once, when the loader first reaches the VM (it defines a class, or the VM resolves a name
 * through it) and keeps it for the loader's life, so {@link #asTheJdks} sets it to the built-in form
 * right after the loader is made. Needs {@code --add-opens java.base/java.lang=nl2fix.runner}, to the runner
 * alone (runner.py's {@code jvm_command}): the field is hidden from ordinary reflection (the JDK's
 * filter hides every member of {@code ClassLoader}), so it is taken from {@code Class}'s own private
 * {@code getDeclaredFields0}. Where the JVM prints the loader's <em>name</em>, not this field, it is
 * {@code app} as the JDK's own; a stack trace element still prints {@code app//} before the class where
 * a built-in loader's prints nothing ({@code StackTraceElement} reads the loader's class, not this field),
 * and stack traces are refused to the candidate by the class-file check.
 */
final class LoaderName {
    private LoaderName() {
    }

    /** What a plain JVM's application loader prints. */
    private static final String BUILT_IN = "'" + Lifetime.LOADER + "'";
    private static final Field NAME_AND_ID = nameAndId();

    private static Field nameAndId() {
        try {
            MethodHandle declared = MethodHandles.privateLookupIn(Class.class, MethodHandles.lookup())
                    .findVirtual(Class.class, "getDeclaredFields0", MethodType.methodType(Field[].class, boolean.class));
            for (Field f : (Field[]) declared.invoke(ClassLoader.class, false)) {
                if ("nameAndId".equals(f.getName()) && f.getType() == String.class) {
                    f.setAccessible(true);
                    return f;
                }
            }
        } catch (Throwable e) {
            throw new IllegalStateException("ClassLoader's nameAndId cannot be reached"
                    + " (java.base/java.lang not opened to the runner?)", e);
        }
        throw new IllegalStateException("this JDK's ClassLoader has no nameAndId");
    }

    /** {@code loader}, named in the JVM's messages as the JDK's application loader is: call it before
     * the loader defines or resolves any class. */
    static <L extends ClassLoader> L asTheJdks(L loader) {
        if (!Lifetime.LOADER.equals(loader.getName())) {
            throw new IllegalArgumentException("not a job's loader: " + loader.getName());
        }
        try {
            NAME_AND_ID.set(loader, BUILT_IN);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return loader;
    }
}
