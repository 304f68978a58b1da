package nl2fix.runner;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The object graphs behaviour probing works on, read and copied by runner code alone.
 *
 * <p>{@link #copy} deep-copies receiver and arguments so that reference and candidate each get
 * their own: objects of the project's classes field by field (allocated without running a
 * constructor), arrays, and the JDK's common collections through their public API; immutable
 * values are shared. Anything else (an open stream, a JDK object with hidden state) makes the input
 * {@link Uncopyable}: it is skipped, never run on shared state.
 *
 * <p>{@link #snapshot} writes a graph as text, deterministically: fields of project classes in
 * declaration order (superclass first), JDK collections through the JDK's own code, unordered ones
 * (hash sets and maps) sorted, cycles as {@code ^n} (the n-th enclosing object). No method of a
 * project class is called: what the candidate's objects say about themselves ({@code equals},
 * {@code toString}) does not count, only what they hold. Bounded in depth, elements and length.
 */
final class Graphs {
    private Graphs() {
    }

    static final int MAX_DEPTH = 10;
    static final int MAX_ELEMENTS = 64;
    static final int MAX_STRING = 2000;
    static final int MAX_CHARS = 20_000;
    /** How far a text written whole goes ({@link View#whole}): the elements of an array or collection (Codec's and
     * Compress's buffers hold 8 KB), a string's characters (a class file's constant holds 65,535 bytes), the
     * characters in all. */
    static final int WHOLE_ELEMENTS = 16_384;
    static final int WHOLE_STRING = 20_000;
    static final int WHOLE_CHARS = 200_000;

    /**
     * Which fields a snapshot of an outcome writes: all but the private fields of the method's own class
     * ({@code owner}, by name: the candidate's twin class is another class of that name) that the reference
     * does not name in its body. Such a field is state no caller can see unless another method reads it,
     * and the developer's fix, which defines the wanted behaviour, neither reads nor writes it: a candidate
     * keeping its answer in another private field than the fix does (both returning the same empty array)
     * behaves the same to every caller. A field the fix reads or writes, and every field a caller can reach
     * (not private, or of another class), is compared; so is a private stream or writer that a method the fix
     * calls names (Compress-1's {@code close()} calls {@code finish()}, which writes the archive into the stream its
     * caller handed in): whoever holds what it writes into sees it. A candidate's own private buffer is not.
     */
    static final class View {
        static final View ALL = new View(null, new String[0]);

        private final String owner;
        private final java.util.Set<String> named;
        /** Elements of an array or collection written, characters of a string and of the whole text, at most. */
        final int elements;
        final int strings;
        final int chars;

        View(String owner, String[] named) {
            this(owner, new java.util.HashSet<>(java.util.Arrays.asList(named)), MAX_ELEMENTS, MAX_STRING, MAX_CHARS);
        }

        private View(String owner, java.util.Set<String> named, int elements, int strings, int chars) {
            this.owner = owner;
            this.named = named;
            this.elements = elements;
            this.strings = strings;
            this.chars = chars;
        }

        /** The same fields, written as far as {@link #WHOLE_ELEMENTS} and {@link #WHOLE_CHARS}: for the text a
         * divergence's JUnit test is written from, never for a digest (what is compared stays as it was). */
        View whole() {
            return new View(owner, named, WHOLE_ELEMENTS, WHOLE_STRING, WHOLE_CHARS);
        }

        boolean shows(Field f) {
            return !Modifier.isPrivate(f.getModifiers()) || !f.getDeclaringClass().getName().equals(owner)
                    || named.contains(f.getName()) || named.contains(CALLEE + f.getName())
                    && (java.io.OutputStream.class.isAssignableFrom(f.getType())
                            || java.io.Writer.class.isAssignableFrom(f.getType()));
        }

        /** Marks a name the methods the fix calls use (probe_source.py's {@code callee_names}). */
        static final String CALLEE = "~";
    }

    /** An input holding something that cannot be copied faithfully. */
    static final class Uncopyable extends Exception {
        private static final long serialVersionUID = 1L;

        Uncopyable(String what) {
            super(what, null, false, false);
        }
    }

    private static final sun.misc.Unsafe UNSAFE = unsafe();

    private static sun.misc.Unsafe unsafe() {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * JDK readers, writers and streams that hold their contents in memory: their fields are copied and written
     * as a project object's are (through {@link #UNSAFE}: java.base opens none of them), so that a reader a
     * test made of a string, or a project's reader built on one, is replayed from the same contents at the
     * same position. One over a file, a socket or a decoder holds an object of another class and still cannot
     * be copied. So are a date format's calendar and number format, which a project's own date format (Jackson's
     * {@code StdDateFormat}) holds in the JDK's {@code DateFormat}; a random generator, whose seed and spare
     * Gaussian are all of its state (Math-57's tests seed one for {@code chooseInitialCenters}), and a parse
     * position (Math-101's {@code ComplexFormat.parse(String, ParsePosition)}).
     */
    private static final Set<Class<?>> REPLAYED = Set.of(java.io.Reader.class, java.io.BufferedReader.class,
            java.io.StringReader.class, java.io.CharArrayReader.class, java.io.PushbackReader.class,
            java.io.FilterReader.class, java.io.LineNumberReader.class, java.io.InputStream.class,
            java.io.ByteArrayInputStream.class, java.io.FilterInputStream.class, java.io.BufferedInputStream.class,
            java.io.PushbackInputStream.class, java.io.Writer.class, java.io.StringWriter.class,
            java.io.CharArrayWriter.class, java.io.OutputStream.class, java.io.ByteArrayOutputStream.class,
            java.io.FilterOutputStream.class, java.io.BufferedOutputStream.class, java.text.Format.class,
            java.text.DateFormat.class, java.util.Random.class, java.text.ParsePosition.class);

    /** Whether every JDK class from {@code k} up is one of {@link #REPLAYED}. */
    private static boolean replayed(Class<?> k) {
        for (; k != Object.class; k = k.getSuperclass()) {
            if (!REPLAYED.contains(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The JDK collections and maps a project class may extend and still be copied (Jackson's {@code LRUMap} is a
     * {@code LinkedHashMap}, which its serializer provider's caches hold): the copy is made by the JDK class's own
     * constructor, as Java's serialization makes an object, with the original's load factor and access order; then
     * its project fields are copied and its contents added through the JDK class's own methods. Only when the
     * project's classes override none of the JDK class's methods but {@code removeEldestEntry} (the hook through
     * which an LRU map drops its eldest entry, which reads the project's fields copied by then): copying and
     * snapshotting it run no other code of the project's, and the order it iterates in is the JDK's.
     */
    private static final Set<Class<?>> REBUILT = Set.of(java.util.ArrayList.class, java.util.LinkedList.class,
            java.util.HashMap.class, java.util.LinkedHashMap.class, java.util.HashSet.class,
            java.util.LinkedHashSet.class);

    /** The class of {@link #REBUILT} that project class {@code c} extends when a copy may rebuild it; else null. */
    private static Class<?> rebuilt(Class<?> c) {
        return REBUILDS.get(c);
    }

    private static final ClassValue<Class<?>> REBUILDS = new ClassValue<Class<?>>() {
        @Override
        protected Class<?> computeValue(Class<?> c) {
            Class<?> k = c;
            for (; k != null && !jdk(k); k = k.getSuperclass()) {
                for (Method m : k.getDeclaredMethods()) {
                    int modifiers = m.getModifiers();
                    if (!Modifier.isStatic(modifiers) && !Modifier.isPrivate(modifiers)
                            && !m.getName().equals("removeEldestEntry") && jdkMethodNamed(c, m.getName())) {
                        return null;
                    }
                }
            }
            return k != c && REBUILT.contains(k) ? k : null;
        }
    };

    /** Whether a JDK class {@code c} extends, or an interface it implements, has a method of that name (an override
     * or an overload: either is the project's code where the JDK's would run). */
    private static boolean jdkMethodNamed(Class<?> c, String name) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (jdk(k)) {
                for (Method m : k.getDeclaredMethods()) {
                    if (m.getName().equals(name)) {
                        return true;
                    }
                }
            }
            for (Class<?> i : k.getInterfaces()) {
                for (Method m : i.getMethods()) {
                    if (m.getName().equals(name)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Where a {@code HashMap} keeps its load factor and a {@code LinkedHashMap} its access order. */
    private static final long LOAD_FACTOR = offset(java.util.HashMap.class, "loadFactor");
    private static final long ACCESS_ORDER = offset(java.util.LinkedHashMap.class, "accessOrder");

    /** An object of {@code kind}, the twin of {@code o}'s project class that extends {@code base} ({@link #REBUILT}),
     * made by {@code base}'s own constructor with {@code o}'s load factor and access order: its project fields unset. */
    private static Object constructed(Class<?> kind, Class<?> base, Object o) throws ReflectiveOperationException {
        java.lang.reflect.Constructor<?> made;
        Object[] args;
        if (base == java.util.LinkedHashMap.class) {
            made = base.getConstructor(int.class, float.class, boolean.class);
            args = new Object[] {16, UNSAFE.getFloat(o, LOAD_FACTOR), UNSAFE.getBoolean(o, ACCESS_ORDER)};
        } else if (base == java.util.HashMap.class) {
            made = base.getConstructor(int.class, float.class);
            args = new Object[] {16, UNSAFE.getFloat(o, LOAD_FACTOR)};
        } else {
            made = base.getConstructor();
            args = new Object[0];
        }
        return sun.reflect.ReflectionFactory.getReflectionFactory().newConstructorForSerialization(kind, made)
                .newInstance(args);
    }

    /**
     * Each class's declared instance fields, those of a class outside the JDK made accessible (a JDK class's
     * are read through {@link #UNSAFE}). Made once a class: {@code getDeclaredFields} and {@code setAccessible}
     * each ask the security manager, whose walk of the stack was four fifths of a probe's CPU when they were
     * asked again for every field of every object copied or snapshotted (Cli-9's 40 calls: 1.9 CPU-s). The
     * value lives in the class itself, and goes with a job's class when the job's loader goes.
     */
    private static final ClassValue<Field[]> DECLARED = new ClassValue<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> k) {
            List<Field> out = new ArrayList<>();
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (!jdk(k)) {
                    try {
                        f.setAccessible(true);
                    } catch (RuntimeException e) {
                        // reading it then fails, as it did when it was made accessible on each read
                    }
                }
                out.add(f);
            }
            return out.toArray(new Field[0]);
        }
    };

    /** {@code k}'s declared instance field {@code name} (of {@link #DECLARED}). */
    private static Field declared(Class<?> k, String name) throws NoSuchFieldException {
        for (Field f : DECLARED.get(k)) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        throw new NoSuchFieldException(k.getName() + "." + name);
    }

    /** A field's value (one of {@link #DECLARED}), of a project class or of a {@link #REPLAYED} one (read through
     * {@link #UNSAFE}, primitives boxed). */
    private static Object read(Field f, Object o) throws IllegalAccessException {
        if (!jdk(f.getDeclaringClass())) {
            return f.get(o);
        }
        long at = UNSAFE.objectFieldOffset(f);
        Class<?> t = f.getType();
        return !t.isPrimitive() ? UNSAFE.getObject(o, at) : t == int.class ? UNSAFE.getInt(o, at)
                : t == long.class ? UNSAFE.getLong(o, at) : t == boolean.class ? UNSAFE.getBoolean(o, at)
                : t == char.class ? UNSAFE.getChar(o, at) : t == byte.class ? UNSAFE.getByte(o, at)
                : t == short.class ? UNSAFE.getShort(o, at) : t == float.class ? UNSAFE.getFloat(o, at)
                : (Object) UNSAFE.getDouble(o, at);
    }

    /** Sets a field of a {@link #REPLAYED} class on {@code made} through {@link #UNSAFE}. */
    private static void put(Field f, Object made, Object value) {
        long at = UNSAFE.objectFieldOffset(f);
        Class<?> t = f.getType();
        if (!t.isPrimitive()) {
            UNSAFE.putObject(made, at, value);
        } else if (t == int.class) {
            UNSAFE.putInt(made, at, (Integer) value);
        } else if (t == long.class) {
            UNSAFE.putLong(made, at, (Long) value);
        } else if (t == boolean.class) {
            UNSAFE.putBoolean(made, at, (Boolean) value);
        } else if (t == char.class) {
            UNSAFE.putChar(made, at, (Character) value);
        } else if (t == byte.class) {
            UNSAFE.putByte(made, at, (Byte) value);
        } else if (t == short.class) {
            UNSAFE.putShort(made, at, (Short) value);
        } else if (t == float.class) {
            UNSAFE.putFloat(made, at, (Float) value);
        } else {
            UNSAFE.putDouble(made, at, (Double) value);
        }
    }

    private static boolean jdk(Class<?> c) {
        return JDK.get(c);
    }

    /** Whether a class is the JDK's, once a class: {@code getClassLoader} asks the security manager. */
    private static final ClassValue<Boolean> JDK = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            ClassLoader l = c.getClassLoader();
            return l == null || l == ClassLoader.getPlatformClassLoader();
        }
    };

    /** Values no code can change (shared by copies), and objects that are nothing but an identity. */
    private static boolean immutable(Object o) {
        Class<?> c = o.getClass();
        return o instanceof String || o instanceof Boolean || o instanceof Character || o instanceof Enum
                || o instanceof Class || c == Object.class || lambda(c)
                || jdk(c) && (o instanceof Number && !c.getName().startsWith("java.util.concurrent.atomic.")
                        || o instanceof java.util.Locale || o instanceof java.util.regex.Pattern
                        || o instanceof java.nio.charset.Charset || o instanceof java.net.URI || o instanceof java.io.File);
    }

    private static boolean lambda(Class<?> c) {
        return c.isSynthetic() || c.getName().contains("$$Lambda");
    }

    static Object[] copy(Object[] roots) throws Uncopyable {
        return copy(roots, null);
    }

    /** A copy of {@code roots} whose project objects are instances of the classes of the same names in
     * {@code into} (when not null): the same input for another loader's version of the project, in which
     * nothing of this loader's classes is left (an enum constant is its twin's, a class object its twin). */
    static Object[] copy(Object[] roots, ClassLoader into) throws Uncopyable {
        IdentityHashMap<Object, Object> done = new IdentityHashMap<>();
        Object[] out = new Object[roots.length];
        try {
            for (int i = 0; i < roots.length; i++) {
                out[i] = copy(roots[i], done, 0, into);
            }
        } catch (RuntimeException | LinkageError e) {
            // what the JDK refused while copying (a proxy class of a JDK-internal annotation, which the guard keeps
            // from initialising in the twin) is an input not copied, never an error thrown into the test that made
            // the call: it ended the test, and which of its call's inputs had run hung on their order
            throw new Uncopyable(e.getClass().getName() + " while copying");
        }
        return out;
    }

    /**
     * A field, method or constructor a project object holds (a bean property's accessor, say: JacksonDatabind's
     * writers hold one each): a handle no copy needs of its own, shared, except in {@code into}'s version of the
     * project, where it is the twin class's member of the same name and parameter types, as accessible as the
     * original. The runner asks for it: the candidate's code never runs here.
     */
    @SuppressWarnings("deprecation")
    private static Object member(java.lang.reflect.AccessibleObject o, ClassLoader into) throws Uncopyable {
        Class<?> owner = ((java.lang.reflect.Member) o).getDeclaringClass();
        if (into == null || jdk(owner)) {
            return o;
        }
        try {
            Class<?> k = twin(owner, into);
            java.lang.reflect.AccessibleObject made;
            if (o instanceof Field) {
                made = k.getDeclaredField(((Field) o).getName());
            } else if (o instanceof Method) {
                made = k.getDeclaredMethod(((Method) o).getName(), twins(((Method) o).getParameterTypes(), into));
            } else {
                made = k.getDeclaredConstructor(twins(((java.lang.reflect.Constructor<?>) o).getParameterTypes(), into));
            }
            if (o.isAccessible()) {
                made.setAccessible(true);
            }
            return made;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new Uncopyable(o.getClass().getName() + " " + ((java.lang.reflect.Member) o).getName());
        }
    }

    private static Class<?>[] twins(Class<?>[] types, ClassLoader into) throws Uncopyable {
        Class<?>[] out = new Class<?>[types.length];
        for (int i = 0; i < types.length; i++) {
            out[i] = twin(types[i], into);
        }
        return out;
    }

    /**
     * A copy of one of the JDK's fixed collections ({@code List.of}, {@code Arrays.asList}, the singletons and the
     * empty ones of {@code Collections}) or unmodifiable views, which project code hands out everywhere (Jackson's
     * {@code Collections.emptyMap()}, {@code unmodifiableSet}): made anew of copied contents through the JDK's own
     * factories, a view over the copy of the collection it wraps (so that the view and its collection stay one in
     * the copy); null for any other class.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object fixedOrView(Object o, IdentityHashMap<Object, Object> done, int depth, ClassLoader into)
            throws Uncopyable {
        String n = o.getClass().getName();
        if (n.startsWith("java.util.Collections$Empty")) {
            return o;  // stateless singletons
        }
        Object made;
        if (n.startsWith("java.util.Collections$Unmodifiable")) {
            Object inner = copy(wrapped(o), done, depth + 1, into);
            made = o instanceof java.util.NavigableSet ? Collections.unmodifiableNavigableSet((java.util.NavigableSet) inner)
                    : o instanceof java.util.SortedSet ? Collections.unmodifiableSortedSet((java.util.SortedSet) inner)
                    : o instanceof Set ? Collections.unmodifiableSet((Set) inner)
                    : o instanceof List ? Collections.unmodifiableList((List) inner)
                    : o instanceof java.util.NavigableMap ? Collections.unmodifiableNavigableMap((java.util.NavigableMap) inner)
                    : o instanceof java.util.SortedMap ? Collections.unmodifiableSortedMap((java.util.SortedMap) inner)
                    : o instanceof Map ? Collections.unmodifiableMap((Map) inner)
                    : Collections.unmodifiableCollection((Collection) inner);
        } else if (n.equals("java.util.Arrays$ArrayList")) {
            made = java.util.Arrays.asList((Object[]) copy(((List<?>) o).toArray(), done, depth + 1, into));
        } else if (n.startsWith("java.util.Collections$Singleton") || n.startsWith("java.util.ImmutableCollections$")) {
            if (n.contains("SubList")) {
                return null;  // a view of a part of another list: not made of its contents
            }
            if (o instanceof Map) {
                List<Map.Entry<?, ?>> entries = new ArrayList<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                    entries.add(new java.util.AbstractMap.SimpleImmutableEntry<>(copy(e.getKey(), done, depth + 1, into),
                            copy(e.getValue(), done, depth + 1, into)));
                }
                made = n.startsWith("java.util.Collections$") ? Collections.singletonMap(entries.get(0).getKey(),
                        entries.get(0).getValue()) : Map.ofEntries(entries.toArray(new Map.Entry[0]));
            } else {
                Object[] items = ((Collection<?>) o).toArray();
                for (int i = 0; i < items.length; i++) {
                    items[i] = copy(items[i], done, depth + 1, into);
                }
                made = n.startsWith("java.util.Collections$")
                        ? o instanceof Set ? Collections.singleton(items[0]) : Collections.singletonList(items[0])
                        : o instanceof Set ? Set.of(items) : List.of(items);
            }
        } else {
            return null;
        }
        done.put(o, made);
        return made;
    }

    /** The object that is not the JDK's under a JDK collection or map, a few views deep, that its toArray, entrySet or
     * iterator would call (an unmodifiable list of the candidate's own list, a set over its map, a sublist of its
     * list: red team 22 had the candidate's toArray rewrite its receiver while the runner wrote it); null when there
     * is none. A field holding a project's collection, map or iterable, or a JDK one over such a one; not {@code root}
     * itself (a map's key set holds its map: Jackson's {@code LRUMap}, a project's {@code LinkedHashMap}). */
    static Object foreign(Object root, Object o, int depth) {
        for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : DECLARED.get(k)) {
                if (f.getType().isPrimitive()) {
                    continue;
                }
                Object v = UNSAFE.getObject(o, UNSAFE.objectFieldOffset(f));
                if (v == null || v == o || v == root || v.getClass().isArray()
                        || !(v instanceof Collection || v instanceof Map || v instanceof Iterable
                                || v instanceof java.util.Iterator)) {
                    continue;
                }
                if (!jdk(v.getClass())) {
                    return v;
                }
                Object deeper = depth < 4 ? foreign(root, v, depth + 1) : null;
                if (deeper != null) {
                    return deeper;
                }
            }
        }
        return null;
    }

    /** The collection or map an unmodifiable view of {@code Collections} wraps (its field {@code c} or {@code m}). */
    private static Object wrapped(Object view) throws Uncopyable {
        for (Class<?> k = view.getClass(); k != Object.class; k = k.getSuperclass()) {
            for (Field f : DECLARED.get(k)) {
                if (f.getName().equals("c") || f.getName().equals("m")) {
                    return UNSAFE.getObject(view, UNSAFE.objectFieldOffset(f));
                }
            }
        }
        throw new Uncopyable(view.getClass().getName());
    }

    /**
     * A generic type the JDK made (a parameterized type a project's type resolver holds, as JacksonDatabind's bean
     * properties do): immutable, so shared; in {@code into}'s version of the project, when it names a project class,
     * the same type of the twin classes, made by the JDK's own factories (a type variable: the twin declaration's of
     * that name). A wildcard bounded by a project class has no such factory: uncopyable.
     */
    private static java.lang.reflect.Type generic(java.lang.reflect.Type t, ClassLoader into) throws Uncopyable {
        if (into == null || !namesProject(t)) {
            return t;
        }
        try {
            if (t instanceof Class) {
                return twin((Class<?>) t, into);
            }
            if (t instanceof java.lang.reflect.ParameterizedType && GenericTypes.PARAMETERIZED != null) {
                java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) t;
                java.lang.reflect.Type[] args = p.getActualTypeArguments();
                for (int i = 0; i < args.length; i++) {
                    args[i] = generic(args[i], into);
                }
                java.lang.reflect.Type owner = p.getOwnerType();
                return (java.lang.reflect.Type) GenericTypes.PARAMETERIZED.invoke(null, generic(p.getRawType(), into),
                        args, owner == null ? null : generic(owner, into));
            }
            if (t instanceof java.lang.reflect.GenericArrayType && GenericTypes.ARRAY != null) {
                return (java.lang.reflect.Type) GenericTypes.ARRAY.invoke(null,
                        generic(((java.lang.reflect.GenericArrayType) t).getGenericComponentType(), into));
            }
            if (t instanceof java.lang.reflect.TypeVariable) {
                java.lang.reflect.TypeVariable<?> v = (java.lang.reflect.TypeVariable<?>) t;
                Object declaration = v.getGenericDeclaration();
                Object own = declaration instanceof Class ? twin((Class<?>) declaration, into)
                        : member((java.lang.reflect.AccessibleObject) declaration, into);
                for (java.lang.reflect.TypeVariable<?> w : ((java.lang.reflect.GenericDeclaration) own).getTypeParameters()) {
                    if (w.getName().equals(v.getName())) {
                        return w;
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not made: uncopyable, below
        }
        throw new Uncopyable(t.getClass().getName());
    }

    /** Whether a generic type names a class of the project's (a type variable: one a project class declares). */
    private static boolean namesProject(java.lang.reflect.Type t) {
        if (t instanceof Class) {
            Class<?> base = (Class<?>) t;
            while (base.isArray()) {
                base = base.getComponentType();
            }
            return !base.isPrimitive() && !jdk(base);
        }
        if (t instanceof java.lang.reflect.ParameterizedType) {
            java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) t;
            return namesProject(p.getRawType()) || p.getOwnerType() != null && namesProject(p.getOwnerType())
                    || namesProject(p.getActualTypeArguments());
        }
        if (t instanceof java.lang.reflect.GenericArrayType) {
            return namesProject(((java.lang.reflect.GenericArrayType) t).getGenericComponentType());
        }
        if (t instanceof java.lang.reflect.WildcardType) {
            java.lang.reflect.WildcardType w = (java.lang.reflect.WildcardType) t;
            return namesProject(w.getUpperBounds()) || namesProject(w.getLowerBounds());
        }
        if (t instanceof java.lang.reflect.TypeVariable) {
            Object declaration = ((java.lang.reflect.TypeVariable<?>) t).getGenericDeclaration();
            return !jdk(declaration instanceof Class ? (Class<?>) declaration
                    : ((java.lang.reflect.Member) declaration).getDeclaringClass());
        }
        return true;
    }

    private static boolean namesProject(java.lang.reflect.Type[] types) {
        for (java.lang.reflect.Type t : types) {
            if (namesProject(t)) {
                return true;
            }
        }
        return false;
    }

    /** The JDK's factories of generic types, in a package java.base opens to the runner's module alone (runner.py's
     * {@code OPENED_TO_RUNNER}); null where this JDK has none by those names (a generic type of a project class is
     * then uncopyable in a twin). */
    private static final class GenericTypes {
        static final Method PARAMETERIZED = factory("ParameterizedTypeImpl", Class.class,
                java.lang.reflect.Type[].class, java.lang.reflect.Type.class);
        static final Method ARRAY = factory("GenericArrayTypeImpl", java.lang.reflect.Type.class);

        private static Method factory(String name, Class<?>... parameters) {
            try {
                return Class.forName("sun.reflect.generics.reflectiveObjects." + name).getMethod("make", parameters);
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
        }
    }

    /** The most a file a copied {@code FileOutputStream} writes may hold (see {@link #scratchCopy}). */
    static final long MAX_FILE = 1L << 20;
    /** A link is not followed: a path the snapshot reads is a scratch file the probe made, or the test's own file. */
    private static final java.nio.file.LinkOption NO_LINKS = java.nio.file.LinkOption.NOFOLLOW_LINKS;
    private static final long FILE_PATH = offset(java.io.FileOutputStream.class, "path");
    private static final long FILE_CLOSED = offset(java.io.FileOutputStream.class, "closed");
    /** The scratch files' streams of the copies bodies run on, made and not released yet, in the order made (see
     * {@link #releaseFiles}); and of the copies the probe keeps (see {@link #kept}), released at the job's end. */
    private static final List<java.io.FileOutputStream> SCRATCH = new ArrayList<>();
    private static final List<java.io.FileOutputStream> KEPT = new ArrayList<>();
    /** The kept copies' streams that stand for an open stream: closed, so that no descriptor names their file. */
    private static final Set<Object> KEPT_OPEN = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Set while {@link #kept} copies. */
    private static final ThreadLocal<Boolean> KEEPING = new ThreadLocal<>();

    /**
     * A copy the probe keeps, not one a body runs on: a test's call as it came, a receiver's state, an argument
     * derived inputs are made of, each copied again for every run. Its streams over scratch files are closed at once
     * and only stand for open ones: no descriptor of the JVM names their files, which a candidate could otherwise find
     * (a descriptor's link names its file) and write, changing the inputs made of them after its call (red team 19).
     */
    static Object[] kept(Object[] roots) throws Uncopyable {
        KEEPING.set(Boolean.TRUE);
        try {
            return copy(roots);
        } finally {
            KEEPING.remove();
        }
    }

    /**
     * A copy of a stream writing a file (Compress-1's archive stream writes into one its test opened): a stream over
     * a scratch file of its own in the job's temporary folder, holding what the file held, open or closed as the
     * original, where a body's writes go as they would have gone there (after what the file holds: a test's stream
     * is the one writing its file). The snapshot writes what the file holds ({@link #jdkObject}). One made of a
     * descriptor (no path), or over anything but a regular file of at most {@link #MAX_FILE} bytes, is uncopyable.
     */
    private static java.io.FileOutputStream scratchCopy(Object o) throws Uncopyable {
        String path = (String) UNSAFE.getObject(o, FILE_PATH);
        boolean keeping = KEEPING.get() != null;
        try {
            // a regular file only: a device or a pipe may never end, or be read only once
            if (path == null || !java.nio.file.Files.isRegularFile(java.nio.file.Paths.get(path), NO_LINKS)
                    || java.nio.file.Files.size(java.nio.file.Paths.get(path)) > MAX_FILE) {
                throw new Uncopyable("java.io.FileOutputStream");
            }
            java.io.File scratch = java.io.File.createTempFile("nl2fix-copy", null);
            java.nio.file.Files.copy(java.nio.file.Paths.get(path), scratch.toPath(),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            java.io.FileOutputStream made = new java.io.FileOutputStream(scratch, true);
            boolean closed = closed(o);
            synchronized (SCRATCH) {
                (keeping ? KEPT : SCRATCH).add(made);
                if (keeping && !closed) {
                    KEPT_OPEN.add(made);
                }
            }
            if (closed || keeping) {
                made.close();
            }
            return made;
        } catch (java.io.IOException | RuntimeException e) {
            throw new Uncopyable("java.io.FileOutputStream");
        }
    }

    /** Whether a {@code FileOutputStream} is closed: as its flag says, or as the original a kept copy stands for. */
    private static boolean closed(Object o) {
        synchronized (SCRATCH) {
            return UNSAFE.getBoolean(o, FILE_CLOSED) && !KEPT_OPEN.contains(o);
        }
    }

    /** How many scratch files of bodies' copies are made and not released ({@link #releaseFiles}' marks). */
    static int scratchMark() {
        synchronized (SCRATCH) {
            return SCRATCH.size();
        }
    }

    /** Closes and deletes the scratch files of bodies' copies made from mark {@code from} to mark {@code to}
     * ({@link #scratchMark}; -1: the last): an input's copies are done with once their outcomes are written, and the
     * reference's before the candidate runs (red team 19: a candidate read the fix's output from the reference's
     * open scratch file); a job that left files open would retire its JVM. */
    static void releaseFiles(int from, int to) {
        List<java.io.FileOutputStream> made;
        synchronized (SCRATCH) {
            int end = to < 0 ? SCRATCH.size() : Math.min(to, SCRATCH.size());
            List<java.io.FileOutputStream> range = SCRATCH.subList(Math.min(from, end), end);
            made = new ArrayList<>(range);
            range.clear();
        }
        release(made);
    }

    /** Closes and deletes every scratch file, the kept copies' too (the job's end). */
    static void releaseAllFiles() {
        List<java.io.FileOutputStream> made;
        synchronized (SCRATCH) {
            made = new ArrayList<>(SCRATCH);
            made.addAll(KEPT);
            SCRATCH.clear();
            KEPT.clear();
            KEPT_OPEN.clear();
        }
        release(made);
    }

    private static void release(List<java.io.FileOutputStream> made) {
        for (java.io.FileOutputStream f : made) {
            try {
                f.close();
                java.nio.file.Files.deleteIfExists(java.nio.file.Paths.get((String) UNSAFE.getObject(f, FILE_PATH)));
            } catch (java.io.IOException | RuntimeException e) {
                // the job's temporary folder is emptied after the job
            }
        }
    }

    /** What the file a {@code FileOutputStream} writes holds: its length, a digest and its first characters. */
    private static void written(Object o, StringBuilder out) {
        out.append(closed(o) ? "(closed, " : "(open, ");
        String path = (String) UNSAFE.getObject(o, FILE_PATH);
        try {
            java.nio.file.Path file = java.nio.file.Paths.get(path);
            // read only what a copy could have been made of (a device or a pipe may never end)
            if (!java.nio.file.Files.isRegularFile(file, NO_LINKS) || java.nio.file.Files.size(file) > MAX_FILE) {
                out.append(java.nio.file.Files.isRegularFile(file, NO_LINKS) ? "a large file)" : "not a regular file)");
                return;
            }
            byte[] held = java.nio.file.Files.readAllBytes(file);
            out.append(held.length).append(" bytes ");
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(held);
            for (int i = 0; i < 8; i++) {
                out.append(String.format("%02x", digest[i]));
            }
            out.append(' ');
            quote(new String(held, 0, Math.min(held.length, 200), java.nio.charset.StandardCharsets.ISO_8859_1), out,
                    200);
        } catch (java.io.IOException | java.security.NoSuchAlgorithmException | RuntimeException e) {
            out.append("unreadable");
        }
        out.append(')');
    }

    /** The class named as {@code c} in {@code into} (a JDK class, or any when {@code into} is null: itself). */
    static Class<?> twin(Class<?> c, ClassLoader into) throws Uncopyable {
        Class<?> base = c;
        while (base.isArray()) {
            base = base.getComponentType();
        }
        if (into == null || base.isPrimitive() || jdk(base)) {
            return c;
        }
        Twins known = twins;
        if (known == null || known.into != into) {
            known = new Twins(into);
            twins = known;
        }
        Class<?> found = known.of.get(c);
        if (found != null) {
            return found;
        }
        try {
            found = Class.forName(c.getName(), false, into);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Uncopyable(c.getName());
        }
        known.of.put(c, found);
        return found;
    }

    /** The classes {@link #twin} found in one loader: a copy into the twin looked up every object's class by name
     * (a probe's candidate runs on hundreds of inputs); a loader defines a name once, so the answer stands. */
    private static final class Twins {
        final ClassLoader into;
        final java.util.concurrent.ConcurrentHashMap<Class<?>, Class<?>> of = new java.util.concurrent.ConcurrentHashMap<>();

        Twins(ClassLoader into) {
            this.into = into;
        }
    }

    private static volatile Twins twins;

    /** Forgets the classes {@link #twin} found: at a probe's end, so that its twin's classes are not kept alive. */
    static void forgetTwins() {
        twins = null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object copy(Object o, IdentityHashMap<Object, Object> done, int depth, ClassLoader into)
            throws Uncopyable {
        if (o == null) {
            return null;
        }
        if (into != null && !jdk(o.getClass())) {
            if (o instanceof Enum) {
                return twinConstant((Enum<?>) o, into);
            }
            if (lambda(o.getClass())) {
                throw new Uncopyable("a lambda of " + o.getClass().getName());
            }
        }
        if (into != null && o instanceof Class) {
            return twin((Class<?>) o, into);
        }
        if (o instanceof java.lang.reflect.Type && !(o instanceof Class) && jdk(o.getClass())) {
            return generic((java.lang.reflect.Type) o, into);
        }
        if (o instanceof Field || o instanceof Method || o instanceof java.lang.reflect.Constructor) {
            return member((java.lang.reflect.AccessibleObject) o, into);
        }
        Object handler = annotationHandler(o);
        if (handler != null) {
            return annotation(o, handler, into, done);
        }
        if (immutable(o)) {
            return o;
        }
        Object seen = done.get(o);
        if (seen != null) {
            return seen;
        }
        if (depth > 64 || done.size() > 50_000) {
            throw new Uncopyable("too large");
        }
        Class<?> c = o.getClass();
        if (c.isArray()) {
            int n = Array.getLength(o);
            Object a = Array.newInstance(twin(c.getComponentType(), into), n);
            done.put(o, a);
            if (c.getComponentType().isPrimitive()) {
                System.arraycopy(o, 0, a, 0, n);
            } else {
                for (int i = 0; i < n; i++) {
                    Array.set(a, i, copy(Array.get(o, i), done, depth + 1, into));
                }
            }
            return a;
        }
        if (c == java.io.FileOutputStream.class) {
            Object made = scratchCopy(o);
            done.put(o, made);
            return made;
        }
        if (jdk(c) && !replayed(c)) {
            Object fixed = fixedOrView(o, done, depth, into);
            if (fixed != null) {
                return fixed;
            }
            Object made = emptyLike(o);
            if (made == null) {
                throw new Uncopyable(c.getName());
            }
            done.put(o, made);
            if (o instanceof Map || o instanceof Collection) {
                fill(o, made, done, depth, into);
            } else if (o instanceof java.util.concurrent.atomic.AtomicReference) {
                ((java.util.concurrent.atomic.AtomicReference) made).set(
                        copy(((java.util.concurrent.atomic.AtomicReference<?>) o).get(), done, depth + 1, into));
            }
            return made;
        }
        Class<?> kind = twin(c, into);
        // the twin rebuilt only as the original is: a candidate's version of the class may override more
        Class<?> base = rebuilt(c) != null && rebuilt(kind) == rebuilt(c) ? rebuilt(c) : null;
        Object made;
        try {
            made = base == null ? UNSAFE.allocateInstance(kind) : constructed(kind, base, o);
        } catch (ReflectiveOperationException e) {
            throw new Uncopyable(c.getName());
        }
        done.put(o, made);
        for (Class<?> k = c; k != Object.class; k = k.getSuperclass()) {
            if (k == base) {
                fill(o, made, done, depth, into);  // the project's fields are copied by now
                break;
            }
            if (jdk(k) && replayed(k)) {
                for (Field f : instanceFields(k)) {
                    try {
                        Object value = read(f, o);
                        put(f, made, f.getType().isPrimitive() ? value : copy(value, done, depth + 1, into));
                    } catch (RuntimeException | IllegalAccessException e) {
                        throw new Uncopyable(k.getName() + "." + f.getName());
                    }
                }
                break;
            }
            if (jdk(k)) {
                if (holdsState(k)) {
                    throw new Uncopyable(c.getName() + " extends " + k.getName());
                }
                break;  // a JDK superclass without fields of its own (Number): the project's fields are the object
            }
            for (Field f : DECLARED.get(k)) {
                try {
                    Field target = into == null ? f : declared(twin(k, into), f.getName());
                    target.set(made, copy(f.get(o), done, depth + 1, into));
                } catch (RuntimeException | IllegalAccessException | NoSuchFieldException e) {
                    throw new Uncopyable(k.getName() + "." + f.getName());
                }
            }
        }
        return made;
    }

    /** {@code o}'s elements (a map's entries), copied, added to {@code made} in the order {@code o} iterates in. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void fill(Object o, Object made, IdentityHashMap<Object, Object> done, int depth, ClassLoader into)
            throws Uncopyable {
        if (o instanceof Map) {
            for (Map.Entry<?, ?> e : new ArrayList<Map.Entry<?, ?>>(((Map<?, ?>) o).entrySet())) {
                ((Map) made).put(copy(e.getKey(), done, depth + 1, into), copy(e.getValue(), done, depth + 1, into));
            }
        } else {
            for (Object e : ((Collection<?>) o).toArray()) {
                ((Collection) made).add(copy(e, done, depth + 1, into));
            }
        }
    }

    /** Whether JDK class {@code k} or a superclass of it declares an instance field: state that copying the
     * project's fields would miss (a {@code Number} has none, an {@code AbstractList} its {@code modCount}). */
    private static boolean holdsState(Class<?> k) {
        for (; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A new JDK object of {@code o}'s kind: empty, for the copy to fill in (a map, a collection, an atomic
     * reference), or a whole copy of one whose contents are values (a string builder, a date, a format); or null. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object emptyLike(Object o) {
        Class<?> c = o.getClass();
        if (o instanceof StringBuilder) {
            return new StringBuilder((CharSequence) o);
        }
        if (o instanceof StringBuffer) {
            return new StringBuffer((CharSequence) o);
        }
        if (o instanceof java.util.Date && c == java.util.Date.class) {
            return new java.util.Date(((java.util.Date) o).getTime());
        }
        if (o instanceof java.util.TreeMap) {
            return new java.util.TreeMap(((java.util.TreeMap) o).comparator());
        }
        if (o instanceof java.util.TreeSet) {
            return new java.util.TreeSet(((java.util.TreeSet) o).comparator());
        }
        if (c == java.util.concurrent.atomic.AtomicReference.class) {
            return new java.util.concurrent.atomic.AtomicReference<Object>();  // its value is copied into it
        }
        if (c == java.util.concurrent.atomic.AtomicInteger.class) {
            return new java.util.concurrent.atomic.AtomicInteger(((java.util.concurrent.atomic.AtomicInteger) o).get());
        }
        if (c == java.util.concurrent.atomic.AtomicLong.class) {
            return new java.util.concurrent.atomic.AtomicLong(((java.util.concurrent.atomic.AtomicLong) o).get());
        }
        if (c == java.util.concurrent.atomic.AtomicBoolean.class) {
            return new java.util.concurrent.atomic.AtomicBoolean(((java.util.concurrent.atomic.AtomicBoolean) o).get());
        }
        if (CLONED.contains(c.getName())) {
            // their own clone copies what they hold (a format its calendar, zone and symbols); only where all of
            // it is the JDK's and of these kinds: a project's zone inside would be copied by the project's code,
            // and not into the twin's classes, and another JDK format's clone may share what it holds
            return clonable(o, new IdentityHashMap<>()) ? cloned(o) : null;
        }
        if (c == java.util.ArrayList.class || c == java.util.LinkedList.class || c == java.util.HashMap.class
                || c == java.util.LinkedHashMap.class || c == java.util.HashSet.class || c == java.util.LinkedHashSet.class
                || c == java.util.ArrayDeque.class || c == java.util.Vector.class || c == java.util.Stack.class
                || c == java.util.Hashtable.class || c == java.util.Properties.class
                || c == java.util.concurrent.ConcurrentHashMap.class) {
            try {
                return c.getConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * The JDK classes a copy takes by their own {@code clone}, which copies all a caller can change of them (checked
     * on JDK 11 and 17): the Gregorian calendar, the two zones, the simple date and decimal formats and their
     * symbols. Not any {@code Format}: JDK 17's {@code CompactNumberFormat} clone keeps the original's decimal
     * formats, so a candidate's copy would write the test's own object. The snapshot writes each as a caller reads
     * it ({@link #readable}).
     */
    private static final Set<String> CLONED = Set.of("java.util.GregorianCalendar", "sun.util.calendar.ZoneInfo",
            "java.util.SimpleTimeZone", "java.text.SimpleDateFormat", "java.text.DecimalFormat",
            "java.text.DateFormatSymbols", "java.text.DecimalFormatSymbols");

    private static Object cloned(Object o) {
        if (o instanceof java.util.Calendar) {
            return ((java.util.Calendar) o).clone();
        }
        if (o instanceof java.util.TimeZone) {
            return ((java.util.TimeZone) o).clone();
        }
        if (o instanceof java.text.Format) {
            return ((java.text.Format) o).clone();
        }
        return o instanceof java.text.DateFormatSymbols ? ((java.text.DateFormatSymbols) o).clone()
                : ((java.text.DecimalFormatSymbols) o).clone();
    }

    /** Whether {@code o} and everything it holds, however deep, are the JDK's, and any calendar, zone, format or
     * format symbols among them one of {@link #CLONED} (read through {@link #UNSAFE}: no method of theirs runs);
     * false for a graph too large to tell. */
    private static boolean clonable(Object o, IdentityHashMap<Object, Boolean> seen) {
        if (o == null || o instanceof String) {
            return true;
        }
        if (o instanceof Class) {
            return jdk((Class<?>) o);
        }
        Class<?> c = o.getClass();
        if (!jdk(c) || lambda(c) || seen.size() > 10_000 || !CLONED.contains(c.getName())
                && (o instanceof java.util.Calendar || o instanceof java.util.TimeZone || o instanceof java.text.Format
                        || o instanceof java.text.DateFormatSymbols || o instanceof java.text.DecimalFormatSymbols)) {
            return false;
        }
        if (seen.put(o, Boolean.TRUE) != null || c.isArray() && c.getComponentType().isPrimitive()) {
            return true;
        }
        if (c.isArray()) {
            for (int i = 0, n = Array.getLength(o); i < n; i++) {
                if (!clonable(Array.get(o, i), seen)) {
                    return false;
                }
            }
            return true;
        }
        try {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()
                            && !clonable(UNSAFE.getObject(o, UNSAFE.objectFieldOffset(f)), seen)) {
                        return false;
                    }
                }
            }
        } catch (RuntimeException e) {
            return false;  // a field Unsafe cannot place (a hidden class's, a record's)
        }
        return true;
    }

    /** What a caller can read of one of {@link #CLONED} without changing it, all of it (a calendar read on a clone:
     * reading computes its fields), or null for any other object. Only where it holds nothing but such JDK
     * objects: else a method of the project's could run here, and it says so (which the fix's does not). */
    private static String readable(Object o) {
        if (o == null || !CLONED.contains(o.getClass().getName())) {
            return null;
        }
        if (!clonable(o, new IdentityHashMap<>())) {
            return "holds what is not one of the JDK's own";
        }
        if (o instanceof java.util.TimeZone) {
            java.util.TimeZone z = (java.util.TimeZone) o;
            return "id=" + z.getID() + ",offset=" + z.getRawOffset() + ",dst=" + z.getDSTSavings() + ",daylight="
                    + z.useDaylightTime() + (o instanceof java.util.SimpleTimeZone ? ",rules=" + z : "");
        }
        if (o instanceof java.util.Calendar) {
            java.util.Calendar k = (java.util.Calendar) ((java.util.Calendar) o).clone();
            String time;
            try {
                time = Long.toString(k.getTimeInMillis());
            } catch (IllegalArgumentException e) {
                time = "invalid: " + e.getMessage();
            }
            return "time=" + time + "," + settings(k);
        }
        if (o instanceof java.text.SimpleDateFormat) {
            java.text.SimpleDateFormat f = (java.text.SimpleDateFormat) ((java.text.SimpleDateFormat) o).clone();
            // its calendar's time is the last date it handled, scratch: its settings are the format's
            return "pattern=" + f.toPattern() + ",century-start=" + f.get2DigitYearStart().getTime() + ","
                    + settings(f.getCalendar()) + ",numbers={" + readable(f.getNumberFormat()) + "},symbols={"
                    + readable(f.getDateFormatSymbols()) + "}";
        }
        if (o instanceof java.text.DecimalFormat) {
            java.text.DecimalFormat d = (java.text.DecimalFormat) o;
            return "pattern=" + d.toPattern() + ",rounding=" + d.getRoundingMode() + ",grouping=" + d.isGroupingUsed()
                    + "/" + d.getGroupingSize() + ",multiplier=" + d.getMultiplier() + ",digits="
                    + d.getMinimumIntegerDigits() + ".." + d.getMaximumIntegerDigits() + "."
                    + d.getMinimumFractionDigits() + ".." + d.getMaximumFractionDigits() + ",affixes="
                    + d.getPositivePrefix() + "|" + d.getPositiveSuffix() + "|" + d.getNegativePrefix() + "|"
                    + d.getNegativeSuffix() + ",parse=" + d.isParseIntegerOnly() + "/" + d.isParseBigDecimal()
                    + ",separator-shown=" + d.isDecimalSeparatorAlwaysShown() + ",symbols={"
                    + readable(d.getDecimalFormatSymbols()) + "}";
        }
        if (o instanceof java.text.DecimalFormatSymbols) {
            java.text.DecimalFormatSymbols y = (java.text.DecimalFormatSymbols) o;
            return String.join("|", String.valueOf(y.getZeroDigit()), String.valueOf(y.getGroupingSeparator()),
                    String.valueOf(y.getDecimalSeparator()), String.valueOf(y.getPerMill()),
                    String.valueOf(y.getPercent()), String.valueOf(y.getDigit()),
                    String.valueOf(y.getPatternSeparator()), y.getInfinity(), y.getNaN(),
                    String.valueOf(y.getMinusSign()), y.getCurrencySymbol(), y.getInternationalCurrencySymbol(),
                    String.valueOf(y.getMonetaryDecimalSeparator()), y.getExponentSeparator());
        }
        java.text.DateFormatSymbols y = (java.text.DateFormatSymbols) o;
        return java.util.Arrays.deepToString(new Object[] {y.getEras(), y.getMonths(), y.getShortMonths(),
                y.getWeekdays(), y.getShortWeekdays(), y.getAmPmStrings(), y.getLocalPatternChars(),
                zonesSet(y) ? y.getZoneStrings() : "the locale's zone names"});
    }

    /** A calendar's settings: everything a caller reads of it but its time. */
    private static String settings(java.util.Calendar k) {
        return "calendar=" + k.getClass().getName() + ",zone={" + readable(k.getTimeZone()) + "},lenient="
                + k.isLenient() + ",week=" + k.getFirstDayOfWeek() + "/" + k.getMinimalDaysInFirstWeek()
                + (k instanceof java.util.GregorianCalendar
                        ? ",change=" + ((java.util.GregorianCalendar) k).getGregorianChange().getTime() : "");
    }

    /** Whether a caller set {@code y}'s zone names (else they are the locale's, loaded only when asked for: a big
     * table, not read here). */
    private static boolean zonesSet(java.text.DateFormatSymbols y) {
        try {
            return UNSAFE.getBoolean(y,
                    UNSAFE.objectFieldOffset(java.text.DateFormatSymbols.class.getDeclaredField("isZoneStringsSet")));
        } catch (NoSuchFieldException | RuntimeException e) {
            return true;
        }
    }

    private static final long PROXY_HANDLER = offset(java.lang.reflect.Proxy.class, "h");
    /** The JDK's handler of annotations, and where it keeps an annotation's type and member values. */
    private static final Class<?> ANNOTATION_HANDLER = jdkClass("sun.reflect.annotation.AnnotationInvocationHandler");
    private static final long HANDLER_TYPE = offset(ANNOTATION_HANDLER, "type");
    private static final long HANDLER_VALUES = offset(ANNOTATION_HANDLER, "memberValues");

    private static Class<?> jdkClass(String name) {
        try {
            return Class.forName(name, false, null);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long offset(Class<?> owner, String field) {
        try {
            return UNSAFE.objectFieldOffset(owner.getDeclaredField(field));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JDK's own handler behind an annotation ({@code o} a proxy of an annotation type whose handler is the
     * JDK's), read through {@link #UNSAFE} (asking the proxy would run its handler); else null. */
    private static Object annotationHandler(Object o) {
        if (!(o instanceof java.lang.annotation.Annotation) || !java.lang.reflect.Proxy.isProxyClass(o.getClass())) {
            return null;
        }
        Object h = UNSAFE.getObject(o, PROXY_HANDLER);
        return h != null && h.getClass() == ANNOTATION_HANDLER ? h : null;
    }

    /** An annotation's member values, as its JDK handler holds them. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> annotationValues(Object handler) {
        return (Map<String, Object>) UNSAFE.getObject(handler, HANDLER_VALUES);
    }

    private static Class<?> annotationType(Object handler) {
        return (Class<?>) UNSAFE.getObject(handler, HANDLER_TYPE);
    }

    /**
     * An annotation as a copy holds it: an annotation cannot change, so the same one for the fix's copies; for the
     * twin's classes, one of the twin's annotation type with the same member values, each the twin's (a class, an
     * enum constant, a nested annotation, an array of them), made by a new JDK handler of the same class: nothing
     * of the original's reaches the twin, not even through a JDK annotation that names a project class.
     */
    private static Object annotation(Object o, Object handler, ClassLoader into, IdentityHashMap<Object, Object> done)
            throws Uncopyable {
        Object seen = into == null ? o : done.get(o);
        if (seen != null) {
            return seen;  // one annotation held twice stays one object, as it is for the fix's copies
        }
        Class<?> type = annotationType(handler);
        Class<?> own = twin(type, into);
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Object> e : annotationValues(handler).entrySet()) {
            values.put(e.getKey(), memberValue(e.getValue(), into, done));
        }
        try {
            Object made = annotationOf(own, values, into);
            done.put(o, made);
            // its handler looks up the type's members the first time it compares: here, where no candidate asks,
            // as the JDK did for the original long before (a candidate asking for a class's private members of
            // another loader retires the JVM, Guard)
            made.equals(annotationOf(own, values, into));
            return made;
        } catch (InstantiationException | RuntimeException e) {
            throw new Uncopyable("an annotation " + type.getName());
        }
    }

    private static Object annotationOf(Class<?> type, Map<String, Object> values, ClassLoader into)
            throws InstantiationException {
        Object handler = UNSAFE.allocateInstance(ANNOTATION_HANDLER);
        UNSAFE.putObject(handler, HANDLER_TYPE, type);
        UNSAFE.putObject(handler, HANDLER_VALUES, values);
        return java.lang.reflect.Proxy.newProxyInstance(into, new Class<?>[] {type},
                (java.lang.reflect.InvocationHandler) handler);
    }

    /** The constant of the same name of the twin's enum (its own class file may name others: not copied). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object twinConstant(Enum<?> e, ClassLoader into) throws Uncopyable {
        try {
            return Enum.valueOf((Class) twin(e.getDeclaringClass(), into), e.name());
        } catch (IllegalArgumentException | ClassCastException x) {
            throw new Uncopyable(e.getDeclaringClass().getName() + "." + e.name());
        }
    }

    /** A member value of an annotation for the twin's classes (see {@link #annotation}). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object memberValue(Object v, ClassLoader into, IdentityHashMap<Object, Object> done)
            throws Uncopyable {
        if (v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character) {
            return v;
        }
        if (v instanceof Class) {
            return twin((Class<?>) v, into);
        }
        if (v instanceof Enum) {
            return twinConstant((Enum<?>) v, into);
        }
        Object handler = annotationHandler(v);
        if (handler != null) {
            return annotation(v, handler, into, done);
        }
        if (v != null && v.getClass().isArray()) {
            int n = Array.getLength(v);
            Object a = Array.newInstance(twin(v.getClass().getComponentType(), into), n);
            for (int i = 0; i < n; i++) {
                Array.set(a, i, memberValue(Array.get(v, i), into, done));
            }
            return a;
        }
        throw new Uncopyable("an annotation's value " + (v == null ? "null" : v.getClass().getName()));
    }

    /** The snapshot of an input: receiver and arguments ({@code types}: the parameters' types). An argument
     * of a reference type that is the very string or box an earlier one is, or one the receiver or another
     * argument holds ({@link #holder}), says so: a method may compare them by identity, so an equal copy in
     * its place is another input. */
    static String input(Object[] entry, Class<?>[] types) {
        return input(entry, types, View.ALL);
    }

    static String input(Object[] entry, Class<?>[] types, View view) {
        // the arguments first: a shortened input shows what the call was given before the receiver's state
        Object[] roots = new Object[entry.length];
        String[] labels = new String[entry.length];
        for (int i = 1; i < entry.length; i++) {
            roots[i - 1] = entry[i];
            labels[i - 1] = "arg" + (i - 1);
        }
        roots[entry.length - 1] = entry[0];
        labels[entry.length - 1] = "this";
        return snapshot(roots, labels, types, view);
    }

    static String snapshot(Object[] roots, String[] labels) {
        return snapshot(roots, labels, null, View.ALL);
    }

    static String snapshot(Object[] roots, String[] labels, View view) {
        return snapshot(roots, labels, null, view);
    }

    private static String snapshot(Object[] roots, String[] labels, Class<?>[] types, View view) {
        StringBuilder out = new StringBuilder();
        List<Object> path = new ArrayList<>();
        for (int i = 0; i < roots.length; i++) {
            if ("this".equals(labels[i]) && roots[i] == null) {
                continue;  // a static method's receiver
            }
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(labels[i]).append('=');
            // a root that is an earlier one (a method returning `this` or an argument): said, not repeated
            int same = -1;
            for (int j = 0; j < i && same < 0; j++) {
                if (roots[i] != null && roots[j] == roots[i] && !immutable(roots[i])) {
                    same = j;
                }
            }
            if (same >= 0) {
                out.append('@').append(labels[same]);
            } else {
                write(roots[i], out, path, view);
                boolean byIdentity = types != null && i < types.length && !types[i].isPrimitive();
                for (int j = 0; j < i && byIdentity; j++) {
                    if (roots[i] != null && roots[j] == roots[i]) {
                        out.append(" (the same object as ").append(labels[j]).append(')');
                        byIdentity = false;
                    }
                }
                int holder = byIdentity ? holder(roots, i) : -1;
                if (holder >= 0) {
                    out.append(" (an object ").append(labels[holder]).append(" holds)");
                }
            }
        }
        return out.length() > view.chars ? out.substring(0, view.chars) + "..." : out.toString();
    }

    private static void write(Object o, StringBuilder out, List<Object> path, View view) {
        if (out.length() > view.chars) {
            return;
        }
        if (o == null) {
            out.append("null");
            return;
        }
        for (int i = path.size() - 1; i >= 0; i--) {
            if (path.get(i) == o) {
                out.append('^').append(path.size() - i);
                return;
            }
        }
        Class<?> c = o.getClass();
        if (o instanceof String) {
            quote((String) o, out, view.strings);
            return;
        }
        if (o instanceof Character) {
            out.append("char(");
            quote(o.toString(), out, view.strings);
            out.append(')');
            return;
        }
        if (o instanceof Enum) {
            out.append(((Enum<?>) o).getDeclaringClass().getName()).append('.').append(((Enum<?>) o).name());
            return;
        }
        if (o instanceof Class) {
            out.append(((Class<?>) o).getName()).append(".class");
            return;
        }
        if (o instanceof java.lang.reflect.Member) {
            // named, not read: the same text for a member and its twin's
            java.lang.reflect.Member m = (java.lang.reflect.Member) o;
            out.append(c.getSimpleName()).append('(').append(m.getDeclaringClass().getName()).append('.')
                    .append(m.getName());
            if (o instanceof java.lang.reflect.Executable) {
                for (Class<?> t : ((java.lang.reflect.Executable) o).getParameterTypes()) {
                    out.append(',').append(t.getName());
                }
            }
            out.append(')');
            return;
        }
        Object handler = annotationHandler(o);
        if (handler != null) {
            // as the annotation's type and values, never its proxy's class (its number differs between loaders)
            out.append('@').append(annotationType(handler).getName()).append('(');
            Map<String, Object> values = new java.util.TreeMap<>(annotationValues(handler));
            boolean first = true;
            for (Map.Entry<String, Object> e : values.entrySet()) {
                out.append(first ? "" : ",").append(e.getKey()).append('=');
                write(e.getValue(), out, path, view);
                first = false;
            }
            out.append(')');
            return;
        }
        if (lambda(c)) {
            String n = c.getName();
            int cut = n.indexOf("$$Lambda");
            out.append("lambda of ").append(cut < 0 ? n : n.substring(0, cut));
            return;
        }
        String literal = literal(o);
        if (literal != null) {
            out.append(literal);
            return;
        }
        boolean byItsText = jdk(c) && (o instanceof Number || o instanceof Boolean || o instanceof CharSequence
                || o instanceof java.util.Locale || o instanceof java.net.URI || o instanceof java.io.File
                || o instanceof java.nio.charset.Charset);
        if ((byItsText || o instanceof java.lang.reflect.Type && jdk(c)) && codeHeld(o, 0) != null) {
            overCode(o, out, path, view);
            return;
        }
        if (byItsText) {
            out.append(c.getSimpleName()).append('(');
            quote(String.valueOf(o), out, view.strings);
            out.append(')');
            return;
        }
        if (o instanceof java.lang.reflect.Type && jdk(c)) {
            // a generic type the JDK made, as its name: the twin's has the same, of its own classes
            out.append("Type(");
            quote(((java.lang.reflect.Type) o).getTypeName(), out, view.strings);
            out.append(')');
            return;
        }
        if (o instanceof java.util.regex.Pattern) {
            out.append("Pattern(");
            quote(((java.util.regex.Pattern) o).pattern(), out, view.strings);
            out.append(')');
            return;
        }
        if (path.size() >= MAX_DEPTH) {
            out.append("...");
            return;
        }
        path.add(o);
        try {
            if (c.isArray()) {
                int n = Array.getLength(o);
                out.append(c.getComponentType().getName()).append('[').append(n).append("]{");
                for (int i = 0; i < Math.min(n, view.elements); i++) {
                    out.append(i == 0 ? "" : ",");
                    write(Array.get(o, i), out, path, view);
                }
                out.append(n > view.elements ? ",...}" : "}");
            } else if (jdk(c) && !replayed(c)) {
                jdkObject(o, out, path, view);
            } else {
                fields(o, out, path, view);
            }
        } finally {
            path.remove(path.size() - 1);
        }
    }

    /** A JDK object whose own methods would run code that is not the JDK's ({@link #codeHeld}: a {@code CharBuffer}
     * over the candidate's {@code CharSequence}, a {@code LongAccumulator}'s function): its class and, written as any
     * project object is, what it holds, never its text (red team 22: such a buffer's {@code toString} put the
     * candidate's receiver back while the runner wrote its result, which comes first). */
    private static void overCode(Object o, StringBuilder out, List<Object> path, View view) {
        out.append(o.getClass().getName()).append("{over ");
        path.add(o);
        try {
            write(codeHeld(o, 0), out, path, view);
        } finally {
            path.remove(path.size() - 1);
        }
        out.append('}');
    }

    /** The first object that is not the JDK's, or a lambda, that JDK object {@code o} holds a few fields deep (read
     * through {@link #UNSAFE}; an array's first {@link #MAX_ELEMENTS}; a class or member named is no code run); null when
     * none. */
    static Object codeHeld(Object o, int depth) {
        Class<?> c = o.getClass();
        if (c.isArray()) {
            if (c.getComponentType().isPrimitive()) {
                return null;
            }
            Object[] items = (Object[]) o;
            for (int i = 0; i < Math.min(items.length, MAX_ELEMENTS); i++) {
                Object found = codeIn(items[i], depth);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : DECLARED.get(k)) {
                if (!f.getType().isPrimitive()) {
                    Object found = codeIn(UNSAFE.getObject(o, UNSAFE.objectFieldOffset(f)), depth);
                    if (found != null) {
                        return found;
                    }
                }
            }
        }
        return null;
    }

    private static Object codeIn(Object v, int depth) {
        if (v == null || v instanceof String || v instanceof Class || v instanceof java.lang.reflect.Member) {
            return null;
        }
        if (!jdk(v.getClass()) || lambda(v.getClass())) {
            return v;
        }
        if (v instanceof CharSequence || v instanceof Number) {
            // a text or number over another (a buffer wrapping a buffer, as deep as a candidate nests them) is followed
            // to its end; past 64 of them it is taken for code
            return depth < 64 ? codeHeld(v, depth + 1) : v;
        }
        return depth < 4 ? codeHeld(v, depth + 1) : null;
    }

    /** A boxed primitive as a Java literal of its type ({@code 2}, {@code 2L}, {@code 2.0}, {@code 2.0f}). */
    private static String literal(Object o) {
        Class<?> c = o.getClass();
        if (c == Integer.class || c == Boolean.class || c == Double.class) {
            return o.toString();
        }
        if (c == Long.class) {
            return o + "L";
        }
        if (c == Float.class) {
            return o + "f";
        }
        if (c == Short.class || c == Byte.class) {
            return "(" + (c == Short.class ? "short" : "byte") + ") " + o;
        }
        return null;
    }

    /** Whether a JDK collection or map iterates in an order of its own (not its elements' hash codes). */
    private static boolean ordered(Object o) {
        return o instanceof List || o instanceof java.util.Queue || o instanceof java.util.SortedSet
                || o instanceof java.util.SortedMap || o instanceof java.util.LinkedHashSet || o instanceof java.util.LinkedHashMap;
    }

    private static void jdkObject(Object o, StringBuilder out, List<Object> path, View view) {
        Class<?> c = o.getClass();
        out.append(c.getName());
        if (c == java.io.FileOutputStream.class) {
            written(o, out);
            return;
        }
        if (o instanceof java.util.Date) {
            out.append('(').append(((java.util.Date) o).getTime()).append(')');
            return;
        }
        if (o instanceof java.util.concurrent.atomic.AtomicReference) {
            out.append('(');
            write(((java.util.concurrent.atomic.AtomicReference<?>) o).get(), out, path, view);
            out.append(')');
            return;
        }
        if (o instanceof java.util.concurrent.atomic.AtomicBoolean) {
            out.append('(').append(((java.util.concurrent.atomic.AtomicBoolean) o).get()).append(')');
            return;
        }
        String shown;
        try {
            shown = readable(o);
        } catch (RuntimeException e) {
            shown = "unreadable " + e.getClass().getName();  // a snapshot never throws into the test
        }
        if (shown != null) {
            out.append('(');
            quote(shown, out, view.strings);
            out.append(')');
            return;
        }
        contents(o, out, path, view);
    }

    /** The elements of a collection (a map's entries) as {@code [n]{...}}, sorted when it iterates in no order of its
     * own; {@code {?}} for any other JDK object. */
    private static void contents(Object o, StringBuilder out, List<Object> path, View view) {
        Object backing = foreign(o, o, 0);
        if (backing != null) {
            // its toArray or entrySet would run that object's own code inside the snapshot: what it holds is written
            // as any project object is, field by field
            out.append("{over ");
            write(backing, out, path, view);
            out.append('}');
            return;
        }
        // an ordered one's elements past those shown are not written (Math-57's 10,001 points were, three times
        // an input); an unordered one's all are, to be sorted
        boolean ordered = ordered(o);
        List<String> items = new ArrayList<>();
        int written = 0;
        int size;
        try {
            if (o instanceof Map) {
                Object[] entries = ((Map<?, ?>) o).entrySet().toArray();
                size = entries.length;
                for (Object e : entries) {
                    if (ordered && items.size() >= view.elements) {
                        break;
                    }
                    Map.Entry<?, ?> entry = (Map.Entry<?, ?>) e;
                    StringBuilder item = new StringBuilder();
                    write(entry.getKey(), item, path, view);
                    item.append('=');
                    write(entry.getValue(), item, path, view);
                    items.add(item.toString());
                    written += item.length();
                    if (view.chars > MAX_CHARS && written > view.chars) {
                        break;  // a text written whole is cut there anyway: the rest would only fill the heap
                    }
                }
            } else if (o instanceof Collection) {
                Object[] elements = ((Collection<?>) o).toArray();
                size = elements.length;
                for (Object e : elements) {
                    if (ordered && items.size() >= view.elements) {
                        break;
                    }
                    StringBuilder item = new StringBuilder();
                    write(e, item, path, view);
                    items.add(item.toString());
                    written += item.length();
                    if (view.chars > MAX_CHARS && written > view.chars) {
                        break;
                    }
                }
            } else {
                out.append("{?}");  // a JDK object whose state is not read: its class stands for it
                return;
            }
        } catch (RuntimeException e) {
            out.append("{unreadable ").append(e.getClass().getName()).append('}');
            return;
        }
        if (!ordered) {
            java.util.Collections.sort(items);
        }
        out.append('[').append(size).append("]{");
        for (int i = 0; i < Math.min(items.size(), view.elements); i++) {
            out.append(i == 0 ? "" : ",").append(items.get(i));
        }
        out.append(size > Math.min(items.size(), view.elements) ? ",...}" : "}");
    }

    private static void fields(Object o, StringBuilder out, List<Object> path, View view) {
        out.append(o.getClass().getName()).append('{');
        boolean first = true;
        for (Field f : instanceFields(o.getClass())) {
            if (!view.shows(f)) {
                continue;
            }
            out.append(first ? "" : ",").append(f.getName()).append('=');
            first = false;
            try {
                write(read(f, o), out, path, view);
            } catch (RuntimeException | IllegalAccessException e) {
                out.append('?');
            }
        }
        out.append('}');
        if (rebuilt(o.getClass()) != null) {
            contents(o, out, path, view);  // what it holds as the JDK's collection it is: a copy holds the same
        }
    }

    /** The instance fields of a project class and its project superclasses, superclass first, in
     * declaration order (synthetic ones left out); and of its JDK superclasses when they are all
     * {@link #REPLAYED}. */
    private static List<Field> instanceFields(Class<?> c) {
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class && (!jdk(k) || replayed(k)); k = k.getSuperclass()) {
            chain.add(0, k);
        }
        List<Field> out = new ArrayList<>();
        for (Class<?> k : chain) {
            for (Field f : DECLARED.get(k)) {
                if (!f.isSynthetic()) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /**
     * Values of {@code type} (a boxed primitive or {@code String}) that an object graph holds below
     * {@code root} ({@link #below}). Of the distinct values found, in their natural order, at most
     * {@code limit} (2 or more) evenly spread ones, the least and the greatest first.
     */
    static List<Object> held(Object root, Class<?> type, int limit) {
        java.util.TreeSet<Object> found = new java.util.TreeSet<>();
        for (Object v : below(root)) {
            if (v.getClass() == type) {
                found.add(v);
            }
        }
        List<Object> sorted = new ArrayList<>(found);
        if (sorted.size() <= limit) {
            return sorted;
        }
        List<Object> out = new ArrayList<>();
        out.add(sorted.get(0));
        out.add(sorted.get(sorted.size() - 1));
        for (int k = 1; k < limit - 1; k++) {
            out.add(sorted.get(k * (sorted.size() - 1) / (limit - 1)));
        }
        return out;
    }

    /** The index of another of {@code roots} that holds the very object {@code roots[i]} somewhere below it
     * ({@link #below}), when that object is a value a method may compare by {@code ==} with what it finds
     * there: a string, a box, an array or a JDK collection or map (a receiver keeps a test's literal in a
     * field and the test passes the literal again); else -1. Not a box {@code valueOf} hands out to all
     * (a small integer, a character, a boolean): a primitive field or element, read, is that very box too,
     * so it would be found in every object holding the value, which no caller shares. */
    static int holder(Object[] roots, int i) {
        Object o = roots[i];
        if (o == null || !(o instanceof String || box(o) && !cached(o) || o.getClass().isArray()
                || (o instanceof Collection || o instanceof Map) && jdk(o.getClass()))) {
            return -1;
        }
        for (int j = 0; j < roots.length; j++) {
            if (j != i && roots[j] != null && !immutable(roots[j])) {
                for (Object v : below(roots[j])) {
                    if (v == o) {
                        return j;
                    }
                }
            }
        }
        return -1;
    }

    private static boolean cached(Object o) {
        return o instanceof Integer && Integer.valueOf((Integer) o) == o
                || o instanceof Long && Long.valueOf((Long) o) == o
                || o instanceof Short && Short.valueOf((Short) o) == o || o instanceof Byte
                || o instanceof Character && Character.valueOf((Character) o) == o || o instanceof Boolean;
    }

    static boolean box(Object o) {
        return o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte
                || o instanceof Character || o instanceof Double || o instanceof Float || o instanceof Boolean;
    }

    /**
     * The objects an object graph holds below {@code root}, {@code root} itself left out: the fields of
     * project objects, the elements of arrays and JDK collections, the keys and values of JDK maps, read as
     * {@link #snapshot} reads (no method of a project class runs), at most {@link #MAX_ELEMENTS} objects
     * visited breadth-first. An unordered collection's objects are not visited (the order they come in,
     * hence which are visited, could differ from job to job); its values are taken. A primitive field comes
     * as its box.
     */
    private static List<Object> below(Object root) {
        List<Object> found = new ArrayList<>();
        IdentityHashMap<Object, Boolean> visited = new IdentityHashMap<>();
        java.util.ArrayDeque<Object> queue = new java.util.ArrayDeque<>();
        queue.add(root);
        visited.put(root, Boolean.TRUE);
        while (!queue.isEmpty()) {
            Object o = queue.poll();
            boolean descend = o.getClass().isArray() || !jdk(o.getClass()) || ordered(o);
            for (Object v : children(o)) {
                if (v == null) {
                    continue;
                }
                found.add(v);
                if (descend && !immutable(v) && !visited.containsKey(v) && visited.size() < MAX_ELEMENTS) {
                    visited.put(v, Boolean.TRUE);
                    queue.add(v);
                }
            }
        }
        return found;
    }

    /** The objects {@code o} refers to, as {@link #held} walks them: the first {@link #MAX_ELEMENTS}
     * elements of an array or an ordered collection (of a map: keys and values), every element of an
     * unordered one that has no more (which would come first could differ from job to job), nothing of
     * another JDK object. */
    private static List<Object> children(Object o) {
        List<Object> out = new ArrayList<>();
        Class<?> c = o.getClass();
        try {
            if (c.isArray()) {
                for (int i = 0; i < Math.min(Array.getLength(o), MAX_ELEMENTS); i++) {
                    out.add(Array.get(o, i));
                }
            } else if ((o instanceof Map || o instanceof Collection) && jdk(c) && foreign(o, o, 0) == null) {
                Collection<?> items = o instanceof Map ? ((Map<?, ?>) o).entrySet() : (Collection<?>) o;
                if (!ordered(o) && items.size() > MAX_ELEMENTS) {
                    return out;
                }
                int n = 0;
                for (Object e : items) {
                    if (n++ >= MAX_ELEMENTS) {
                        break;
                    }
                    if (o instanceof Map) {
                        out.add(((Map.Entry<?, ?>) e).getKey());
                        out.add(((Map.Entry<?, ?>) e).getValue());
                    } else {
                        out.add(e);
                    }
                }
            } else if (!jdk(c) || replayed(c)) {
                for (Field f : instanceFields(c)) {
                    out.add(read(f, o));
                }
            }
        } catch (RuntimeException | IllegalAccessException e) {
            // unreadable: what was read so far
        }
        return out;
    }

    private static void quote(String s, StringBuilder out, int most) {
        out.append('"');
        int n = Math.min(s.length(), most);
        for (int i = 0; i < n; i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') {
                out.append('\\').append(ch);
            } else if (ch < 0x20 || ch > 0x7e) {
                out.append(String.format("\\u%04x", (int) ch));
            } else {
                out.append(ch);
            }
        }
        out.append(s.length() > n ? "...\"(" + s.length() + ")" : "\"");
    }
}
