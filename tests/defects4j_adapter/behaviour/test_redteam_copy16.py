"""Red team round 16, on the probe's copy of the JDK's calendars, zones, formats and atomics (``Graphs.emptyLike``,
``jdkOnly``, ``cloned``, ``jdkObject``), with the one-call ``probe`` harness of ``test_observable_state`` (real javac
and java 17, no sandbox). ``tests/fixtures/redteam/found16/README.md`` has the runs and what held.

Each test asserts the safe outcome, so the ones that show a hole failed while it was open (both holes closed in
``Graphs``: ``readable`` writes all a caller can read of each cloned kind, and only the kinds of ``CLONED`` are cloned):

- ``test_a_change_a_caller_sees_in_a_copied_jdk_object_is_compared``: a candidate that answers as the fix does but
  then changes its argument (a date format's zone, a decimal format's rounding, a zone's offset, a calendar's time)
  gets rows all alike: the snapshot writes a zone as its id, a format as its pattern and a calendar as its class
  (``{?}``), so the change never shows. Before the copy took these kinds the input was uncopyable (``not-probed``);
  now the probe says ``same-behaviour``.
- ``test_the_candidate_s_copy_shares_nothing_with_the_test_s_own_objects``: ``CompactNumberFormat#clone`` (JDK 12 to
  at least 17) keeps the original's ``DecimalFormat``; the candidate's copy, cloned, changes the test's own format
  and every later copy the fix runs on.
- ``test_a_returned_zone_s_offset_is_compared``: a zone returned with the fix's id and another offset.
- held: an atomic reference holding itself; a JDK format holding a project's format (``jdkOnly`` refuses it).
"""

from __future__ import annotations

import pytest

from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    OWN_CLASSES,
    WHEN,
    probe,
    runner,
)

pytestmark = pytest.mark.slow

NUMBER = """public String number(java.text.DecimalFormat f) {
    return f.format(2.5);
}"""
OFFSET = """public int offset(java.util.TimeZone z) {
    return z.getRawOffset();
}"""
HOUR = """public int hour(java.util.Calendar c) {
    return c.get(java.util.Calendar.HOUR_OF_DAY);
}"""


def _after(method: str, returned: str, change: str) -> str:
    """``method`` answering as before, then making ``change`` to what it was given (a caller sees it)."""
    body_start = method.index("{\n") + 2
    head = method[:body_start]
    expression = method[body_start:].split("return ", 1)[1].split(";\n", 1)[0]
    return f"{head}    {returned} answer = {expression};\n    {change};\n    return answer;\n}}"


CHANGED = [
    (
        "a JDK date format's zone",
        WHEN,
        _after(WHEN, "String", 'f.setTimeZone(java.util.TimeZone.getTimeZone("GMT+5"))'),
        'new h.Holder().when(new java.text.SimpleDateFormat("yyyy-MM-dd HH"))',
    ),
    (
        "a JDK date format's leniency",
        WHEN,
        _after(WHEN, "String", "f.setLenient(false)"),
        'new h.Holder().when(new java.text.SimpleDateFormat("yyyy-MM-dd HH"))',
    ),
    (
        "a project date format's zone (its JDK calendar)",
        WHEN,
        _after(WHEN, "String", 'f.setTimeZone(java.util.TimeZone.getTimeZone("GMT+5"))'),
        "new h.Holder().when(new h.Holder.Fmt())",
    ),
    (
        "a decimal format's rounding",
        NUMBER,
        _after(NUMBER, "String", "f.setRoundingMode(java.math.RoundingMode.UP)"),
        'new h.Holder().number(new java.text.DecimalFormat("0"))',
    ),
    (
        "a decimal format's symbols",
        NUMBER,
        _after(
            NUMBER, "String", "f.setDecimalFormatSymbols(new java.text.DecimalFormatSymbols(java.util.Locale.GERMANY))"
        ),
        'new h.Holder().number(new java.text.DecimalFormat("0.0"))',
    ),
    (
        "a zone's offset",
        OFFSET,
        _after(OFFSET, "int", "z.setRawOffset(3_600_000)"),
        'new h.Holder().offset(java.util.TimeZone.getTimeZone("UTC"))',
    ),
    (
        "a calendar's time",
        HOUR,
        _after(HOUR, "int", "c.add(java.util.Calendar.HOUR_OF_DAY, 1)"),
        "new h.Holder().hour(new java.util.GregorianCalendar(2020, 0, 1, 5, 0))",
    ),
]


@pytest.mark.parametrize("name, fix, candidate, call", CHANGED, ids=[c[0] for c in CHANGED])
def test_a_change_a_caller_sees_in_a_copied_jdk_object_is_compared(runner, tmp_path, name, fix, candidate, call):
    run = probe(runner, tmp_path, candidate, fix, call, OWN_CLASSES)
    print(name, f"calls={run.calls} skipped={run.skipped} rows={len(run.observations)} uncopyable={run.uncopyable!r}")
    for o in run.observations[:2]:
        print("  input:", o.input, "| fix:", o.reference, "| candidate:", o.candidate)
    assert not run.error, run
    # safe: either the input is not copied (not-probed, as before the change), or the change shows in a row
    copied = run.calls == 1 and run.skipped == 0
    differs = any(o.candidate_digest != o.reference_digest for o in run.observations)
    assert not copied or differs, f"{name}: every row alike, the argument's change hidden: {run.observations[0]}"


FORMAT = """public String format(java.text.NumberFormat f, long n) {
    return f.format(n);
}"""
COMPACT = (
    "java.text.NumberFormat f = java.text.NumberFormat.getCompactNumberInstance("
    "java.util.Locale.US, java.text.NumberFormat.Style.SHORT)"
)


def test_the_candidate_s_copy_shares_nothing_with_the_test_s_own_objects(runner, tmp_path):
    # the candidate answers as the fix does, then rounds its copy of the format up; the fix never changes it, so
    # after the probe the test's own format must still say "1M" for 1,234,567 (it says "2M" when the change leaked)
    candidate = _after(FORMAT, "String", "f.setRoundingMode(java.math.RoundingMode.UP)")
    call = (
        f"{COMPACT}; new h.Holder().format(f, 1_234_567L); String after = f.format(1_234_567L); "
        'System.err.println("the test\'s own format now says " + after); '
        'if (!after.equals("1M")) throw new AssertionError("the candidate changed the test\'s own format: " + after)'
    )
    alone = probe(runner, tmp_path / "fix", FORMAT, FORMAT, call)  # the fix beside itself: nothing changes it
    assert not alone.error, alone
    run = probe(runner, tmp_path / "candidate", candidate, FORMAT, call)  # fails (harness exit 1) while it leaks
    assert not run.error, run
    # closed: only the JDK classes whose clone copies all a caller can change are cloned; this one is not copied
    assert run.calls == 0 and run.uncopyable == "java.text.CompactNumberFormat", run
    # nor does any later copy the fix runs on meet the candidate's rounding
    fix_outcomes = {o.input_digest: o.reference_digest for o in alone.observations}
    drifted = [
        o for o in run.observations if fix_outcomes.get(o.input_digest, o.reference_digest) != o.reference_digest
    ]
    assert not drifted, drifted


ZONE = """public java.util.TimeZone zone(String id) {
    return java.util.TimeZone.getTimeZone(id);
}"""


def test_a_returned_zone_s_offset_is_compared(runner, tmp_path):
    candidate = _after(ZONE, "java.util.TimeZone", "answer.setRawOffset(3_600_000)")
    run = probe(runner, tmp_path, candidate, ZONE, 'new h.Holder().zone("UTC")')
    assert not run.error and run.calls == 1, run
    print("zone:", run.observations[0].reference, "|", run.observations[0].candidate)
    assert any(o.candidate_digest != o.reference_digest for o in run.observations), run.observations[0]


SELF = """public int peek(java.util.concurrent.atomic.AtomicReference<Object> r) {
    return r.get() == r ? 1 : 0;
}"""


def test_held_an_atomic_reference_holding_itself(runner, tmp_path):
    call = (
        "java.util.concurrent.atomic.AtomicReference<Object> r = new java.util.concurrent.atomic.AtomicReference<>();"
        " r.set(r); new h.Holder().peek(r)"
    )
    same = probe(runner, tmp_path / "same", SELF, SELF, call)
    assert not same.error and same.calls == 1 and same.skipped == 0, same
    assert all(o.candidate_digest == o.reference_digest for o in same.observations), same
    assert same.observations[0].reference.startswith("return=1"), same.observations[0]  # the cycle is kept
    other = probe(runner, tmp_path / "other", SELF.replace("== r", "!= r"), SELF, call)
    assert any(o.candidate_digest != o.reference_digest for o in other.observations), other


OWN_FORMAT = """public static class Own extends java.text.Format {
    public StringBuffer format(Object o, StringBuffer b, java.text.FieldPosition p) {
        return b.append("own");
    }
    public Object parseObject(String s, java.text.ParsePosition p) {
        return null;
    }
}
"""
MESSAGE = """public String message(java.text.MessageFormat f) {
    return f.format(new Object[] {1});
}"""


def test_held_a_jdk_format_holding_a_project_s_is_not_cloned(runner, tmp_path):
    # the candidate would get the original loader's Own through MessageFormat#clone (which clones it by the
    # project's code): jdkOnly sees it and the input is not copied
    call = 'java.text.MessageFormat f = new java.text.MessageFormat("{0}"); f.setFormat(0, new h.Holder.Own()); '
    call += "new h.Holder().message(f)"
    run = probe(runner, tmp_path, MESSAGE, MESSAGE, call, OWN_FORMAT)
    assert run.calls == 0 and run.skipped == 1 and "MessageFormat" in run.uncopyable, run
