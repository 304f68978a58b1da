package nl2fix.runner;

/**
 * The words of the signed report, made at run time instead of written as literals. A string
 * literal is interned: the code under test gets the very same object from its own {@code "pass"},
 * and with deep reflection into {@code java.lang.String} (which Java 11 permits the class path)
 * it can rewrite that object's characters, turning every {@code fail} the runner signs into a
 * {@code pass} for itself and the candidates after it. Strings made here are reachable only
 * through this module's fields, which nothing outside the module can read.
 */
final class Words {
    private Words() {
    }

    /** Every word, and its characters as made: the canary compares them after each job. */
    private static final java.util.List<String> WORDS = new java.util.ArrayList<>();
    private static final java.util.List<char[]> COPIES = new java.util.ArrayList<>();

    static final String START = fresh("START");
    static final String COMPILE = fresh("COMPILE");
    static final String CLASS_FILE = fresh("CLASSFILE");
    static final String PHASE = fresh("PHASE");
    static final String BEGIN = fresh("BEGIN");
    static final String TEST = fresh("TEST");
    static final String CLASS = fresh("CLASS");
    static final String ERROR = fresh("ERROR");
    static final String FORGED = fresh("FORGED");
    static final String END = fresh("END");
    static final String BEHAVIOUR = fresh("BEHAVIOUR");
    static final String BEHAVIOUR_END = fresh("BEHAVIOUREND");
    static final String CALL = fresh("call");
    static final String DERIVED = fresh("derived");
    /** A probe row's origin for a call of another method of the class than the one under probe, which calls it:
     * {@code caller:} and the method ({@link BehaviourProbe#signature}). */
    static final String CALLER = fresh("caller");
    /** A probe row's origin for an input with an argument at one of the candidate's own constants
     * ({@link Derived#at}). */
    static final String THEIRS = fresh("candidate-constant");
    /** A probe row's origin for a call's arguments on a receiver the class's own constructor built
     * ({@link BehaviourProbe#built}). */
    static final String BUILT = fresh("built");

    static final String OK = fresh("ok");
    static final String PASS = fresh("pass");
    static final String FAIL = fresh("fail");
    static final String SKIP = fresh("skip");
    static final String TIMEOUT = fresh("timeout");
    static final String TRIGGER = fresh("trigger");
    static final String RELEVANT = fresh("relevant");
    static final String COMPLETE = fresh("complete");
    static final String STOPPED = fresh("stopped");
    static final String POISONED = fresh("poisoned");
    static final String COMPILE_ERROR = fresh("compile-error");
    static final String FAILED = fresh("error");
    static final String YES = fresh("1");
    static final String NO = fresh("0");

    private static String fresh(String word) {
        String made = new String(word.toCharArray());
        WORDS.add(made);
        COPIES.add(word.toCharArray());
        return made;
    }

    /** Every word still reads as made, character by character (a job that reached one of these
     * strings and rewrote it would change what the runner signs for every later job). */
    static boolean intact() {
        for (int i = 0; i < WORDS.size(); i++) {
            if (!java.util.Arrays.equals(WORDS.get(i).toCharArray(), COPIES.get(i))) {
                return false;
            }
        }
        return true;
    }
}
