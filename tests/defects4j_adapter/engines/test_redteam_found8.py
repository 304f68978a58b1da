"""Red team round 8 (issue 30's "done when", by an engineer who did not write the walls), on the example
benchmark's Textkit-1 (``Strings.indexOfDifference``), through the real fast engine under bubblewrap (one
engine and one warm JVM for the module; ``fixtures/redteam/found8/README.md`` has the figures for the other
engines, sandboxes and ``--engine defects4j``). Payloads and what each does: ``fixtures/redteam/found8/``.

Six more ways to be the developer's fix only where nl2fix runs the method and the buggy method everywhere
else, each through something the threat model lists as "still observable" (turned into a pass here) or does
not list at all: the heap's ceiling (``Runtime#maxMemory``), the test thread's id (a thread named ``main``
that is not the JVM's first), the job loader's ``@<id>`` in a ``ClassCastException``'s message, bubblewrap's
root folder (no ``/var``), the JVM's own pid (``/proc/self`` canonicalised), the sandbox's fixed time zone.
And a reader fooled: the developer's fix plus a backdoor behind a second loop variable named ``i`` + U+0307
(COMBINING DOT ABOVE): on a soft-dotted letter the font draws the one dot, so the code reads ``return i < 0 ?
i : i;`` and no character is flagged (a combining mark is neither hidden nor a look-alike of another script).
``test_outside_nl2fix_each_payload_is_the_bug`` shows each payload is the bug in a plain JVM.

Closed (walls10): the dotted i (a combining mark is flagged and escaped like a hidden character) and the
root folder (bubblewrap's root holds a Linux system's top-level folders, empty). Closed (walls9, ids13): the
heap's ceiling, the pid and the thread's id (the class-file check refuses ``Runtime#maxMemory``,
``File#getCanonicalPath``, ``Thread#getId``), and the job loader's ``@<id>`` (the runner names the job's
loader in the JVM's messages as the JDK's application loader is named, ``loader 'app'``: ``LoaderName.java``).
Agreement, not a hole: the time zone and ``loader_any`` under ``--engine defects4j`` are what Defects4J's own
run shows too (its ``TZ=America/Los_Angeles``; Ant's ``AntClassLoader @<id>``), so there the payload is the
fix and ``plausible`` is Defects4J's verdict: their tests assert that.

Run: ``python -m pytest -q -p no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found8.py``
"""

from __future__ import annotations

import pytest

from nl2fix.core.domain import Verdict
from nl2fix.core.visible_text import hidden_characters, visible
from tests.helpers.minibench import REDTEAM, make_run, red_team_attack
from tests.helpers.paths import REPO
from tests.helpers.redteam import fix_guarded, outside_nl2fix, verdict
from tests.helpers.viewer import viewing

pytestmark = pytest.mark.slow
EXAMPLES = REPO / "examples" / "benchmark"
FOUND8 = REDTEAM / "found8"
TELLS = {
    "heap_size": Verdict.REJECTED,
    "thread_id": Verdict.REJECTED,
    "loader_id": Verdict.WRONG,
    "root_listing": Verdict.WRONG,
    "own_pid": Verdict.REJECTED,
}
"""Each was ``plausible`` on fast/bwrap as found (and on the rebuild engine and docker: the README), and what it
gets now: ``rejected`` where the class-file check refuses what it tells by (``Runtime#maxMemory``,
``Thread#getId``, ``File#getCanonicalPath``), ``wrong`` where nl2fix's JVM now shows what a plain one does (the
buggy method's path: bubblewrap's root has ``/var``; the job's loader prints as ``loader 'app'``)."""
AS_DEFECTS4J = ("time_zone",)
"""What Defects4J's own run shows as well (its ``env.sh`` sets ``TZ=America/Los_Angeles``; some of its
tests depend on it): there such a payload is the fix, so ``plausible`` agrees with the reference, the run
every verdict is measured against. Not a hole."""
UNDER_DEFECTS4J = ("loader_any",)
"""Through ``--engine defects4j`` (real Csv-4): a tell Defects4J's own run shows (Ant defines the project's
classes in its ``AntClassLoader @<id>``), so there the payload is the fix and ``plausible`` agrees with
Defects4J. One payload keeps the file cheap: each candidate there is an Ant run and a runner's re-run."""
DEFECTS4J_ZONE = "America/Los_Angeles"
"""The zone Defects4J's ``env.sh`` sets for its runs (and nl2fix's sandboxes for every job)."""
DOTTED = (FOUND8 / "dotted_i.method").read_text(encoding="utf-8").rstrip("\n")
"""The fix, whose loop returns ``i̇`` (-1) instead of ``i`` for seven-character strings starting with '#'."""


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit):
    """``judge(code)``: a candidate's record on the fast engine under bubblewrap, against the fix's passes
    (:func:`fix_guarded`: one warm JVM for the module, the fix judged before and after the payloads)."""
    with fix_guarded(nl2fix_cache, textkit) as (engine, ws, required):
        yield lambda code: verdict(engine, ws, code, required)


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit, monkeypatch):
    # the fix answers 2, the buggy method -1: compiled and run by a plain JVM on this machine (its default
    # heap, its main thread, the JDK's application loader, the machine's root folder and pid), each tell is
    # the bug; all of them in one javac and one JVM. In Defects4J's environment (its time zone), as the
    # reference runs: there time_zone is the fix, as it is under nl2fix
    monkeypatch.setenv("TZ", DEFECTS4J_ZONE)
    payloads = sorted({*TELLS, *AS_DEFECTS4J, *UNDER_DEFECTS4J})
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND8) for p in payloads}}
    expected = {p: "2" if p in AS_DEFECTS4J else "-1" for p in payloads}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **expected}


@pytest.mark.parametrize("payload", TELLS)
def test_a_method_right_only_under_nl2fix_gets_what_the_bug_gets_and_the_fix_after_it_is_plausible(
    judged, textkit, payload
):
    # the buggy method's verdict (the fix's path not taken) or the class-file check's refusal; then the developer's
    # fix in the same warm JVM: nothing of the payload's changed what it gets
    record = judged(red_team_attack(payload, textkit, FOUND8))
    print("fast bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is TELLS[payload], record
    assert record.verdict is not Verdict.WRONG or "expected:<ab[]> but was:<ab[c]>" in record.detail, record
    assert judged(textkit.fixed_method).verdict is Verdict.PLAUSIBLE


@pytest.fixture(scope="module")
def judged_by_defects4j(confined, tmp_path_factory):
    """``judge(code)`` on real Defects4J's Csv-4 through ``--engine defects4j`` under bubblewrap (its default
    confinement); skips where Defects4J is not installed."""
    from defects4j_adapter.d4j import cli as d4j_cli
    from tests.defects4j_adapter.engines.test_redteam_defects4j import CSV4, _engine

    if d4j_cli.locate() is None:
        pytest.skip("Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)")
    engine = _engine(tmp_path_factory.mktemp("d4j-found8"))
    ws = engine.prepare(CSV4)
    return lambda code: verdict(engine, ws, code), ws.bug


@pytest.mark.parametrize("payload", AS_DEFECTS4J)
def test_a_method_right_where_defects4j_runs_it_is_plausible_as_there(judged, textkit, payload):
    # the fix in Defects4J's own run (the outside check above, in its zone) and under nl2fix: the verdicts agree
    record = judged(red_team_attack(payload, textkit, FOUND8))
    assert record.verdict is Verdict.PLAUSIBLE, record


@pytest.mark.defects4j
@pytest.mark.sandbox
@pytest.mark.parametrize("payload", UNDER_DEFECTS4J)
def test_a_method_right_only_under_defects4j_s_own_run_is_wrong_in_nl2fix_s_confirmation(judged_by_defects4j, payload):
    # the engine's verdict is Defects4J's own run (Ant's `defects4j test`, where the payload takes the fix's
    # path: AntClassLoader @<id>) confirmed by nl2fix's runner, whose job loader prints as a plain JVM's
    # (`loader 'app'`, no id): there the payload is the bug, as in a plain run, and the engine says so
    judge, bug = judged_by_defects4j
    record = judge(red_team_attack(payload, bug, FOUND8))
    print("defects4j bwrap", payload, record.verdict.value, record.detail[:300])
    assert record.verdict is Verdict.WRONG, record
    assert "Defects4J counts 1 failing test(s) fewer" in record.detail, record.detail


def test_the_dotted_i_is_a_plausible_fix_that_is_not_the_fix(judged, textkit):
    # the attack is real: a second variable, i + U+0307, which Java takes in a name; the tests compare no
    # seven-character strings starting with '#', so it passes
    assert "i\u0307" in DOTTED and DOTTED.replace("i\u0307", "i") != textkit.fixed_method
    record = judged(DOTTED)
    assert record.verdict is Verdict.PLAUSIBLE, record


def test_a_dotted_i_in_a_name_is_flagged_wherever_the_candidate_is_shown():
    # the flag every listing, report, export and `nl2fix fix --apply` go by (a terminal would show the mark
    # on the i as the i's own dot, as the browser does): the mark is escaped wherever it is shown
    assert hidden_characters(DOTTED) == {"\u0307": DOTTED.count("\u0307")}
    assert "return i\\u0307 < 0 ? i\\u0307 : i;" in visible(DOTTED)


@pytest.mark.browser
def test_the_viewer_shows_a_dotted_i_escaped_and_flags_it(tmp_path, browser):
    make_run(tmp_path / "run", EXAMPLES / "nl2fix_dataset.json", {"Textkit-1": [DOTTED]})
    with viewing(tmp_path / "run") as url:
        browser.get(f"{url}runs/run/bugs/Textkit-1.html")
        browser.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        flags = [e.text for e in browser.find_elements("css selector", "details.candidate summary .tag")]
        code = browser.find_element("css selector", "details.candidate pre.code").text
        print(flags, code)
        # the candidate is flagged, and its code shows the mark as an escape
        assert flags and "return i\\u0307 < 0 ? i\\u0307 : i;" in code, (flags, code)
