"""The red-team corpus (``fixtures/redteam/``): candidates that try to buy a ``plausible`` by
forging the runner's report, crashing or exiting after forging it, hiding failures as skips,
swapping a test class, stealing the next job's key, or closing the class through Unicode
escapes. Real javac, real JVMs, real bubblewrap, both javac-based engines, under bubblewrap and in
a container. None may pass, and the candidate judged next gets its own verdict.
"""

from __future__ import annotations

import json

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Verdict
from nl2fix.dataset.load import load_dataset, open_dataset
from nl2fix.java_source.splice import method_header
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling import replay_format as replay
from nl2fix.store.run_store import RunStore
from nl2fix.validation.verdicts import judge, required_of
from tests.helpers.minibench import ATTACKS, REDTEAM, SANDBOXES, body_of, engine_options, red_team_attack

pytestmark = pytest.mark.slow
NOT_A_PASS = {Verdict.WRONG, Verdict.TIMEOUT, Verdict.UNCOMPILABLE, Verdict.REJECTED}
EXPECTED = {
    # what each attack ends in (the README's table): every attack reaches for something the
    # class-file check refuses (what, below) ...
    **{name: {Verdict.REJECTED} for name in ATTACKS},
    # ... or, where javac reads them, its braces close the class: refused at the splice
    **{name: {Verdict.UNCOMPILABLE} for name in ATTACKS if name.startswith("unicode_")},
    # ... or it names the runner, whose package is on no candidate's class path (and which the
    # class-file check refuses where it could be compiled: test_check)
    "probe_entry_points": {Verdict.UNCOMPILABLE},
}
REFUSED = {
    "assumption_skip": "org.junit.AssumptionViolatedException",
    "caller_inspection": "java.lang.Throwable#getStackTrace",
    "deserialized_object": "java.io.ObjectInputStream",
    "imageio_writer": "javax.imageio.stream.FileImageOutputStream#<init>(java.io.File)",
    "xslt_writer": "javax.xml.transform.Transformer#transform",
    "define_test_class": "java.lang.reflect.Method#invoke",
    "empty_result_files": "java.lang.Runtime#addShutdownHook",
    "exit_zero_without_guard": "java.lang.System#exit",
    "fake_result_files": "java.io.FileWriter",
    "fd_err_forged": "java.lang.System#setOut",
    "fd_out_forged_then_halt": "java.lang.Runtime#halt",
    "printing_thread": "java.lang.ThreadGroup",
    "reflect_into_runner": "#setAccessible",
    "steal_next_key": "java.lang.ThreadGroup",
    "unsafe_crash": "#setAccessible",
}
"""The reference each rejected attack is refused for (the first the policy's order names)."""


@pytest.fixture(scope="module", params=SANDBOXES)
def box(request):
    if request.param == "bwrap":
        request.getfixturevalue("confined")
    return make_sandbox(request.param)


def _engine(kind: str, cache, box, **options):
    return (FastEngine if kind == "fast" else RebuildEngine)(engine_options(cache, sandbox=box, **options))


@pytest.fixture(scope="module")
def fast(nl2fix_cache, box):
    made = _engine("fast", nl2fix_cache, box)
    yield made
    made.close()


@pytest.fixture(scope="module")
def rebuild(nl2fix_cache, box):
    return _engine("rebuild", nl2fix_cache, box)


def _verdict(engine, ws, code, required=frozenset()):
    outcome = engine.run(ws, code, stop_at_first_failure=True)
    return judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, required=required, keep_passed=True)


def test_the_corpus_is_there():
    assert {"fd_out_forged_then_halt", "unsafe_crash", "steal_next_key", "define_test_class",
            "assumption_skip", "reflect_into_runner", "unicode_close_class", "unicode_comment_newline",
            "unicode_comment_return"} <= set(ATTACKS)


def test_no_attack_passes_and_the_next_candidate_is_judged_on_its_own(fast, minibench):
    # one warm JVM after another: whatever an attack leaves behind meets the next candidate
    ws = fast.prepare(minibench.bugs["Mini-1"])
    fixed = _verdict(fast, ws, ws.bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE and ws.trigger_tests[0] in fixed.passed_tests
    required = required_of(fixed)
    seen = {}
    for name in ATTACKS:
        record = _verdict(fast, ws, red_team_attack(name, ws.bug), required)
        seen[name] = record.verdict
        assert record.verdict in NOT_A_PASS, (name, record)
        assert record.verdict in EXPECTED[name], (name, record)
        assert REFUSED.get(name, "") in record.detail and (record.verdict is not Verdict.REJECTED
                                                         or record.failing_tests == []), (name, record)
        # judged without the fixed version's list, so the report channel alone must hold
        after = _verdict(fast, ws, ws.bug.buggy_method)
        assert after.verdict is Verdict.WRONG and after.failing_tests == [ws.trigger_tests[0]], (name, after)
    assert _verdict(fast, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    print(seen)


@pytest.mark.parametrize("name", ["fd_out_forged_then_halt", "exit_zero_without_guard", "unsafe_crash",
                                  "fake_result_files", "reflect_into_runner"])
def test_the_rebuild_engine_holds_too(rebuild, minibench, name):
    # a JVM per candidate: nothing carries over, but its report is read the same way
    ws = rebuild.prepare(minibench.bugs["Mini-1"])
    record = _verdict(rebuild, ws, red_team_attack(name, ws.bug))
    assert record.verdict in EXPECTED[name], record


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
@pytest.mark.parametrize("name", [name for name in ATTACKS if name.startswith("unicode_")])
def test_a_class_closed_through_unicode_escapes_is_refused_before_javac(kind, name, fast, rebuild, minibench):
    # spliced as raw text, javac would compile these and the fix in them would pass
    engine = fast if kind == "fast" else rebuild
    ws = engine.prepare(minibench.bugs["Mini-1"])
    record = _verdict(engine, ws, red_team_attack(name, ws.bug))
    assert record.verdict is Verdict.UNCOMPILABLE and "braces do not balance" in record.compile_errors, record


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_unicode_escapes_in_literals_still_compile_and_pass(kind, fast, rebuild, minibench):
    # they reach javac translated: read with its backslashes doubled, the string would be 21 characters long
    engine = fast if kind == "fast" else rebuild
    ws = engine.prepare(minibench.bugs["Mini-1"])
    check = r"""
        if ("caf\u00e9\ud83d\ude00".length() != 6 || '\u0041' != 'A') {
            throw new IllegalStateException("escapes misread");
        }"""
    fix = f"{method_header(ws.bug.buggy_method)} {{{check}{body_of(ws.bug.fixed_method)}}}"
    assert _verdict(engine, ws, fix).verdict is Verdict.PLAUSIBLE


def test_the_issue_s_reproduction_through_the_command_line(invoke_cli, nl2fix_cache, box, tmp_path):
    # `--backend replay` on Textkit-1 with forging patches, then `nl2fix validate` with both engines
    bug = open_dataset("example").bugs["Textkit-1"]
    forgeries = [red_team_attack(name, bug) for name in ("fd_out_forged_then_halt", "exit_zero_without_guard")]
    patches = tmp_path / "patches.json"
    patches.write_text(json.dumps({"Textkit-1": replay.entry("forge", [*forgeries, bug.fixed_method])}))
    run = tmp_path / "run"
    sampled = invoke_cli("sample", "--dataset", "example", "--bug", "Textkit-1", "--backend", "replay",
                         "--replay-file", patches, "-n", "3", "--run", run)
    assert sampled.exit_code == 0, sampled.output
    for engine in ("fast", "rebuild"):
        validated = invoke_cli("validate", "--run", run, "--engine", engine, "--sandbox", box.name)
        assert validated.exit_code == 0, validated.output
        verdicts = {r.hash: r.verdict for r in RunStore(run).validations("Textkit-1", engine)}
        assert verdicts[candidate_hash(bug.fixed_method)] is Verdict.PLAUSIBLE
        assert [verdicts[candidate_hash(code)] for code in forgeries] == [Verdict.REJECTED, Verdict.REJECTED], engine


REFLECTIVE = REDTEAM / "reflective"
REFLECTIVE_ATTACKS = sorted(p.stem for p in REFLECTIVE.glob("*.body"))
WALLS = {
    # the runner wall each attack meets, by the words of the failure it causes
    "runner_state": "module nl2fix.runner does not",
    "live_frames": "may not read live stack frames",
    "forged_events": "JUnit event(s) itself",
    "interned_words": "",
    "unprintable_exception": "its stack trace could not be printed",
}


@pytest.fixture(scope="module")
def beans():
    """``Beans-1`` (``fixtures/redteam/bench``): a class that already uses deep reflection."""
    return load_dataset(REDTEAM / "bench" / "nl2fix_dataset.json").bugs["Beans-1"]


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_the_runner_s_own_walls_hold_where_reflection_is_allowed(kind, nl2fix_cache, box, beans):
    # every attack in turn, in one warm JVM (fast) or a JVM each (rebuild), with the fixed and the
    # buggy method judged after each: none passes, each meets its wall, and nothing carries over
    engine = _engine(kind, nl2fix_cache, box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    fixed = _verdict(engine, ws, ws.bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE, fixed
    required = required_of(fixed)
    for name in REFLECTIVE_ATTACKS:
        outcome = engine.run(ws, red_team_attack(name, ws.bug, REFLECTIVE), stop_at_first_failure=True)
        record = judge(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, required=required)
        assert record.verdict is Verdict.WRONG, (name, record)
        assert WALLS[name] in " ".join([outcome.detail, *outcome.messages.values()]), (name, outcome)
        assert _verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG, name
        assert _verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
    engine.close()


HOLDOUT = REDTEAM / "holdout"


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_the_hold_out_corpus_gets_no_pass(kind, nl2fix_cache, box, minibench, beans):
    # attacks written after the walls, never used to tune them (fixtures/redteam/holdout/)
    for corpus, bug, projects in ((HOLDOUT / "plain", minibench.bugs["Mini-1"], None),
                                  (HOLDOUT / "reflective", beans, REDTEAM / "bench" / "projects")):
        engine = _engine(kind, nl2fix_cache, box, **({"projects_dir": projects} if projects else {}))
        ws = engine.prepare(bug)
        required = required_of(_verdict(engine, ws, ws.bug.fixed_method))
        for name in sorted(p.stem for p in corpus.glob("*.body")):
            record = _verdict(engine, ws, red_team_attack(name, ws.bug, corpus), required)
            assert record.verdict in NOT_A_PASS, (name, record)
            assert _verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG, name
            assert _verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
            print(kind, name, record.verdict.value, record.detail[:160])
        engine.close()


NEXT = REDTEAM / "next_candidate"


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_a_candidate_cannot_change_how_the_next_one_compiles(kind, nl2fix_cache, box, beans):
    # each attack of fixtures/redteam/next_candidate/ leaves the JVM it runs in changed (javac_tokens:
    # "==" reads as "!="); the fix with its loop condition inverted, judged next, must stay wrong, and
    # the fix plausible
    engine = _engine(kind, nl2fix_cache, box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    required = required_of(_verdict(engine, ws, ws.bug.fixed_method))
    inverted = ws.bug.fixed_method.replace("c != null", "c == null")
    assert inverted != ws.bug.fixed_method
    assert _verdict(engine, ws, inverted, required).verdict is Verdict.WRONG
    for name in sorted(p.stem for p in NEXT.glob("*.body")):
        assert _verdict(engine, ws, red_team_attack(name, ws.bug, NEXT), required).verdict is Verdict.WRONG, name
        assert _verdict(engine, ws, inverted, required).verdict is Verdict.WRONG, name
        assert _verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
    engine.close()
