package nl2fix.runner;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Inputs derived from a recorded call, in a fixed order (the same calls give the same inputs in every
 * job; {@link BehaviourProbe} runs them in an order of its own).
 *
 * <p>{@link #variants}: an argument that is the very object the receiver or an earlier argument is, or
 * a string, box, array or collection the receiver or another argument holds, replaced by an equal copy;
 * then one argument changed at a time: neighbouring and boundary values of
 * primitives and strings ({@code x - 1}, {@code x + 1}, {@code 0}, {@code -1}, the literals of the
 * reference's and the buggy method's bodies and the named constants the reference reads
 * ({@link #withNamed}), with their neighbours (a floating-point argument's one ulp either side), the
 * type's least and greatest value (finite ones), {@code x / 2} for floating-point values, which often
 * lie in a small range, and last the value one ulp either side of a floating-point argument's own; the string
 * without its last
 * character, with a space appended, empty), {@code null} where the parameter is a reference type,
 * empty arrays and collections and the array without its last element; and, for a primitive or string
 * argument, values of its type the receiver holds and their neighbours ({@link Graphs#held}: a method's
 * behaviour often changes at values its object holds, bounds, ends, sizes, keys, which no neighbour of a
 * test's argument may reach); then, in the room left, two arguments of one type swapped. The receiver the
 * test built is kept; its state is the recorded one.
 *
 * <p>{@link #crossed}: the receiver varied: each receiver recorded at an earlier call of the method in
 * the job (another test's object, or the same object in another state) with this call's arguments, and
 * this call's receiver with each earlier call's arguments. Every such receiver is one the project's own
 * code built, in a state it reached, so a correct method owes the fix's behaviour on it; a receiver
 * with a field nudged could hold a state no code of its class can reach (ranges out of order, a size
 * beyond its array), where a correct variant relying on the class's invariants another way would
 * differ from the fix.
 *
 * <p>{@link #reached}: this call's arguments on each receiver of the same class kept at an entry of one of
 * its other methods in the same test class ({@link BehaviourProbe#entered}): states the project's own code brought such an object
 * to between two calls from outside it (a solver's tableau between pivots), which no test may have called
 * the method in. The same for receivers the class's own constructor built from a test's construction with its arguments
 * varied ({@link #constructions}): a counter of a larger dimension than any test built. A method whose answer depends on its receiver's state alone (no arguments) has no other
 * inputs to vary.
 */
final class Derived {
    private Derived() {
    }

    static final int PER_CALL = 16;
    /** Inputs a call tries at the candidate's own constants ({@link #at}), beyond {@link #PER_CALL}. */
    static final int THEIRS_PER_CALL = 4;
    /** Named constants tried beside the literals ({@link #withNamed}). */
    static final int NAMED = 6;
    /** Values the receiver holds tried per argument. */
    static final int HELD = 4;
    /** The argument types values are taken from the receiver for: the JDK's own, immutable and ordered. */
    private static final List<Class<?>> HELD_TYPES = List.of(Integer.class, Long.class, Short.class, Byte.class,
            Character.class, Double.class, Float.class, String.class);
    /** Crossed inputs run per recorded call (new ones: inputs already probed do not count). */
    static final int CROSSED_PER_CALL = 8;

    /** {@code input} is {@code [receiver, arg0, ...]}; {@code types} the parameters' types; {@code constants}
     * the literals of the reference's body (integers as {@code Long}, characters, strings, floating-point
     * ones as {@code Double}). First each argument that is the very object the receiver or an earlier
     * argument is, replaced by an equal copy (a method may take {@code a == b} for equality: the tests
     * often pass one literal twice); then the
     * arguments' alternatives taken in turn, one of each argument's at a time, so that every argument is
     * varied within {@link #PER_CALL}. */
    static List<Object[]> variants(Object[] input, Class<?>[] types, Object[] constants) {
        List<Object[]> out = new ArrayList<>();
        for (int j = 1; j < input.length && j - 1 < types.length; j++) {
            Object copy = types[j - 1].isPrimitive() ? null : equalCopy(input, j);
            if (copy != null) {
                Object[] v = input.clone();
                v[j] = copy;
                out.add(v);
            }
        }
        List<List<Object>> alts = new ArrayList<>();
        for (int i = 0; i < types.length && i + 1 < input.length; i++) {
            alts.add(alternatives(types[i], input[i + 1], input[0], constants));
        }
        if (!interleaved(input, alts, out, PER_CALL)) {
            return out;
        }
        // then, in the room left, two arguments of one type swapped (a rotation's two vectors, a range's two ends): an
        // order no test gave, which a method taking them as they came (a cross product's sign) meets there
        for (int i = 1; i < input.length && i - 1 < types.length; i++) {
            for (int j = i + 1; j < input.length && j - 1 < types.length; j++) {
                if (out.size() >= PER_CALL) {
                    return out;
                }
                if (types[i - 1] == types[j - 1] && input[i] != input[j]) {
                    Object[] v = input.clone();
                    v[i] = input[j];
                    v[j] = input[i];
                    out.add(v);
                }
            }
        }
        return out;
    }

    /** Each argument's alternatives in turn, one of each argument's at a time, into {@code out} while it holds
     * fewer than {@code most}; whether room is left. */
    private static boolean interleaved(Object[] input, List<List<Object>> alts, List<Object[]> out, int most) {
        int longest = 0;
        for (List<Object> a : alts) {
            longest = Math.max(longest, a.size());
        }
        for (int k = 0; k < longest; k++) {
            for (int i = 0; i < alts.size(); i++) {
                if (out.size() >= most) {
                    return false;
                }
                if (k < alts.get(i).size()) {
                    Object[] v = input.clone();
                    v[i + 1] = alts.get(i).get(k);
                    out.add(v);
                }
            }
        }
        return out.size() < most;
    }

    /** Inputs with one argument at one of {@code values} (the candidate's own constants: {@link BehaviourProbe}'s
     * {@code theirs}) or next to it, as {@link #variants} tries the reference's, in turn: a call takes the first
     * {@link #THEIRS_PER_CALL} not tried yet. */
    static List<Object[]> at(Object[] input, Class<?>[] types, Object[] values) {
        List<Object[]> out = new ArrayList<>();
        if (values.length == 0) {
            return out;
        }
        List<List<Object>> alts = new ArrayList<>();
        for (int i = 0; i < types.length && i + 1 < input.length; i++) {
            List<Object> a = new ArrayList<>();
            fromConstants(a, input[i + 1], values);
            alts.add(a);
        }
        interleaved(input, alts, out, Integer.MAX_VALUE);
        return out;
    }

    /** The named constants the reference compares against, after its literals ({@code literals}, as
     * {@link #variants} takes them): the values of the static final fields of {@code owner} and its project
     * superclasses that its body names ({@code named}), of a primitive type or {@code String}, at most
     * {@link #NAMED} of them in the order the body names them. {@code x > MAX_ITERATIONS} or
     * {@code d < EPSILON} parts where a literal would, and the source shows only the name. Read, as a
     * snapshot reads fields, from the class the tests initialised: no code of the project runs. */
    static Object[] withNamed(Class<?> owner, Object[] literals, String[] named) {
        List<Object> out = new ArrayList<>(List.of(literals));
        List<String> names = List.of(named);
        List<Object[]> found = new ArrayList<>();
        for (Class<?> k = owner; k != null && k.getClassLoader() != null
                && k.getClassLoader() != ClassLoader.getPlatformClassLoader(); k = k.getSuperclass()) {
            for (java.lang.reflect.Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                int at = names.indexOf(f.getName());
                if (at < 0 || !java.lang.reflect.Modifier.isStatic(mod) || !java.lang.reflect.Modifier.isFinal(mod)
                        || !(f.getType().isPrimitive() || f.getType() == String.class)) {
                    continue;
                }
                try {
                    f.setAccessible(true);
                    found.add(new Object[] {at, constant(f.get(null))});
                } catch (RuntimeException | IllegalAccessException e) {
                    // unreadable: not tried
                }
            }
        }
        found.sort((a, b) -> Integer.compare((Integer) a[0], (Integer) b[0]));
        int added = 0;
        for (Object[] f : found) {
            if (f[1] != null && !out.contains(f[1]) && added < NAMED) {
                out.add(f[1]);
                added++;
            }
        }
        return out.toArray();
    }

    /** A field's value as {@link #variants} takes a literal: integers as {@code Long}, floating point as
     * {@code Double}, characters and strings as they are; null for a boolean. */
    private static Object constant(Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        } else if (v instanceof Double || v instanceof Float) {
            return ((Number) v).doubleValue();
        } else if (v instanceof Character || v instanceof String) {
            return v;
        }
        return null;
    }

    /** An object equal to {@code input[j]} but not the same, when {@code input[j]} is the very object an
     * earlier entry is, or one the receiver or another argument holds ({@link Graphs#holder}: a method may
     * compare an argument with its own field by {@code ==}, and a test that built the object with a literal
     * passes that literal again): a string, a boxed number or character, or a JDK collection or array
     * (copied); else null. An object of a project class is copied only when it is an earlier entry itself
     * ({@code a.equals(a)}): one inside the receiver is what the method is meant to find by identity. */
    private static Object equalCopy(Object[] input, int j) {
        Object o = input[j];
        if (o == null) {
            return null;
        }
        boolean shared = false;
        for (int i = 0; i < j && !shared; i++) {
            shared = input[i] == o;
        }
        if (!shared && Graphs.holder(input, j) < 0) {
            return null;
        }
        if (o instanceof String) {
            return new String(((String) o).toCharArray());
        }
        if (Graphs.box(o)) {
            return boxedCopy(o);
        }
        try {
            return Graphs.kept(new Object[] {o})[0];
        } catch (Graphs.Uncopyable e) {
            return null;
        }
    }

    /** A new box holding the same value (not the cached one {@code valueOf} gives). */
    @SuppressWarnings({"deprecation", "removal"})
    private static Object boxedCopy(Object o) {
        if (o instanceof Integer) {
            return new Integer((Integer) o);
        } else if (o instanceof Long) {
            return new Long((Long) o);
        } else if (o instanceof Short) {
            return new Short((Short) o);
        } else if (o instanceof Byte) {
            return new Byte((Byte) o);
        } else if (o instanceof Character) {
            return new Character((Character) o);
        } else if (o instanceof Double) {
            return new Double((Double) o);
        } else if (o instanceof Float) {
            return new Float((Float) o);
        } else if (o instanceof Boolean) {
            return new Boolean((Boolean) o);
        }
        return null;
    }

    /**
     * {@code input} beside {@code earlier} (the inputs of the job's earlier distinct calls, oldest
     * first): newest first, each earlier receiver with this call's arguments, then this receiver with
     * that call's arguments. None for a static method (no receiver). The arrays share their objects
     * with the recorded inputs; they are run on copies.
     */
    static List<Object[]> crossed(Object[] input, List<Object[]> earlier) {
        List<Object[]> out = new ArrayList<>();
        if (input[0] == null) {
            return out;
        }
        for (int j = earlier.size() - 1; j >= 0; j--) {
            Object[] other = earlier.get(j);
            if (other[0] == null || other.length != input.length) {
                continue;
            }
            Object[] theirs = input.clone();
            theirs[0] = other[0];
            out.add(theirs);
            Object[] ours = other.clone();
            ours[0] = input[0];
            out.add(ours);
        }
        return out;
    }

    /** {@code input} with its receiver replaced by each of {@code states} of the receiver's class, oldest
     * first; none for a static method. The arrays share their objects with the kept states; they are run
     * on copies. */
    static List<Object[]> reached(Object[] input, List<Object> states) {
        List<Object[]> out = new ArrayList<>();
        if (input[0] == null) {
            return out;
        }
        for (Object state : states) {
            if (state.getClass() == input[0].getClass()) {
                Object[] v = input.clone();
                v[0] = state;
                out.add(v);
            }
        }
        return out;
    }

    /** A construction's inputs with its arguments varied ({@code input}: {@code [null, arg0, ...]}, as
     * {@link #variants} takes a call's), to build receivers from: first each element of a numeric array argument
     * one above and one below (a counter's dimensions, a matrix's rows: what a test's sizes never reached, where a
     * varargs constructor's one argument would only be shortened or emptied), at most {@link #ELEMENTS} elements an
     * array, the last first; then {@link #variants}. */
    static List<Object[]> constructions(Object[] input, Class<?>[] types, Object[] constants) {
        List<Object[]> out = new ArrayList<>();
        for (int j = 1; j < input.length && j - 1 < types.length; j++) {
            Object a = input[j];
            if (a == null || !a.getClass().isArray() || !a.getClass().getComponentType().isPrimitive()) {
                continue;
            }
            int n = Array.getLength(a);
            for (int k = n - 1; k >= Math.max(0, n - ELEMENTS); k--) {
                for (int step : new int[] {1, -1}) {
                    Object changed = stepped(a, k, step);
                    if (changed != null) {
                        Object[] v = input.clone();
                        v[j] = changed;
                        out.add(v);
                    }
                }
            }
        }
        out.addAll(variants(input, types, constants));
        return out;
    }

    /** Elements of an array argument {@link #constructions} varies. */
    static final int ELEMENTS = 4;

    /** A copy of numeric array {@code a} with element {@code k} moved by {@code step}; null for another kind of array
     * or where the value would wrap. */
    private static Object stepped(Object a, int k, int step) {
        Object copy = Array.newInstance(a.getClass().getComponentType(), Array.getLength(a));
        System.arraycopy(a, 0, copy, 0, Array.getLength(a));
        if (a instanceof int[]) {
            int x = ((int[]) a)[k];
            if (step > 0 ? x == Integer.MAX_VALUE : x == Integer.MIN_VALUE) {
                return null;
            }
            ((int[]) copy)[k] = x + step;
        } else if (a instanceof long[]) {
            long x = ((long[]) a)[k];
            if (step > 0 ? x == Long.MAX_VALUE : x == Long.MIN_VALUE) {
                return null;
            }
            ((long[]) copy)[k] = x + step;
        } else if (a instanceof double[]) {
            ((double[]) copy)[k] = ((double[]) a)[k] + step;
        } else if (a instanceof float[]) {
            ((float[]) copy)[k] = ((float[]) a)[k] + step;
        } else {
            return null;
        }
        return copy;
    }

    /** An argument's alternatives, most telling first: what probes tried before the least and greatest
     * values, {@code -1} of a floating-point argument and the neighbours of character literals and of
     * values the receiver holds comes first, and these take the room it leaves (a call tries at most
     * {@link #PER_CALL}, shared among its arguments), so that within a call no input a probe tried before
     * is crowded out. A job's inputs with an argument varied are bounded too ({@link BehaviourProbe}'s
     * {@code MAX_DERIVED}): where that bound binds, what an early call adds leaves less to later calls,
     * at the same cost. */
    private static List<Object> alternatives(Class<?> type, Object value, Object receiver, Object[] constants) {
        List<Object> alts = new ArrayList<>();
        if (value instanceof Integer) {
            int x = (Integer) value;
            add(alts, value, x - 1, x + 1, 0, -1);
            fromConstants(alts, value, constants);
            add(alts, value, Integer.MIN_VALUE, Integer.MAX_VALUE);
        } else if (value instanceof Long) {
            long x = (Long) value;
            add(alts, value, x - 1, x + 1, 0L, -1L);
            fromConstants(alts, value, constants);
            add(alts, value, Long.MIN_VALUE, Long.MAX_VALUE);
        } else if (value instanceof Short) {
            short x = (Short) value;
            add(alts, value, (short) (x - 1), (short) (x + 1), (short) 0, (short) -1);
            fromConstants(alts, value, constants);
            add(alts, value, Short.MIN_VALUE, Short.MAX_VALUE);
        } else if (value instanceof Byte) {
            byte x = (Byte) value;
            add(alts, value, (byte) (x - 1), (byte) (x + 1), (byte) 0, (byte) -1);
            fromConstants(alts, value, constants);
            add(alts, value, Byte.MIN_VALUE, Byte.MAX_VALUE);
        } else if (value instanceof Character) {
            char x = (Character) value;
            add(alts, value, (char) (x - 1), (char) (x + 1));
            fromConstants(alts, value, constants);
            add(alts, value, Character.MIN_VALUE, Character.MAX_VALUE);
        } else if (value instanceof Double) {
            double x = (Double) value;
            add(alts, value, x - 1, x + 1, 0.0, x / 2);
            fromConstants(alts, value, constants);
            // last, one ulp either side of the test's own value: an equality a patch made approximate (within an ulp
            // or an epsilon) parts from an exact one there, and nowhere a test's literals reach
            add(alts, value, -1.0, -Double.MAX_VALUE, Double.MAX_VALUE, Math.nextUp(x), Math.nextDown(x));
        } else if (value instanceof Float) {
            float x = (Float) value;
            add(alts, value, x - 1, x + 1, 0.0f, x / 2);
            fromConstants(alts, value, constants);
            add(alts, value, -1.0f, -Float.MAX_VALUE, Float.MAX_VALUE, Math.nextUp(x), Math.nextDown(x));
        } else if (value instanceof Boolean) {
            add(alts, value, !(Boolean) value);
        } else if (value instanceof String) {
            String s = (String) value;
            add(alts, value, s.isEmpty() ? null : s.substring(0, s.length() - 1), s + " ", "");
            fromConstants(alts, value, constants);
        } else if (value != null && value.getClass().isArray()) {
            int n = Array.getLength(value);
            Object empty = Array.newInstance(value.getClass().getComponentType(), 0);
            if (n > 0) {
                Object shorter = Array.newInstance(value.getClass().getComponentType(), n - 1);
                System.arraycopy(value, 0, shorter, 0, n - 1);
                alts.add(shorter);
                alts.add(empty);
            }
        } else if (value instanceof Collection || value instanceof Map) {
            Object empty = Graphs.emptyLike(value);
            if (empty != null && !(empty instanceof CharSequence) && (value instanceof Collection
                    ? !((Collection<?>) value).isEmpty() : !((Map<?, ?>) value).isEmpty())) {
                alts.add(empty);
            }
        }
        if (receiver != null && value != null && HELD_TYPES.contains(value.getClass())) {
            List<Object> held = Graphs.held(receiver, value.getClass(), HELD);
            add(alts, value, held.toArray());
            for (Object h : held) {
                // and their neighbours: a bound the object holds is where "<" and "<=" part
                add(alts, value, neighbours(h));
            }
        }
        if (!type.isPrimitive() && value != null) {
            alts.add(null);
        }
        return alts;
    }

    /** The literals and named constants among {@code constants} that fit {@code value}'s type, each with its
     * neighbours (a method comparing against them parts there, where "<" and "<=" do), into {@code alts}. */
    private static void fromConstants(List<Object> alts, Object value, Object[] constants) {
        if (value instanceof Integer) {
            for (Object c : constants) {
                if (c instanceof Long && (Long) c >= Integer.MIN_VALUE && (Long) c <= Integer.MAX_VALUE) {
                    int k = (int) (long) (Long) c;
                    add(alts, value, k, k - 1, k + 1);
                } else if (c instanceof Character) {
                    add(alts, value, (int) (Character) c);
                }
            }
        } else if (value instanceof Long) {
            for (Object c : constants) {
                if (c instanceof Long) {
                    long k = (Long) c;
                    add(alts, value, k, k - 1, k + 1);
                }
            }
        } else if (value instanceof Short) {
            for (Object c : constants) {
                if (c instanceof Long && (Long) c >= Short.MIN_VALUE && (Long) c <= Short.MAX_VALUE) {
                    short k = (short) (long) (Long) c;
                    add(alts, value, k, (short) (k - 1), (short) (k + 1));
                }
            }
        } else if (value instanceof Byte) {
            for (Object c : constants) {
                if (c instanceof Long && (Long) c >= Byte.MIN_VALUE && (Long) c <= Byte.MAX_VALUE) {
                    byte k = (byte) (long) (Long) c;
                    add(alts, value, k, (byte) (k - 1), (byte) (k + 1));
                }
            }
        } else if (value instanceof Character) {
            for (Object c : constants) {
                if (c instanceof Character) {
                    add(alts, value, c);
                }
            }
            for (Object c : constants) {
                if (c instanceof Character) {
                    char k = (Character) c;
                    add(alts, value, (char) (k - 1), (char) (k + 1));
                }
            }
        } else if (value instanceof Double) {
            for (Object c : constants) {
                if (c instanceof Long || c instanceof Double) {
                    // the literal and a value one ulp either side: a method comparing against 1.5 or an
                    // epsilon changes there, where "<" and "<=" part
                    double k = ((Number) c).doubleValue();
                    add(alts, value, k, Math.nextDown(k), Math.nextUp(k));
                }
            }
        } else if (value instanceof Float) {
            for (Object c : constants) {
                if (c instanceof Long || c instanceof Double) {
                    float k = ((Number) c).floatValue();
                    add(alts, value, k, Math.nextDown(k), Math.nextUp(k));
                }
            }
        } else if (value instanceof String) {
            for (Object c : constants) {
                if (c instanceof String) {
                    add(alts, value, c);
                } else if (c instanceof Character) {
                    // a method comparing a string's characters with a literal: the literal and its neighbours
                    char k = (Character) c;
                    add(alts, value, String.valueOf(k), String.valueOf((char) (k - 1)), String.valueOf((char) (k + 1)));
                }
            }
        }
    }

    /** The values next to {@code h} of its type: an integer's ± 1, a floating-point value's one ulp either
     * side, a character's neighbours; none of a string. */
    private static Object[] neighbours(Object h) {
        if (h instanceof Integer) {
            int k = (Integer) h;
            return new Object[] {k - 1, k + 1};
        } else if (h instanceof Long) {
            long k = (Long) h;
            return new Object[] {k - 1, k + 1};
        } else if (h instanceof Short) {
            short k = (Short) h;
            return new Object[] {(short) (k - 1), (short) (k + 1)};
        } else if (h instanceof Byte) {
            byte k = (Byte) h;
            return new Object[] {(byte) (k - 1), (byte) (k + 1)};
        } else if (h instanceof Character) {
            char k = (Character) h;
            return new Object[] {(char) (k - 1), (char) (k + 1)};
        } else if (h instanceof Double) {
            double k = (Double) h;
            return new Object[] {Math.nextDown(k), Math.nextUp(k)};
        } else if (h instanceof Float) {
            float k = (Float) h;
            return new Object[] {Math.nextDown(k), Math.nextUp(k)};
        }
        return new Object[0];
    }

    private static void add(List<Object> alts, Object value, Object... candidates) {
        for (Object c : candidates) {
            if (c != null && !c.equals(value) && !alts.contains(c)) {
                alts.add(c);
            }
        }
    }
}
