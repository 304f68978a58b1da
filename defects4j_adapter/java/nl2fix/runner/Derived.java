package nl2fix.runner;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Inputs derived from a recorded call, one argument changed at a time, in a fixed order (no
 * randomness: the same call gives the same inputs in every job): neighbouring and boundary values of
 * primitives and strings ({@code x - 1}, {@code x + 1}, {@code 0}, and {@code x / 2} for floating-point
 * values, which often lie in a small range; the string without its last
 * character, with a space appended, empty), {@code null} where the parameter is a reference type,
 * empty arrays and collections and the array without its last element. The receiver the test built is
 * kept; its state is the recorded one.
 */
final class Derived {
    private Derived() {
    }

    static final int PER_CALL = 16;

    /** {@code input} is {@code [receiver, arg0, ...]}; {@code types} the parameters' types. */
    static List<Object[]> variants(Object[] input, Class<?>[] types) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < types.length && i + 1 < input.length; i++) {
            for (Object alt : alternatives(types[i], input[i + 1])) {
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

    private static List<Object> alternatives(Class<?> type, Object value) {
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
