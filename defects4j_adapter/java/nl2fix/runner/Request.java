package nl2fix.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One candidate's job, read from a file of {@code key value} lines (keys may repeat):
 * {@code id}, {@code source} (a .java file to compile in memory, optional), {@code compiled} (instead:
 * a folder of the candidate's classes, compiled and checked in a JVM that runs no candidate's code),
 * {@code compile_only} (compile {@code source}, report its classes and run nothing),
 * {@code compile_classpath}, {@code release}, {@code encoding}, {@code classpath} (the project's
 * classes, test classes and jars, in order), {@code test_classes} (the folders of compiled tests),
 * {@code package} (the package of the candidate's class), {@code trigger} ({@code pkg.Class::method}),
 * {@code relevant} ({@code pkg.Class}), {@code known} (tests that fail on the fixed version too),
 * {@code candidate_class} (a top-level class compiled from the candidate's source file: JUnit
 * events fired while one of its classes is on the stack are the candidate's forgeries),
 * {@code stop_at_first_failure}, {@code test_timeout_ms}; {@code only} ({@code pkg.Class test}: of that
 * relevant class run only the tests so named, {@code pkg.Class::method}; a class without {@code only}
 * runs whole), {@code reach} (a method name: the recording job, which records the tests that reach it, see
 * {@link MethodReach}) and
 * {@code behaviour} (a behaviour probe: see {@link BehaviourProbe}).
 */
final class Request {
    String id = "";
    String source;
    String compiled;
    boolean compileOnly;
    final List<String> compileClasspath = new ArrayList<>();
    String release = "8";
    String encoding = "UTF-8";
    final List<String> classpath = new ArrayList<>();
    final List<String> testClasses = new ArrayList<>();
    final List<String> packages = new ArrayList<>();
    final List<String> triggers = new ArrayList<>();
    final List<String> relevant = new ArrayList<>();
    final Set<String> known = new HashSet<>();
    final List<String> candidateClasses = new ArrayList<>();
    boolean stopAtFirstFailure = true;
    long testTimeoutMs = 10_000;
    final java.util.Map<String, Set<String>> only = new java.util.HashMap<>();
    String reach;
    /** A folder of the project's classes whose static initialisers are closed, rewritten (see {@link Statics}). */
    String closedInit;
    boolean behaviour;
    /** A behaviour probe's candidate: the folder of its class files as validated. */
    String behaviourCandidate;
    /** Whether a behaviour probe's reference is the developer's fix (see {@code BehaviourProbe#unexpected}). */
    boolean behaviourFixReference = true;
    /** A behaviour probe's budget: the CPU milliseconds its probing may use in all (0: no budget but the
     * per-test limit); see {@code BehaviourProbe#probing}. */
    long behaviourBudgetMs;
    /** Digests of inputs a behaviour probe passes over: the ones the reference's probe of itself found no
     * evidence (see {@code BehaviourProbe#begin}). */
    final Set<String> behaviourSkip = new HashSet<>();
    /** Digests of inputs on which the reference's probe of itself did the same three times (run once), each with the
     * digest of what it did there. */
    final java.util.Map<String, String> behaviourSteady = new java.util.HashMap<>();

    static Request read(Path file) throws IOException {
        Request r = new Request();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            int sp = line.indexOf(' ');
            String key = sp < 0 ? line : line.substring(0, sp);
            String value = sp < 0 ? "" : line.substring(sp + 1);
            switch (key) {
                case "id": r.id = value; break;
                case "source": r.source = value; break;
                case "compiled": r.compiled = value; break;
                case "compile_only": r.compileOnly = Boolean.parseBoolean(value); break;
                case "compile_classpath": r.compileClasspath.add(value); break;
                case "release": r.release = value; break;
                case "encoding": r.encoding = value; break;
                case "classpath": r.classpath.add(value); break;
                case "test_classes": r.testClasses.add(value); break;
                case "package": r.packages.add(value); break;
                case "trigger": r.triggers.add(value); break;
                case "relevant": r.relevant.add(value); break;
                case "known": r.known.add(value); break;
                case "candidate_class": r.candidateClasses.add(value); break;
                case "stop_at_first_failure": r.stopAtFirstFailure = Boolean.parseBoolean(value); break;
                case "test_timeout_ms": r.testTimeoutMs = Long.parseLong(value); break;
                case "only": {
                    int at = value.indexOf(' ');
                    r.only.computeIfAbsent(value.substring(0, at), c -> new HashSet<>()).add(value.substring(at + 1));
                    break;
                }
                case "reach": r.reach = value; break;
                case "closed_init": r.closedInit = value; break;
                case "behaviour": r.behaviour = Boolean.parseBoolean(value); break;
                case "behaviour_candidate": r.behaviourCandidate = value; break;
                case "behaviour_fix_reference": r.behaviourFixReference = Boolean.parseBoolean(value); break;
                case "behaviour_budget_ms": r.behaviourBudgetMs = Long.parseLong(value); break;
                case "behaviour_skip": r.behaviourSkip.add(value); break;
                case "behaviour_steady": {
                    int at = value.indexOf(' ');
                    r.behaviourSteady.put(value.substring(0, at), value.substring(at + 1));
                    break;
                }
                default: throw new IOException("unknown request key: " + key);
            }
        }
        return r;
    }
}
