"""Beyond plausible: how a plausible candidate behaves beside a reference method, and behaviour
clusters of candidates.

The engine's probe (:meth:`defects4j_adapter.engines.fast.FastEngine.probe`, see
``defects4j_adapter/java/nl2fix/runner/BehaviourProbe.java``) runs the tests on the reference's behaviour and,
at each call they make to the method and on inputs derived from it, the reference and the candidate
on copies of the same input; it gives both outcomes' digests. Per bug, the reference is first probed
against itself: an input on which it does not behave the same twice (identity hash codes, time,
randomness, a copy that is not faithful) is never compared, and the test classes that called the
method are the only ones later probes run. A candidate is then ``same-behaviour`` when it does what
the developer's fix does on every input compared, else ``diverges``, with the first such input and
both outcomes. Without a developer fix (a user's bug) the method as it is stands in as the reference
that drives the tests, and the candidates' own outcomes group them into behaviour clusters.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from defects4j_adapter.behaviour.junit import divergence_test
from defects4j_adapter.behaviour.observations import STEADY, Origin, ProbeRun
from defects4j_adapter.contract import Workspace
from nl2fix.core.domain import Behaviour
from nl2fix.store.records import BehaviourRecord, ObservedResult

SETTLING_PASSES = 2
"""How many times the reference's probe of itself is taken again with the inputs it gave no evidence on passed over
(:func:`settled`)."""
KEPT_OBSERVATIONS = 120
"""Results kept per candidate for clusters (the label uses them all)."""


@runtime_checkable
class Probing(Protocol):
    """An engine that can probe (the fast engine)."""

    def probe(
        self,
        workspace: Workspace,
        reference: str,
        candidate: str,
        *,
        tests: frozenset[str] | None = None,
        developer_fix: bool = True,
        skip: frozenset[str] = frozenset(),
        steady: Mapping[str, str] | None = None,
    ) -> ProbeRun: ...


def stable_inputs(baseline: ProbeRun) -> dict[str, str]:
    """Input digest -> the reference's outcome digest, for the inputs of the reference's probe against
    itself on which it did the same three times, in time."""
    return {
        o.input_digest: o.reference_digest
        for o in baseline.observations
        if o.repeatable and o.candidate_digest == o.reference_digest
    }


def passed_over(baseline: ProbeRun) -> frozenset[str]:
    """The inputs a candidate's probe runs on neither body: those the reference's probe of itself saw and
    found no evidence (it timed out, did not do the same twice, or failed as no caller is meant to meet:
    ``NO_EVIDENCE``). :func:`label` would not compare them
    anyway, and a reference that runs to the per-test time limit on one (Math-80's ``step`` of 0, a loop
    that never advances) spent a candidate's whole CPU budget there, cutting its label to ``not-probed``."""
    steady = stable_inputs(baseline)
    return frozenset(o.input_digest for o in baseline.observations if o.input_digest not in steady)


def nothing_to_compare(baseline: ProbeRun) -> str:
    """Why a bug's reference probe left no input to compare candidates on."""
    if baseline.error:
        return baseline.error
    if baseline.skipped and not baseline.calls:
        return (
            f"the tests' {baseline.skipped} call(s) of the method hold what cannot be copied faithfully "
            "(a stream over a file or socket, an object whose JDK superclass holds state of its own)"
            + (f"; the first: {baseline.uncopyable}" if baseline.uncopyable else "")
        )
    if baseline.observations:
        return (
            "the developer's fix did not behave the same twice, or as its copy in a second class loader does, on any "
            "input (time, identity hash codes: a class or an enum constant is another object there)"
        )
    return "no test the probe runs calls the method"


def label(baseline: ProbeRun, run: ProbeRun, *, developer_fix: bool) -> BehaviourRecord:
    """The behaviour record of a candidate's probe ``run``, against the bug's ``baseline``.

    An input counts when the reference did the same twice on it in the candidate's job and, when the
    reference's own probe saw the same input (inputs holding random generators or clocks differ from job
    to job), did the same there too; on an input its own probe found steady the runner runs it once
    (``STEADY``: that run is held to the own probe's outcome below, a second would add nothing). The
    candidate's probe runs the same tests on the same reference, so what differs can only be the
    candidate's doing: where the reference gives another outcome than in
    its own probe, the candidate changed state the reference reads (static state it does not put back),
    which diverges too. A probe that did not finish, or reached fewer inputs than the reference's own
    (those passed over counted as reached: :func:`passed_over`), is never ``same-behaviour``; one that met
    its CPU budget ``diverges`` when an input it compared so far does (each row is whole: the body the budget
    stopped gives none), else it is ``not-probed`` with the inputs it compared (a probe cut short says nothing
    of the inputs it did not reach). Beside the developer's fix the runner ends a probe itself after the call whose
    inputs hold a difference on an input the fix's own probe found steady (``decided``): one this loop counts, so the
    label and its first difference are those of the whole probe. The runner stops a probe at a call of the candidate
    that changed JVM-wide state it cannot put back (``spoiled``: the reference's later runs would meet that state):
    that call ``diverges`` where the fix's own probe changed none (the state is behaviour a caller sees), else the probe
    is cut short as by its budget. On a caller's input (``Origin.CALLER``: a test's call of another method of the
    class run again whole) a fix that does otherwise than in its own probe, or does not end, gives no evidence: that
    run reaches the tests' own static state, which the runner puts back for the method's class alone."""
    cpu = run.cpu_seconds
    if not stable_inputs(baseline):
        return BehaviourRecord(label=Behaviour.NOT_PROBED, note=nothing_to_compare(baseline), cpu_seconds=cpu)
    if run.error:
        return BehaviourRecord(label=Behaviour.NOT_PROBED, note=run.error, cpu_seconds=cpu)
    seen = {o.input_digest: o for o in baseline.observations}
    steady = stable_inputs(baseline)
    counted, first, drifted = [], None, False
    for o in run.observations:
        own = seen.get(o.input_digest)
        # an input run once on the reference counts only as one its own probe found steady
        once = o.reference_again_digest == STEADY
        if not o.repeatable or (own is not None or once) and o.input_digest not in steady:
            continue
        drifted_here = own is not None and own.reference_digest != o.reference_digest
        if (
            _a_test_s_assertion(o.reference)
            or drifted_here
            and own is not None
            and (o.origin is Origin.CALLER or _a_test_s_assertion(own.reference))
        ):
            # the fix failing a test's own assertion (a test's event handler called back: Math-44's and Math-7's keep
            # their last trigger time in a static field of the test, which each run moves), or doing otherwise on a
            # caller's input than in its own probe (that run reaches the rest of the project and the tests' own static
            # state, put back for the method's class alone): the order the inputs ran in, never the candidate's doing
            # (its code runs in a loader of its own, where none of that is) -- no evidence
            continue
        counted.append(o)
        if first is None and own is not None and own.reference_digest != o.reference_digest:
            first, drifted = o, True
        elif first is None and o.candidate_digest != o.reference_digest:
            first = o
    kept = [
        ObservedResult(input=o.input, input_digest=o.input_digest, result=o.candidate, result_digest=o.candidate_digest)
        for o in counted[:KEPT_OBSERVATIONS]
    ]
    record = BehaviourRecord(
        label=Behaviour.SAME if developer_fix else Behaviour.OBSERVED,
        reference="fixed" if developer_fix else "buggy",
        inputs=len(counted),
        observations=kept,
        cpu_seconds=cpu,
    )
    spoiling = next((o for o in run.observations if o.input_digest == run.spoiled), None)
    # a caller sees the JVM-wide state a call leaves (a default handler, a logger's level): where the fix's own
    # probe left none, the candidate's differs from the fix's on that input, whatever the call returned
    changed_state = developer_fix and first is None and spoiling is not None and not baseline.spoiled
    if changed_state:
        first = spoiling
    if developer_fix and first is not None:
        record.label = Behaviour.DIVERGES
        record.decided = bool(run.decided)
        record.first_input, record.candidate_result = first.input, first.candidate
        record.first_input_whole, record.first_call = first.whole_input, first.caller
        record.reference_result = first.reference
        if not (changed_state or drifted):
            record.reference_result_whole, record.candidate_result_whole = first.whole_reference, first.whole_candidate
        if changed_state:
            record.candidate_result = (
                f"{first.candidate} (and the candidate changed JVM-wide state the runner cannot put back, "
                "which the developer's fix leaves as it is)"
            )
            record.junit_note = "the candidate changed JVM-wide state: a test of what the call returns does not show it"
        if drifted:
            record.reference_result = seen[first.input_digest].reference
            record.candidate_result = (
                f"{first.candidate} (and the developer's fix itself then gave "
                f"{first.reference}: the candidate changed state the fix reads)"
            )
            record.junit_note = "the candidate changed state the fix reads: one call on its own does not show it"
        return record
    # the fix ended on this input every time it was probed alone and now does not, or fails as no caller is meant to
    # meet: the candidate's earlier calls may have left what slows or breaks it (or the JVM ran out of stack), and an
    # input a candidate can keep from being compared must not let it pass as the fix's equal
    stalled = next(
        (
            o
            for o in run.observations
            if (o.reference_timed_out or o.no_evidence) and o.input_digest in steady and o.origin is not Origin.CALLER
        ),
        None,
    )
    if stalled is not None:
        who = "developer's fix" if developer_fix else "method as it is"
        did = "failed unexpectedly" if stalled.no_evidence else "did not end"
        record.label = Behaviour.NOT_PROBED
        record.note = (
            f"the {who} {did} beside this candidate on an input where, probed alone, it did not: {stalled.input[:300]}"
        )
        return record
    if run.decided:
        # the runner's rule (BehaviourProbe.Session#decides) and this one part: its early end says nothing
        record.label = Behaviour.NOT_PROBED
        record.note = f"the probe ended at an input that decides nothing here, after {len(counted)} compared input(s)"
        return record
    if run.budget_met or run.spoiled:
        record.label = Behaviour.NOT_PROBED
        stopped = (
            "the candidate changed JVM-wide state the runner cannot put back (what retires a JVM after its job), "
            "so the probe stopped"
            if run.spoiled
            else f"the probe met its budget of {run.budget_met:g} CPU-s"
        )
        record.note = (
            f"{stopped} after {len(counted)} compared input(s), {len(steady)} beside the developer's fix alone"
            if developer_fix
            else f"{stopped} after {len(counted)} input(s)"
        )
        return record
    reached = len(baseline.observations) - baseline.unreached
    # the inputs at the candidate's own constants are its probe's alone: they cannot stand in for ones the tests did not
    # reach beside it
    ran = sum(o.origin is not Origin.THEIRS for o in run.observations)
    if ran + run.passed_over < reached:
        return BehaviourRecord(
            label=Behaviour.NOT_PROBED,
            cpu_seconds=cpu,
            note=(
                f"the tests reached {ran + run.passed_over} input(s) beside this candidate, "
                f"{reached} beside the developer's fix alone"
            ),
        )
    if not counted:
        return BehaviourRecord(
            label=Behaviour.NOT_PROBED,
            cpu_seconds=cpu,
            note="the developer's fix did not repeat itself on any input of this probe",
        )
    return record


TEST_ASSERTIONS = (
    "java.lang.AssertionError",
    "junit.framework.AssertionFailedError",
    "org.junit.ComparisonFailure",
    "junit.framework.ComparisonFailure",
)
"""What a test's own assertion throws (JUnit 4's and 3's): a fix's outcome that no caller of it is meant to meet."""


def _a_test_s_assertion(outcome: str) -> bool:
    return any(outcome.startswith(f"throws {thrown}=") for thrown in TEST_ASSERTIONS)


def settled(run: ProbeRun, again: Callable[[frozenset[str] | None, frozenset[str]], ProbeRun]) -> ProbeRun:
    """The reference's probe of itself (``run``) taken ``again`` (on its test classes, None: every one; with what to
    pass over) as a candidate's meets it: with the inputs it gave no evidence on passed over, until no other input
    joins them (:data:`SETTLING_PASSES` at most). What the reference did on one of those (a default locale it set
    and did not put back before it failed or was stopped) reached the inputs after it in its own probe, never in a
    candidate's, and made a correct candidate ``diverge`` (red team 20). The inputs passed over keep their rows, so
    that candidates pass them over too."""
    for _ in range(SETTLING_PASSES):
        skip = passed_over(run)
        if not skip or run.error:
            break
        retaken = again(frozenset(run.tests) or None, skip)
        if retaken.error:
            break
        met = {o.input_digest for o in retaken.observations}
        kept = [o for o in run.observations if o.input_digest in skip and o.input_digest not in met]
        retaken.observations += kept
        # the kept rows are the inputs this pass passed over, and those it never reached
        retaken.unreached, retaken.passed_over = max(0, len(kept) - retaken.passed_over), 0
        retaken.cpu_seconds += run.cpu_seconds
        done = passed_over(retaken) == skip
        run = retaken
        if done:
            break
    return run


class Prober:
    """One bug's probes in one validation: the reference against itself once (lazily, at the first
    plausible candidate), then each plausible candidate."""

    def __init__(self, engine: Probing, workspace: Workspace, reference: str, *, developer_fix: bool):
        self.engine, self.workspace, self.reference = engine, workspace, reference
        self.developer_fix = developer_fix
        self._baseline: ProbeRun | None = None
        self._lock = threading.Lock()

    @property
    def reference_probe(self) -> ProbeRun | None:
        """The reference's probe against itself, once it ran (its cost is paid once per bug)."""
        return self._baseline

    def baseline(self) -> ProbeRun:
        """The reference's probe of itself: every trigger and relevant test class first, to learn which call the
        method; then, when that is fewer, those alone, as each candidate's probe runs them. The classes left out
        leave state behind them in the job (a library's caches, filled by one class and read by the next), so a
        call's input there is not the same as in a job of the calling classes only: JacksonDatabind-93's fix
        beside itself met 67 inputs where its own probe of every class had met 68, and was ``not-probed``."""
        with self._lock:
            if self._baseline is None:
                ws, ref = self.workspace, self.reference
                run = self.engine.probe(ws, ref, ref, developer_fix=self.developer_fix)
                every = {t.split("::")[0] for t in ws.trigger_tests} | set(ws.relevant_tests)
                if run.tests and not run.error and set(run.tests) != every:
                    again = self.engine.probe(
                        ws, ref, ref, tests=frozenset(run.tests), developer_fix=self.developer_fix
                    )
                    again.cpu_seconds += run.cpu_seconds
                    run = again
                self._baseline = self._settled(run)
            return self._baseline

    def _settled(self, run: ProbeRun) -> ProbeRun:
        return settled(
            run,
            lambda tests, skip: self.engine.probe(
                self.workspace,
                self.reference,
                self.reference,
                tests=tests,
                developer_fix=self.developer_fix,
                skip=skip,
            ),
        )

    def behaviour(self, candidate: str) -> BehaviourRecord:
        baseline = self.baseline()
        if not stable_inputs(baseline):
            return BehaviourRecord(label=Behaviour.NOT_PROBED, note=nothing_to_compare(baseline))
        run = self.engine.probe(
            self.workspace,
            self.reference,
            candidate,
            tests=frozenset(baseline.tests),
            developer_fix=self.developer_fix,
            skip=passed_over(baseline),
            steady=stable_inputs(baseline),
        )
        record = label(baseline, run, developer_fix=self.developer_fix)
        if record.label is Behaviour.DIVERGES and not record.junit_note:
            ws, bug = self.workspace, self.workspace.bug
            explained = divergence_test(
                ws.buggy_file().read_bytes().decode(ws.encoding),
                bug.buggy_method,
                bug.start_line,
                bug.end_line,
                self.reference,
                *record.divergence(),
            )
            record.junit_test, record.junit_note = explained.test, explained.why_not
        return record


# -- behaviour clusters ----------------------------------------------------------------------------


@dataclass
class Cluster:
    """Candidates that did the same on every input all of them were compared on."""

    members: list[str]
    """Candidate hashes, the most typical first (most samples, then the order given)."""
    samples: int
    """Samples whose candidate is a member."""
    results: dict[str, ObservedResult] = field(default_factory=dict)
    """Input digest -> the members' result there."""


@dataclass(frozen=True)
class Disagreement:
    """An input on which clusters did different things."""

    input: str
    results: list[str]
    """Each cluster's result there, in cluster order."""


def clusters(
    records: Mapping[str, BehaviourRecord], samples: Mapping[str, int], order: Sequence[str] = ()
) -> list[Cluster]:
    """The probed candidates of ``records`` grouped by their results on the inputs every one of them
    was compared on, largest first (by samples, then members); ``order`` breaks ties within and
    between clusters (e.g. a ranking). Candidates without observations are left out."""
    # a probe cut short (its budget) compared fewer inputs: it would narrow every cluster's common inputs
    observed = {
        h: {o.input_digest: o for o in r.observations}
        for h, r in records.items()
        if r.observations and r.label is not Behaviour.NOT_PROBED
    }
    if not observed:
        return []
    # so would one that ended at its first difference from the fix: it is told apart by that difference, and
    # compared on the common inputs it reached
    whole = [o for h, o in observed.items() if not records[h].decided] or list(observed.values())
    common = set.intersection(*(set(o) for o in whole))
    position = {h: i for i, h in enumerate(order)}

    def rank(h: str) -> tuple[int, int, str]:
        return -samples.get(h, 1), position.get(h, len(position)), h

    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for h in sorted(observed, key=rank):
        r = records[h]
        key = tuple(sorted((i, observed[h][i].result_digest) for i in common if i in observed[h]))
        if r.decided:
            key += (("first difference", f"{r.first_input}\n{r.candidate_result}"),)
        groups.setdefault(key, []).append(h)
    out = [
        Cluster(
            members=members,
            samples=sum(samples.get(h, 1) for h in members),
            results={i: observed[members[0]][i] for i in sorted(common) if i in observed[members[0]]},
        )
        for members in groups.values()
    ]
    return sorted(out, key=lambda c: (-c.samples, -len(c.members), rank(c.members[0])))


def disagreements(found: Sequence[Cluster], limit: int = 3) -> list[Disagreement]:
    """The first inputs (in input order of the largest cluster) on which the clusters' results differ."""
    if len(found) < 2:
        return []
    out = []
    for digest, first in found[0].results.items():
        # a cluster whose probes ended at their first difference may not have reached this input
        results = [c.results[digest] for c in found if digest in c.results]
        if len(results) == len(found) and len({r.result_digest for r in results}) > 1:
            out.append(Disagreement(first.input, [r.result for r in results]))
            if len(out) >= limit:
                break
    return out
