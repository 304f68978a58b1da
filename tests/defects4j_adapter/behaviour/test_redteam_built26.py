"""Red team 26 against built receivers (``CallInserter.receivers`` putting ``BehaviourProbe.built`` first in the probed
class's constructors, ``Session.builtStates`` / ``construct`` building receivers again from the tests' constructions,
``Derived.constructions`` varying their arguments), each attack run for real (the runner's probe in a plain JVM, the
probe source's class instrumented as a probe job instruments it) and asserting the honest outcome:

- ``construct`` put the class's static fields back after a build, but ran the constructor on the tests' own static
  objects (only the field's reference was put back, as before red team 23 for a caller): a constructor that registers
  its object in the class's static list registered every built receiver in the tests' own list, so building changed
  what the tests read next.
- Every non-private constructor's arguments were varied, a package-private one too: a constructor the project's own
  factory in another class calls with arguments it has made sound (a fraction reduced, its denominator positive) built
  receivers no caller outside the package can make (``2/2``), and a correct candidate that differs from the fix only
  there ``diverged``. Arguments are varied only for a public constructor of a public class now; other constructions
  are still built as they came (a state the project's own code set up).
- Held: constructors of other bytecode shapes (``this(...)`` chains, long and double parameters, a ``new`` from a
  conditional before ``this(...)``, 120 parameters) load and verify once instrumented; a constructor that loops on a
  varied argument is stopped and builds nothing, the tests going on; the fix beside itself agrees on every built
  receiver of those."""

from __future__ import annotations

import re

import pytest

from defects4j_adapter.behaviour import observations
from tests.defects4j_adapter.behaviour.test_observable_state import runner  # noqa: F401  (the fixture)
from tests.defects4j_adapter.behaviour.test_reached_states import probe_instrumented
from tests.defects4j_adapter.behaviour.test_redteam_caller23 import probe_with_test

pytestmark = pytest.mark.slow


def _differing(run: observations.ProbeRun) -> list[observations.Observation]:
    return [o for o in run.observations if o.candidate_digest != o.reference_digest]


def _derived(run: observations.ProbeRun) -> list[str]:
    return [o.input for o in run.observations if o.origin is observations.Origin.BUILT]


# --- 1. a build ran on the tests' own static objects ---------------------------------------------------------------

REGISTERING = """
    private static java.util.List<Holder> registry = new java.util.ArrayList<>();
    private int[] sizes = {1};

    public Holder(int... sizes) {
        if (sizes.length == 0 || sizes[0] > 9) {
            throw new IllegalArgumentException("no dimension");
        }
        this.sizes = sizes.clone();
        registry.add(this);
    }

    public static int registered() {
        return registry.size();
    }
"""
LAST = """public int last(int index) {
    return index % sizes[sizes.length - 1];
}"""


def test_building_receivers_leaves_the_tests_own_static_list_as_it_was(runner, tmp_path):
    # the test made one counter; the class's static list holds it alone, whatever the probe built beside it
    call = (
        "h.Holder c = new h.Holder(2, 4); for (int i = 0; i < 8; i++) c.last(i); "
        'if (h.Holder.registered() != 1) throw new IllegalStateException("the tests\' registry holds " '
        "+ h.Holder.registered())"
    )
    instrumented, run = probe_instrumented(runner, tmp_path, LAST, LAST, call, REGISTERING)
    assert instrumented == 2 and not run.error, run  # count() and the constructor
    # receivers were built (what the list would have grown by), and the fix beside itself agrees on them
    assert any("{2,5}" in i for i in _derived(run)), run
    assert not _differing(run), run


# --- 2. a package-private constructor's arguments varied past the invariants its factory keeps ----------------------

FRACTION = """
    private int num;
    private int den = 1;

    /** Trusted: num/den reduced, den > 0 ({@link Fractions#of} makes sure). */
    Holder(int num, int den) {
        this.num = num;
        this.den = den;
    }
"""
FRACTIONS = """package h;

public final class Fractions {
    private Fractions() {
    }

    public static Holder of(int a, int b) {
        int g = java.math.BigInteger.valueOf(a).gcd(java.math.BigInteger.valueOf(b)).intValue();
        if (b < 0) {
            g = -g;
        }
        return new Holder(a / g, b / g);
    }
}
"""
WHOLE = """public boolean whole() {
    return den == 1;
}"""
# the same on every reduced fraction with a positive denominator: num % den == 0 there only when den == 1
DIVIDES = WHOLE.replace("return den == 1;", "return num % den == 0;")


def test_a_correct_candidate_is_not_told_apart_on_a_fraction_no_caller_outside_the_package_can_make(runner, tmp_path):
    test = "h.Fractions.of(2, 4).whole(); h.Fractions.of(6, 3).whole(); h.Fractions.of(-3, 9).whole();"
    run = probe_with_test(runner, tmp_path, WHOLE, DIVIDES, FRACTION, test, sources={"h/Fractions.java": FRACTIONS})
    assert not run.error and run.calls == 3, run
    assert not _differing(run), _differing(run)
    # the constructions the factory made are still receivers (as they came), never an unreduced 2/2 or a 0 den
    made = _derived(run)
    assert not any("num=2,den=2" in i or "den=0" in i for i in made), made


# --- 3. held: bytecode shapes, a looping constructor ----------------------------------------------------------------

SHAPES = """
    private long wide;
    private double ratio;
    private int n;

    public Holder(long wide, double ratio, int n) {
        this.wide = wide;
        this.ratio = ratio;
        this.n = n;
    }

    public Holder(String s) {
        this(new StringBuilder(s == null ? "" : s).length(), s == null ? 0.5 : 1.5, 3);
    }

    public Holder(int n, long... more) {
        this(more.length == 0 ? 0L : more[more.length - 1], 2.0, n);
        while (n == 7) {
            this.n = this.n + 0;
        }
    }

    public Holder(PARAMETERS) {
        this(p0, 1.0, p119);
    }
""".replace("PARAMETERS", ", ".join(f"int p{i}" for i in range(120)))
SUM = """public double sum(int k) {
    return wide + ratio + n + k;
}"""


def test_constructors_of_other_shapes_load_and_a_looping_one_is_stopped(runner, tmp_path):
    many = ", ".join(str(i) for i in range(120))
    call = (
        'new h.Holder(5L, 2.5, 1).sum(1); new h.Holder("abc").sum(2); new h.Holder(6, 1L, 2L).sum(3); '
        f"new h.Holder({many}).sum(4)"
    )
    instrumented, run = probe_instrumented(runner, tmp_path, SUM, SUM, call, SHAPES)
    # count() and the four constructors (not sum's wrapper or the fix)
    assert instrumented == 5 and not run.error and run.calls == 4, run
    assert _derived(run) and not _differing(run), run
    # (6, 1, 2) built with its 6 one above loops, is stopped and builds nothing; (5, ...) and the others are built
    assert not any(re.search(r"[{,]n=7[,}]", i) for i in _derived(run)), _derived(run)
