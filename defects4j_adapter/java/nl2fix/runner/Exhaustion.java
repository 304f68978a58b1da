package nl2fix.runner;

/**
 * Whether the JVM ran out of something since the last look: nl2fix's native agent marks every
 * {@code OutOfMemoryError} the JVM throws (the Java heap, an array's size, metaspace, native threads),
 * caught or not, through JVMTI's ResourceExhausted event ({@code defects4j_adapter/native/nl2fix_wall.c}).
 *
 * <p>A test during which that happened is no pass. nl2fix's limits are not Defects4J's (a heap of
 * {@code --memory} and the sandbox's process limit, where Defects4J's JVM has the machine's
 * defaults): a candidate that allocates or starts threads until the error comes, and catches it,
 * would otherwise know which JVM runs it and be the fix only in nl2fix's (the lead's round 9 attack,
 * {@code tests/fixtures/redteam/limits/}). Like a caught refusal ({@link Guard#takeRefusal}).
 */
final class Exhaustion {
    // JVMTI_RESOURCE_EXHAUSTED_* (jvmti.h)
    private static final int JAVA_HEAP = 0x0002;
    private static final int THREADS = 0x0004;

    private Exhaustion() {
    }

    /** The marks since the last call, cleared; 0 when the JVM ran out of nothing. Bound by the agent. */
    private static native int take0();

    /** Why the test that just ran is no pass, or null when the JVM ran out of nothing meanwhile. */
    static String take() {
        int marks = take0();
        if (marks == 0) {
            return null;
        }
        String what = (marks & THREADS) != 0 ? "threads (the sandbox's process limit)"
                : (marks & JAVA_HEAP) != 0 ? "heap (nl2fix's --memory)" : "memory (an array's size or metaspace)";
        return "nl2fix: the JVM ran out of " + what + " during this test (an OutOfMemoryError, caught or not): no pass,"
                + " as nl2fix's limits are not those of the JVM that Defects4J runs";
    }
}
