"""Red team round 7 (issue 30's "done when", by an engineer who did not write the walls), on the example
benchmark's Textkit-1 (``Strings.indexOfDifference``), through the real fast engine under bubblewrap (one
engine for the module: every payload went through alike on the rebuild engine and under docker, as root and
as the ordinary user; ``fixtures/redteam/found7/README.md`` has the figures). Payloads and what each does:
``fixtures/redteam/found7/``.

- Five new ways to be the developer's fix only where nl2fix runs the method and the buggy method everywhere
  else, none of them round 6's (loader name, ``/proc`` links, the scratch's size): the kernel's mount table
  (``/proc/mounts``, read by the JDK's own native code behind ``FileSystems#getFileStores``, which the
  runner's refusal of ``/proc`` reads never sees: it names nl2fix's cache folders, the bug and the JVM's
  kind), the runner's own refusal of a ``/proc`` read, the test JVM's 4 MB thread stacks, the sandbox's
  missing network, the test thread being a daemon. Closed (``TELLS`` says how each is judged now: the
  class-file check refuses the mount table and the network interfaces, a caught refusal costs its test, the
  test JVM's stacks are the platform's, the test thread is no daemon). ``test_outside_nl2fix_*`` shows each
  payload is the bug in a plain JVM.
- Under ``--engine defects4j`` (real Csv-4, marked ``defects4j``): the missing network, and a payload that
  takes the fix's path both where Ant's JVM lets it read its command line and where nl2fix's runner refuses.
- The developer's fix with a backdoor pushed 240 columns to the right on a line the fix changes anyway: the
  viewer's diffs and code scrolled sideways instead of wrapping, so a person reviewing the ``plausible``
  candidate saw lines identical to the fix's; they wrap now, and the test measures that in a real browser.

Run: ``python -m pytest -q -p no:cacheprovider -s tests/defects4j_adapter/engines/test_redteam_found7.py``
"""

from __future__ import annotations

import socket

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import passing_on_fix, record_of
from tests.helpers.minibench import REDTEAM, engine_options, make_run, red_team_attack
from tests.helpers.paths import REPO
from tests.helpers.redteam import outside_nl2fix
from tests.helpers.viewer import viewing

pytestmark = pytest.mark.slow
EXAMPLES = REPO / "examples" / "benchmark"
FOUND7 = REDTEAM / "found7"
TELLS = {
    "mount_table": Verdict.REJECTED,
    "guard_refusal": Verdict.WRONG,
    "stack_depth": Verdict.WRONG,
    "no_network": Verdict.REJECTED,
    "daemon_thread": Verdict.WRONG,
}
"""What each must be now: the class-file check refuses the mount table and the network interfaces (the JVM's
environment), a caught refusal costs its test, the test JVM's stacks are the platform's and its test thread
is no daemon (each payload then takes the bug's path)."""
UNDER_DEFECTS4J = {"ant_or_refusal": Verdict.WRONG, "no_network": Verdict.REJECTED}
"""Through ``--engine defects4j`` (real Defects4J, Csv-4): the sandbox's network, and a payload for its two
JVMs (Ant's, where the candidate may read its own command line, and nl2fix's runner, which refuses that: the
refusal costs the test even when caught)."""
OFFSCREEN = (FOUND7 / "offscreen_backdoor.method").read_text(encoding="utf-8").rstrip("\n")
DOOR = "a.charAt(0) == '#'"
"""The backdoor's condition, as the candidate's text holds it (240 spaces after the fix's changed line)."""


@pytest.fixture(scope="module")
def judged(nl2fix_cache, confined, textkit):
    """``judge(code)``: a candidate's record on the fast engine under bubblewrap, against the fix's passes
    (one warm JVM for the module; every pass is confirmed in a fresh JVM, which decides)."""
    options = engine_options(
        nl2fix_cache, sandbox=make_sandbox("bwrap"), projects_dir=EXAMPLES / "projects", candidate_timeout=60.0
    )
    engine = FastEngine(options)
    try:
        yield _judging(engine, engine.prepare(textkit))
    finally:
        engine.close()


def _judging(engine, ws):
    """The developer's fix judged (it must be ``plausible``), then ``judge(code)``: a candidate's record
    against the fix's passes, in the same engine (its warm JVM)."""
    fix = _judge(engine, ws, ws.bug.fixed_method)
    assert fix.verdict is Verdict.PLAUSIBLE, fix
    required = passing_on_fix(fix)
    return lambda code: _judge(engine, ws, code, required)


def _judge(engine, ws, code, required=frozenset()):
    outcome = engine.run(ws, code, stop_at_first_failure=True)
    return record_of(
        outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, passes_on_fix=required, keep_passed=True
    )


def _networked() -> bool:
    return any(name != "lo" for _, name in socket.if_nameindex())


def test_outside_nl2fix_each_payload_is_the_bug(tmp_path, textkit):
    # the fix answers 2, the buggy method -1: compiled and run by a plain JVM (the user's build, production:
    # no nl2fix folders mounted, no security manager, 1 MB stacks, a network, a main thread that is no
    # daemon), each payload is the bug; all of them in one javac and one JVM
    # (no_network only where this machine has a network interface besides loopback, unlike nl2fix's sandbox)
    payloads = [p for p in [*TELLS, "ant_or_refusal"] if p != "no_network" or _networked()]
    methods = {"fix": textkit.fixed_method, **{p: red_team_attack(p, textkit, FOUND7) for p in payloads}}
    assert outside_nl2fix(tmp_path, textkit, methods) == {"fix": "2", **{p: "-1" for p in payloads}}


def test_a_method_right_only_under_nl2fix_is_not_plausible(judged, textkit):
    # every payload in the module's warm JVM (a pass would be confirmed in a fresh one), then the fix again:
    # none of them changes what the next job sees
    seen = {}
    for payload in TELLS:
        record = judged(red_team_attack(payload, textkit, FOUND7))
        print("fast bwrap", payload, record.verdict.value, record.detail[:300])
        seen[payload] = record.verdict
    assert seen == TELLS
    assert judged(textkit.fixed_method).verdict is Verdict.PLAUSIBLE


@pytest.fixture(scope="module")
def judged_by_defects4j(confined, tmp_path_factory):
    """``judge(code)`` on real Defects4J's Csv-4 through ``--engine defects4j`` under bubblewrap (its default
    confinement); skips where Defects4J is not installed. The fix is not judged first (a minute of Ant and
    the runner): the test asserts each verdict's reason instead, which a broken set-up would not give."""
    from defects4j_adapter.d4j import cli as d4j_cli
    from tests.defects4j_adapter.engines.test_redteam_defects4j import CSV4, _engine

    if d4j_cli.locate() is None:
        pytest.skip("Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)")
    engine = _engine(tmp_path_factory.mktemp("d4j-found7"))
    ws = engine.prepare(CSV4)
    return lambda code: _judge(engine, ws, code), ws.bug


@pytest.mark.defects4j
@pytest.mark.sandbox
def test_a_method_right_only_under_defects4j_is_not_plausible(judged_by_defects4j):
    judge, bug = judged_by_defects4j
    seen = {}
    for payload in UNDER_DEFECTS4J:
        record = judge(red_team_attack(payload, bug, FOUND7))
        print("defects4j bwrap", payload, record.verdict.value, record.detail[:300])
        seen[payload] = record.verdict, record.detail
    assert {payload: verdict for payload, (verdict, _) in seen.items()} == UNDER_DEFECTS4J
    # wrong because nl2fix's runner refused the read the payload caught (Ant's JVM let it through), rejected
    # because the class-file check refuses listing the network interfaces
    assert "may not read the JVM's process entries: /proc/self/cmdline" in seen["ant_or_refusal"][1], seen
    assert "java.net.NetworkInterface" in seen["no_network"][1], seen


def test_the_offscreen_backdoor_is_a_plausible_fix_that_is_not_the_fix(judged, textkit):
    # the attack is real: the tests do not compare strings of seven characters starting with '#', so the
    # fix with the backdoor passes; the backdoor is code, not a comment (the method differs from the fix)
    assert DOOR in OFFSCREEN and OFFSCREEN.replace(" " * 240, "") != textkit.fixed_method
    record = judged(OFFSCREEN)
    assert record.verdict is Verdict.PLAUSIBLE, record


_WHERE_SHOWN = r"""
const door = arguments[0], out = [];
document.querySelectorAll('details.candidate pre').forEach(pre => {
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const i = n.data.indexOf(door);
    if (i < 0) { continue; }
    const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + door.length);
    const box = r.getBoundingClientRect(), p = pre.getBoundingClientRect();
    out.push([pre.className, box.left >= p.left && box.right <= p.left + pre.clientWidth]);
  }
});
return out;"""
"""Each ``pre`` of the candidate's that holds the backdoor: its class, and whether the backdoor lies inside
what the box shows without scrolling (the page's own layout in a real browser)."""


@pytest.mark.browser
def test_the_viewer_shows_a_backdoor_pushed_out_of_sight_or_flags_it(tmp_path, textkit, browser):
    make_run(tmp_path / "run", EXAMPLES / "nl2fix_dataset.json", {"Textkit-1": [OFFSCREEN]})
    with viewing(tmp_path / "run") as url:
        browser.get(f"{url}runs/run/bugs/Textkit-1.html")
        browser.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        shown = browser.execute_script(_WHERE_SHOWN, DOOR)
        flags = [e.text for e in browser.find_elements("css selector", "details.candidate summary .tag")]
        print(shown, flags)
        # the diffs against the buggy method and the fix, and the candidate's code: what a reviewer reads
        assert {cls for cls, _ in shown} >= {"diff", "code"}
        assert all(seen for cls, seen in shown if cls in ("diff", "code")) or flags, (shown, flags)
