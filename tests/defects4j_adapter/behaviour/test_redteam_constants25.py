"""Red team 25 on the candidate's own constants as probe inputs (commit 47091c9: ``their_constants``/``their_names``,
``Derived.at``, ``Session.theirs``). Real javac and java through the one-call harness of ``test_observable_state``;
labels by :func:`nl2fix.validation.behaviour.label` against the fix's probe of itself, as a bug's probes are
labelled."""

from __future__ import annotations

import pytest

from defects4j_adapter.behaviour import observations
from defects4j_adapter.behaviour.probe_source import probe_methods
from nl2fix.core.domain import Behaviour
from nl2fix.validation.behaviour import label
from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    CLASS,
    probe,
    run_harness,
    runner,
)
from tests.helpers.javac import run_javac

FIX = """public static int twice(int x) {
    return 2 * x;
}"""
# agrees with the fix everywhere but at 9 (and -9); its literal 11 (and 11's neighbour 10) is where the candidate's
# constants are tried: at the tests' first call, before their second call (of 10) is seen
HOSTILE = """public static int twice(int x) {
    if (x == 11) return x + x;
    return x * x == 81 ? -x : x + x;
}"""
# agrees with the fix everywhere, and holds the same literal
HONEST = """public static int twice(int x) {
    if (x == 11) return x + x;
    return x + x;
}"""
TWO_CALLS = "h.Holder.twice(5); h.Holder.twice(10)"
# then more distinct calls than a job probes (BehaviourProbe.MAX_CALLS = 40): the call the candidate's constant made the
# probe pass over leaves room for one the fix's own probe never reached
MANY_CALLS = TWO_CALLS + "; for (int i = 1; i <= 45; i++) h.Holder.twice(1000 * i)"


def labelled(runner, tmp_path, candidate: str, call: str):
    alone = probe(runner, tmp_path / "alone", FIX, FIX, call)
    beside = probe(runner, tmp_path / "beside", candidate, FIX, call)
    assert not alone.error and not beside.error, (alone, beside)
    return alone, beside, label(alone, beside, developer_fix=True)


@pytest.mark.slow
def test_a_candidate_s_constant_at_a_later_call_s_argument_does_not_pass_that_call_over(runner, tmp_path):
    """``Session.probeCall`` passes a call over when its input was ``seen`` in the job, and ``choose`` marks the inputs
    at the candidate's constants ``seen`` (``key``: one key with a call's own). So the candidate's literal 11 puts 10,
    the
    tests' second call, among its own rows at the first call, and the second call is passed over whole: none of the
    fix's derived inputs around 10 (9 among them, where the candidate differs) is compared. The fix's probe of itself
    compares 9 (the second call's ``x - 1``); the candidate's does not: it is ``not-probed``, never ``diverges``."""
    alone, beside, record = labelled(runner, tmp_path, HOSTILE, TWO_CALLS)
    assert any(o.input == "arg0=9" for o in alone.observations), alone
    assert record.label is Behaviour.DIVERGES, (record.label, record.note, [o.input for o in beside.observations][:30])


@pytest.mark.slow
def test_a_candidate_s_constant_cannot_trade_a_call_it_differs_around_for_one_the_fix_s_probe_never_reached(
    runner, tmp_path
):
    """As above, with more distinct calls than a job probes: the call passed over does not count toward
    ``MAX_CALLS``, so the candidate's probe reaches the 41st distinct call, which the fix's own never did, and its rows
    make up the count the label checks (``ran + passed_over < reached``). The candidate that differs from the fix on an
    input the fix's own probe compared (9) is labelled ``same-behaviour``."""
    alone, beside, record = labelled(runner, tmp_path, HOSTILE, MANY_CALLS)
    assert any(o.input == "arg0=9" for o in alone.observations), alone
    assert record.label is Behaviour.DIVERGES, (record.label, record.note, [o.input for o in beside.observations][:30])


@pytest.mark.slow
def test_an_honest_candidate_s_constant_does_not_cost_it_its_label(runner, tmp_path):
    """The same passing over, for a candidate that agrees with the fix everywhere: its probe reaches fewer of the fix's
    inputs than the fix's own (the second call and its derived inputs are gone), and the label is ``not-probed`` where
    it was ``same-behaviour`` before the candidate's constants were tried."""
    _, _, record = labelled(runner, tmp_path, HONEST, TWO_CALLS)
    assert record.label is Behaviour.SAME, record


@pytest.mark.slow
def test_the_candidate_s_names_cannot_keep_the_probe_source_from_compiling(runner, tmp_path):
    """``their_names`` hands over every name the candidate's body uses that the fix's does not, without a bound, as
    one array initializer in the wrapper's body. A candidate declaring 9,000 locals it never uses compiles (declarations
    without initializers are no code), but the wrapper's ``new String[] {"a0", ..., "a8999"}`` is ~70 KB of bytecode:
    javac refuses the probe source ("code too large"), and the job's probe ends in an error (``not-probed``)."""
    locals_ = ", ".join(f"a{i}" for i in range(9000))
    candidate = FIX.replace("return", f"int {locals_};\n    return")
    alone = run_javac({"h/Holder.java": CLASS % candidate}, tmp_path / "candidate")
    assert alone.returncode == 0, alone.stderr  # the candidate itself compiles
    wrapped = CLASS % probe_methods(FIX, candidate, "Holder", source=CLASS % "")
    done = run_javac({"h/Holder.java": wrapped}, tmp_path / "probe", "-g", "-cp", str(runner))
    assert done.returncode == 0, done.stderr[:2000]


# The engines' watchdog (TestExecutor#watch), as far as the probe needs it: a reference's body on a derived input that
# runs past its pace is stopped alone (its row says timeout), and a candidate's probing stops at its CPU budget
# (probing.CANDIDATE_BUDGET: 2 CPU-s); the inputs the fix's own probe passed over (passed_over) are handed in as a
# job's.
WATCHED = """package nl2fix.runner;

public final class ProbeHarness {
    static java.util.List<String> entries = java.util.List.of();

    @SuppressWarnings({"deprecation", "removal"})
    public static void main(String[] args) throws Exception {
        java.util.Set<String> skip = new java.util.HashSet<>(java.util.Arrays.asList(SKIP));
        BehaviourProbe.begin(Main.classFiles(java.nio.file.Paths.get(args[0])),
                new java.net.URL[] {java.nio.file.Paths.get(args[1]).toUri().toURL()},
                ClassLoader.getPlatformClassLoader(), java.util.Map.of(), true, skip, java.util.Map.of(), entries);
        Thread t = new Thread(() -> {
            %s;
        });
        BehaviourProbe.watch(t, "h.HolderTest");
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long budget = BUDGET * 1_000_000L;
        t.start();
        while (t.isAlive()) {
            t.join(20);
            long cpu = mx.getThreadCpuTime(t.getId());
            if (BehaviourProbe.referenceOverdue(t, cpu)) {
                BehaviourProbe.stopping(t, true);
                t.stop();
                BehaviourProbe.stopSent(t);
                continue;
            }
            if (budget > 0 && !BehaviourProbe.inCandidate(t) && BehaviourProbe.probing(t, cpu) >= budget) {
                BehaviourProbe.overBudget(BUDGET);
                BehaviourProbe.forgetStops(t);
                t.stop();
                t.join();
            }
        }
        for (String[] row : BehaviourProbe.end()) {
            System.out.println(String.join("\\t", row));
        }
    }
}
"""
SPIN = """public static long spin(int n, int m) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        s = s * 31 + i;
    }
    for (int j = 0; j < m; j++) {
        s = s * 17 + j;
    }
    return s;
}"""
# the fix's own inputs where the fix runs long (Integer.MAX_VALUE) were passed over; the candidate names an input of its
# own where the fix runs long (each argument at 500000000 or next to it: four inputs a call), and differs from the fix
# only at n = 19 (n * n == 361), which the tests' last call (20, 4) reaches through its x - 1
SPINNER = """public static long spin(int n, int m) {
    if (n == 500000000 || m == 500000000) {
        return 0;
    }
    long s = 0;
    for (int i = 0; i < n; i++) {
        s = s * 31 + i;
    }
    for (int j = 0; j < m; j++) {
        s = s * 17 + j;
    }
    return n * n == 361 ? -s : s;
}"""
SPIN_CALLS = "h.Holder.spin(3, 1); h.Holder.spin(5, 2); h.Holder.spin(7, 3); h.Holder.spin(20, 4)"


def watched(runner, tmp_path, candidate: str, skip: frozenset[str], budget_ms: int) -> observations.ProbeRun:
    harness = WATCHED.replace("SKIP", "new String[] {" + ", ".join(f'"{d}"' for d in sorted(skip)) + "}").replace(
        "BUDGET", f"{budget_ms}L"
    )
    done = run_harness(runner, tmp_path, SPIN, candidate, SPIN_CALLS, harness=harness)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows and rows[-1][0] == "BEHAVIOUREND", done.stdout
    return observations.read([r[1:] for r in rows[:-1]], rows[-1][1:])


@pytest.mark.slow
def test_a_candidate_s_constants_cannot_spend_the_probe_s_budget_on_inputs_where_the_fix_runs_long(runner, tmp_path):
    """The fix's probe of itself runs long on ``Integer.MAX_VALUE`` (its row says timeout) and candidates' probes pass
    that input over (``passed_over``: a reference that runs long there would spend a candidate's budget, Math-80). The
    inputs at a candidate's own constants are never passed over: a candidate naming 500000000 makes the fix run to its
    pace limit (0.2 CPU-s) on four inputs of its choosing at each call, the 2 CPU-s budget is gone before the tests'
    last
    call, and the input where it differs (19, 4) is never compared: ``not-probed`` where it ``diverges``. The same
    candidate without the literal ``diverges``."""
    from nl2fix.validation.behaviour import passed_over

    alone = watched(runner, tmp_path / "alone", SPIN, frozenset(), 0)
    assert any(o.input == "arg0=19, arg1=4" for o in alone.observations), alone
    skip = passed_over(alone)
    plain = SPINNER.replace("if (n == 500000000 || m == 500000000) {\n        return 0;\n    }\n", "")
    assert "500000000" not in plain
    control = watched(runner, tmp_path / "control", plain, skip, 2000)
    assert label(alone, control, developer_fix=True).label is Behaviour.DIVERGES, control
    beside = watched(runner, tmp_path / "beside", SPINNER, skip, 2000)
    record = label(alone, beside, developer_fix=True)
    assert record.label is Behaviour.DIVERGES, (record, beside.budget_met, [o.input for o in beside.observations])
