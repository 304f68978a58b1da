package nl2fix.runner;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Inputs derived from a recorded call, in a fixed order (no randomness: the same calls give the same
 * inputs in every job).
 *
 * <p>{@link #variants}: one argument changed at a time: neighbouring and boundary values of
 * primitives and strings ({@code x - 1}, {@code x + 1}, {@code 0}, and {@code x / 2} for floating-point
 * values, which often lie in a small range; the string without its last
 * character, with a space appended, empty), {@code null} where the parameter is a reference type,
 * empty arrays and collections and the array without its last element; and, for a primitive or string
 * argument, values of its type the receiver holds ({@link Graphs#held}: a method's behaviour often
 * changes at values its object holds, bounds, ends, sizes, keys, which no neighbour of a test's
 * argument may reach). The receiver the test built is kept; its state is the recorded one.
 *
 * <p>{@link #crossed}: the receiver varied: each receiver recorded at an earlier call of the method in
 * the job (another test's object, or the same object in another state) with this call's arguments, and
 * this call's receiver with each earlier call's arguments. Every such receiver is one the project's own
 * code built, in a state it reached, so a correct method owes the fix's behaviour on it; a receiver
 * with a field nudged could hold a state no code of its class can reach (ranges out of order, a size
 * beyond its array), where a correct variant relying on the class's invariants another way would
 * differ from the fix.
 */
final class Derived {
    private Derived() {
    }

    static final int PER_CALL = 16;
    /** Values the receiver holds tried per argument. */
    static final int HELD = 4;
    /** The argument types values are taken from the receiver for: the JDK's own, immutable and ordered. */
    private static final List<Class<?>> HELD_TYPES = List.of(Integer.class, Long.class, Short.class, Byte.class,
            Character.class, Double.class, Float.class, String.class);
    /** Crossed inputs run per recorded call (new ones: inputs already probed do not count). */
    static final int CROSSED_PER_CALL = 8;

    /** {@code input} is {@code [receiver, arg0, ...]}; {@code types} the parameters' types. */
    static List<Object[]> variants(Object[] input, Class<?>[] types) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < types.length && i + 1 < input.length; i++) {
            for (Object alt : alternatives(types[i], input[i + 1], input[0])) {
                if (out.size() >= PER_CALL) {
                    return out;
                }
                Object[] v = input.clone();
                v[i + 1] = alt;
                out.add(v);
            }
        }
        return out;
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

    private static List<Object> alternatives(Class<?> type, Object value, Object receiver) {
        List<Object> alts = new ArrayList<>();
        if (value instanceof Integer) {
            int x = (Integer) value;
            add(alts, value, x - 1, x + 1, 0);
        } else if (value instanceof Long) {
            long x = (Long) value;
            add(alts, value, x - 1, x + 1, 0L);
        } else if (value instanceof Short) {
            short x = (Short) value;
            add(alts, value, (short) (x - 1), (short) (x + 1), (short) 0);
        } else if (value instanceof Byte) {
            byte x = (Byte) value;
            add(alts, value, (byte) (x - 1), (byte) (x + 1), (byte) 0);
        } else if (value instanceof Character) {
            char x = (Character) value;
            add(alts, value, (char) (x - 1), (char) (x + 1));
        } else if (value instanceof Double) {
            double x = (Double) value;
            add(alts, value, x - 1, x + 1, 0.0, x / 2);
        } else if (value instanceof Float) {
            float x = (Float) value;
            add(alts, value, x - 1, x + 1, 0.0f, x / 2);
        } else if (value instanceof Boolean) {
            add(alts, value, !(Boolean) value);
        } else if (value instanceof String) {
            String s = (String) value;
            add(alts, value, s.isEmpty() ? null : s.substring(0, s.length() - 1), s + " ", "");
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
            add(alts, value, Graphs.held(receiver, value.getClass(), HELD).toArray());
        }
        if (!type.isPrimitive() && value != null) {
            alts.add(null);
        }
        return alts;
    }

    private static void add(List<Object> alts, Object value, Object... candidates) {
        for (Object c : candidates) {
            if (c != null && !c.equals(value) && !alts.contains(c)) {
                alts.add(c);
            }
        }
    }
}
