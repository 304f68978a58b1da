package nl2fix.runner;

/**
 * A few JVM-wide values every later candidate relies on and only deep reflection into the JDK can
 * change: interned string literals, the boxed-integer cache, the boolean constants. A job after
 * which one of them is wrong leaves a JVM that must not take another candidate. (The runner's own
 * report does not depend on them: see {@link Words}.)
 */
final class Canary {
    private Canary() {
    }

    private static final String[] LITERALS = {"pass", "fail", "true", "false", "null", "", "0", "1", "OK"};
    private static final char[][] EXPECTED = new char[LITERALS.length][];

    static {
        for (int i = 0; i < LITERALS.length; i++) {
            EXPECTED[i] = LITERALS[i].toCharArray();
        }
    }

    static boolean intact() {
        for (int i = 0; i < LITERALS.length; i++) {
            if (!java.util.Arrays.equals(LITERALS[i].toCharArray(), EXPECTED[i])) {
                return false;
            }
        }
        for (int i = -128; i < 128; i++) {
            Integer boxed = i;
            if (boxed.intValue() != i || Long.valueOf(i).longValue() != i) {
                return false;
            }
        }
        return Boolean.TRUE.booleanValue() && !Boolean.FALSE.booleanValue()
                && Boolean.parseBoolean(new String(new char[] {'t', 'r', 'u', 'e'}));
    }
}
