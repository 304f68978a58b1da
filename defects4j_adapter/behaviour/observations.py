"""What a behaviour probe observed, read from the rows the runner signed (``BEHAVIOUR`` and
``BEHAVIOUREND``, see ``BehaviourProbe.java``): per input, the reference's outcome and the
candidate's, each as a shortened snapshot for people and the digest of the whole one for
comparisons."""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field

TIMEOUT = "timeout"
"""The outcome of a body the per-test time limit stopped, or the watchdog as far slower than the reference's
(a candidate's) or than the tests' own calls (the reference's on a derived input)."""
_TIMEOUT_DIGEST = hashlib.sha256(TIMEOUT.encode()).hexdigest()[:24]
"""Its digest, as the runner writes digests (the first 12 bytes of the SHA-256, in hex)."""


STEADY = "steady"
"""A row's second reference digest when the runner ran the reference once: an input on which the
reference's probe of itself did the same three times (``BehaviourProbe#STEADY``)."""
NO_EVIDENCE = "no-evidence"
"""A row's second reference digest when the developer's fix failed on a derived input as no caller is meant to
meet (``BehaviourProbe#NO_EVIDENCE``): never compared, and passed over by the bug's later probes."""


class Origin(str, enum.Enum):
    CALL = "call"
    """A call a test made."""
    DERIVED = "derived"
    """An input derived from one: a neighbouring or boundary value of one argument, or the call crossed
    with an earlier one (its receiver with their arguments, their receiver with its arguments)."""
    CALLER = "caller"
    """A test's call of another method of the class that called the method under probe (a solver's ``solve``,
    which sets up what ``doSolve`` reads), run again whole on both versions, or with its arguments varied:
    :attr:`Observation.caller` names it."""
    BUILT = "built"
    """A call's arguments on a receiver the class's own constructor built from a test's construction, as it came or
    with its arguments varied (``BehaviourProbe.built``): a counter of a larger dimension than any test built."""
    THEIRS = "candidate-constant"
    """An input with one argument at a literal or named constant of the candidate's own body that the fix's does not
    hold, or next to it (SimFix's ``abs(y - x) <= SAFE_MIN``: where the candidate's behaviour turns). Tried in the
    candidate's probe only, so never among the inputs the fix's own probe reached."""


@dataclass(frozen=True)
class Observation:
    origin: Origin
    test: str
    """The test class whose test made the call (or the call it was derived from)."""
    input: str
    input_digest: str
    reference: str
    reference_digest: str
    candidate: str
    candidate_digest: str
    reference_again_digest: str
    """The reference's outcome on a second copy of the input, in the same job: equal when it repeats itself
    (:data:`STEADY`: not run again, the input being one its own probe found steady)."""
    whole_input: str = ""
    """The input written whole (``BehaviourProbe.WHOLE_TEXTS``: arrays and collections past 64 elements, past 1,000
    characters) where the candidate's outcome differs, for the first such rows of a job, and ``input`` does not show it
    all; else empty."""
    whole_reference: str = ""
    """The reference's outcome written whole where :attr:`whole_input` could be written (empty when it could not)."""
    whole_candidate: str = ""
    """The candidate's outcome written whole, likewise."""
    caller: str = ""
    """For :attr:`Origin.CALLER`: the method the input is a call of, its name and parameter types
    (``solve(int,org.example.Function,double,double)``); empty for a call of the method under probe."""

    @property
    def reference_timed_out(self) -> bool:
        return self.reference == TIMEOUT or self.reference_again_digest == _TIMEOUT_DIGEST

    @property
    def no_evidence(self) -> bool:
        """The developer's fix failed on this derived input as no caller is meant to meet: the candidate was not run."""
        return self.reference_again_digest == NO_EVIDENCE

    @property
    def repeatable(self) -> bool:
        """The reference did the same twice on this input, in time (or ran once on an input its own probe
        found steady): the input can be compared on. Never on a :data:`NO_EVIDENCE` row."""
        return not self.reference_timed_out and self.reference_again_digest in (self.reference_digest, STEADY)


@dataclass
class ProbeRun:
    """One probe job: its observations in the order the runner made them, or why there are none."""

    observations: list[Observation] = field(default_factory=list)
    calls: int = 0
    """Distinct recorded calls probed."""
    derived: int = 0
    """Derived inputs probed."""
    skipped: int = 0
    """Calls whose input could not be copied faithfully (not probed)."""
    uncopyable: str = ""
    """What the first of them held that cannot be copied (a class, ``Class.field``, ``X extends JdkClass``)."""
    error: str = ""
    """Why the probe did not run to its end (empty when it did)."""
    passed_over: int = 0
    """Inputs the runner ran on neither body: the ones the reference's probe of itself found no evidence
    (``skip`` of :func:`defects4j_adapter.engines.probing.probe`)."""
    unreached: int = 0
    """Rows kept from an earlier pass of the fix's own probe (inputs it gave no evidence on, which later probes pass
    over) whose inputs this pass neither ran nor passed over: the calls that made them did not come again
    (``nl2fix.validation.behaviour.settled``)."""
    budget_met: float = 0.0
    """The CPU-s budget the probe met, its observations so far kept (0: it ran to its end, or
    :attr:`error` says where it stopped)."""
    spoiled: str = ""
    """The digest of the input on which the candidate's call changed JVM-wide state the runner cannot put back
    (what retires a JVM after its job; empty: none did): the runner probed no input after it, as the reference
    would have met that state; the observations so far kept."""
    decided: str = ""
    """The digest of the input whose row decided the label beside the developer's fix (empty: none did): the runner
    kept the rows of the call it is an input of and ended the job (``BehaviourProbe.Session#decides``)."""
    cpu_seconds: float = 0.0

    @property
    def tests(self) -> list[str]:
        """The test classes that made calls, in first-seen order."""
        return list(dict.fromkeys(o.test for o in self.observations if o.test))


def read(rows: list[list[str]], end: list[str] | None) -> ProbeRun:
    """The probe of a signed report's ``BEHAVIOUR`` rows and its ``BEHAVIOUREND`` counts, budget met, inputs
    passed over, whether the candidate spoiled the JVM and the input that decided the label (None: the probe did
    not end, e.g. the JVM died in it)."""
    run = ProbeRun()
    for row in rows:
        origin, test, shown_in, digest_in, ref, ref_digest, cand, cand_digest, again, *whole = (row + [""] * 12)[:12]
        whole_input, whole_reference, whole_candidate = whole
        kind_text, _, caller = origin.partition(":")
        try:
            kind = Origin(kind_text)
        except ValueError:
            run.error = f"an unknown probe row {origin!r}"
            continue
        if (kind is Origin.CALLER) != bool(caller):
            run.error = f"a probe row of another method without its name, or with one: {origin!r}"
            continue
        run.observations.append(
            Observation(
                kind,
                test,
                shown_in,
                digest_in,
                ref,
                ref_digest,
                cand,
                cand_digest,
                again,
                whole_input=whole_input,
                whole_reference=whole_reference,
                whole_candidate=whole_candidate,
                caller=caller,
            )
        )
    if end is None:
        run.error = run.error or "the probe did not end"
    else:
        counts = [int(x) if x.isdigit() else 0 for x in (end + ["0"] * 5)[:5]]
        run.calls, run.derived, run.skipped = counts[:3]
        run.budget_met = counts[3] / 1000
        run.passed_over = counts[4]
        run.spoiled = end[5] if len(end) > 5 else ""
        run.uncopyable = end[6] if len(end) > 6 else ""
        run.decided = end[7] if len(end) > 7 else ""
    return run
