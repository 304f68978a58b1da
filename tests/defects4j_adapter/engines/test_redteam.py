"""The red-team corpus (``fixtures/redteam/``): candidates that try to buy a ``plausible`` by
forging the runner's report, crashing or exiting after forging it, hiding failures as skips,
swapping a test class, stealing the next job's key, or closing the class through Unicode
escapes; making javac recurse until it fails; preparing the JVM for the candidate judged next. Real
javac, real JVMs, real bubblewrap, both javac-based engines, under bubblewrap and in a container.
None may pass, and the candidate judged next gets its own verdict.
"""

from __future__ import annotations

import json

import pytest

from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Behaviour, Verdict
from nl2fix.dataset.load import load_dataset, open_dataset
from nl2fix.java_source.splice import method_header
from nl2fix.java_source.text import candidate_hash
from nl2fix.sampling import replay_format as replay
from nl2fix.store.run_store import RunStore
from nl2fix.validation.behaviour import label
from nl2fix.validation.verdicts import passing_on_fix, record_of
from tests.helpers.minibench import ATTACKS, IN_JVM_SANDBOXES, REDTEAM, body_of, engine_options, red_team_attack
from tests.helpers.redteam import verdict

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
    "method_reach_entry_point": {Verdict.UNCOMPILABLE},
}
REFUSED = {
    "assumption_skip": "org.junit.AssumptionViolatedException",
    "caller_inspection": "java.lang.Throwable#getStackTrace",
    "deserialized_object": "java.io.ObjectInputStream",
    "imageio_writer": "javax.imageio.stream.FileImageOutputStream#<init>(java.io.File)",
    "junit_package_class": "java.lang.invoke.MethodHandles#privateLookupIn",
    "junit_package_script": "javax.script.ScriptEngine",
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


def _engine(kind: str, cache, jvm_box, **options):
    return (FastEngine if kind == "fast" else RebuildEngine)(engine_options(cache, sandbox=jvm_box, **options))


@pytest.fixture(scope="module")
def fast(nl2fix_cache, jvm_box):
    made = _engine("fast", nl2fix_cache, jvm_box)
    yield made
    made.close()


@pytest.fixture(scope="module")
def rebuild(nl2fix_cache, jvm_box):
    return _engine("rebuild", nl2fix_cache, jvm_box)


def test_the_corpus_is_there():
    assert {
        "fd_out_forged_then_halt",
        "unsafe_crash",
        "steal_next_key",
        "define_test_class",
        "assumption_skip",
        "reflect_into_runner",
        "unicode_close_class",
        "unicode_comment_newline",
        "unicode_comment_return",
    } <= set(ATTACKS)
    assert LEAVES_FILES < {p.stem for p in NEXT.glob("*.body")}


def test_no_attack_passes_and_the_next_candidate_is_judged_on_its_own(fast, minibench):
    # one warm JVM after another: whatever an attack leaves behind meets the next candidate
    ws = fast.prepare(minibench.bugs["Mini-1"])
    fixed = verdict(fast, ws, ws.bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE and ws.trigger_tests[0] in fixed.passed_tests
    required = passing_on_fix(fixed)
    seen = {}
    for name in ATTACKS:
        record = verdict(fast, ws, red_team_attack(name, ws.bug), required)
        seen[name] = record.verdict
        assert record.verdict in NOT_A_PASS, (name, record)
        assert record.verdict in EXPECTED[name], (name, record)
        assert REFUSED.get(name, "") in record.detail and (
            record.verdict is not Verdict.REJECTED or record.failing_tests == []
        ), (name, record)
        # judged without the fixed version's list, so the report channel alone must hold
        after = verdict(fast, ws, ws.bug.buggy_method)
        assert after.verdict is Verdict.WRONG and after.failing_tests == [ws.trigger_tests[0]], (name, after)
    assert verdict(fast, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    print(seen)


@pytest.mark.parametrize(
    "name",
    ["fd_out_forged_then_halt", "exit_zero_without_guard", "unsafe_crash", "fake_result_files", "reflect_into_runner"],
)
def test_the_rebuild_engine_holds_too(rebuild, minibench, name):
    # a JVM per candidate: nothing carries over, but its report is read the same way
    ws = rebuild.prepare(minibench.bugs["Mini-1"])
    record = verdict(rebuild, ws, red_team_attack(name, ws.bug))
    # the detail in full: a harness error's words are cut from the record's own repr
    assert record.verdict in EXPECTED[name], (record.verdict, record.detail, record.compile_errors)


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
@pytest.mark.parametrize("name", [name for name in ATTACKS if name.startswith("unicode_")])
def test_a_class_closed_through_unicode_escapes_is_refused_before_javac(kind, name, fast, rebuild, minibench):
    # spliced as raw text, javac would compile these and the fix in them would pass
    engine = fast if kind == "fast" else rebuild
    ws = engine.prepare(minibench.bugs["Mini-1"])
    record = verdict(engine, ws, red_team_attack(name, ws.bug))
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
    assert verdict(engine, ws, fix).verdict is Verdict.PLAUSIBLE


def test_the_issue_s_reproduction_through_the_command_line(invoke_cli, nl2fix_cache, jvm_box, tmp_path):
    # `--backend replay` on Textkit-1 with forging patches, then `nl2fix validate` with both engines
    bug = open_dataset("example").bugs["Textkit-1"]
    forgeries = [red_team_attack(name, bug) for name in ("fd_out_forged_then_halt", "exit_zero_without_guard")]
    patches = tmp_path / "patches.json"
    patches.write_text(json.dumps({"Textkit-1": replay.entry("forge", [*forgeries, bug.fixed_method])}))
    run = tmp_path / "run"
    sampled = invoke_cli(
        "sample",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--backend",
        "replay",
        "--replay-file",
        patches,
        "-n",
        "3",
        "--run",
        run,
    )
    assert sampled.exit_code == 0, sampled.output
    for engine in ("fast", "rebuild"):
        validated = invoke_cli("validate", "--run", run, "--engine", engine, "--sandbox", jvm_box.name)
        assert validated.exit_code == 0, validated.output
        verdicts = {r.hash: r.verdict for r in RunStore(run).validations("Textkit-1", engine)}
        assert verdicts[candidate_hash(bug.fixed_method)] is Verdict.PLAUSIBLE
        assert [verdicts[candidate_hash(code)] for code in forgeries] == [Verdict.REJECTED, Verdict.REJECTED], engine


REFLECTIVE = REDTEAM / "reflective"
REFLECTIVE_ATTACKS = sorted(p.stem for p in REFLECTIVE.glob("*.body"))
WALLS = {
    # the runner wall each attack meets, by the words of the failure it causes
    "runner_state": "may not reflect into nl2fix.runner (ReflectionWall)",  # the module's wall behind it
    "live_frames": "may not read live stack frames",
    "forged_events": "JUnit event(s) itself",
    "interned_words": "",
    "unprintable_exception": "its stack trace could not be printed",
}


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_the_runner_s_own_walls_hold_where_reflection_is_allowed(kind, nl2fix_cache, jvm_box, beans):
    # every attack in turn, in one warm JVM (fast) or a JVM each (rebuild), with the fixed and the
    # buggy method judged after each: none passes, each meets its wall, and nothing carries over
    engine = _engine(kind, nl2fix_cache, jvm_box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    fixed = verdict(engine, ws, ws.bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE, fixed
    required = passing_on_fix(fixed)
    for name in REFLECTIVE_ATTACKS:
        outcome = engine.run(ws, red_team_attack(name, ws.bug, REFLECTIVE), stop_at_first_failure=True)
        record = record_of(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value, passes_on_fix=required)
        assert record.verdict is Verdict.WRONG, (name, record)
        assert WALLS[name] in " ".join([outcome.detail, *outcome.messages.values()]), (name, outcome)
        assert verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG, name
        assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
    engine.close()


HOLDOUT = REDTEAM / "holdout"


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_the_hold_out_corpus_gets_no_pass(kind, nl2fix_cache, jvm_box, minibench, beans):
    # attacks written after the walls, never used to tune them (fixtures/redteam/holdout/)
    for corpus, bug, projects in (
        (HOLDOUT / "plain", minibench.bugs["Mini-1"], None),
        (HOLDOUT / "reflective", beans, REDTEAM / "bench" / "projects"),
    ):
        engine = _engine(kind, nl2fix_cache, jvm_box, **({"projects_dir": projects} if projects else {}))
        ws = engine.prepare(bug)
        required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
        for name in sorted(p.stem for p in corpus.glob("*.body")):
            record = verdict(engine, ws, red_team_attack(name, ws.bug, corpus), required)
            assert record.verdict in NOT_A_PASS, (name, record)
            assert verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG, name
            assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
            print(kind, name, record.verdict.value, record.detail[:160])
        engine.close()


NEXT = REDTEAM / "next_candidate"
LEAVES_FILES = {"fill_tmp", "squat_folder"}
"""The attacks of ``NEXT`` on the folders a job leaves (the sandbox's temporary folder and working
directory, each a file system of the sandbox's making): walls the operating system keeps, judged in
every sandbox. The others change the JVM they run in or leave code running in it, a wall inside the
JVM (the runner's canary and lifetime checks, javac in a JVM of its own) that the same code keeps in
either sandbox: judged in ``IN_JVM_SANDBOXES``."""
IN_JVM = {param.values[0] for param in IN_JVM_SANDBOXES}


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_a_candidate_cannot_change_how_the_next_one_compiles(kind, nl2fix_cache, box, beans):
    # each attack of fixtures/redteam/next_candidate/ leaves the JVM it runs in changed (javac_tokens:
    # "==" reads as "!="), or code or files behind (its README); the fix with its loop condition
    # inverted, judged next, must stay wrong, and the fix plausible. The rebuild engine gives every
    # candidate a JVM and sandbox of its own: after each attack the fix alone shows that nothing
    # carried over (every judgement there starts a JVM)
    engine = _engine(kind, nl2fix_cache, box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
    inverted = ws.bug.fixed_method.replace("c != null", "c == null")
    assert inverted != ws.bug.fixed_method
    assert verdict(engine, ws, inverted, required).verdict is Verdict.WRONG
    for name in sorted(p.stem for p in NEXT.glob("*.body") if p.stem in LEAVES_FILES or box.name in IN_JVM):
        assert verdict(engine, ws, red_team_attack(name, ws.bug, NEXT), required).verdict is Verdict.WRONG, name
        if kind == "fast":
            assert verdict(engine, ws, inverted, required).verdict is Verdict.WRONG, name
        assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE, name
    engine.close()


COMPILER = REDTEAM / "compiler"


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_javac_failing_on_a_candidate_is_uncompilable_and_the_next_keeps_its_verdict(kind, fast, rebuild, minibench):
    # fixtures/redteam/compiler/: javac recursing until its stack runs out was a harness `error`
    engine = fast if kind == "fast" else rebuild
    ws = engine.prepare(minibench.bugs["Mini-1"])
    for name in sorted(p.stem for p in COMPILER.glob("*.body")):
        record = verdict(engine, ws, red_team_attack(name, ws.bug, COMPILER))
        assert record.verdict is Verdict.UNCOMPILABLE, (name, record)
        assert "javac itself failed on this file (java.lang.StackOverflowError)" in record.compile_errors, record
        assert verdict(engine, ws, ws.bug.buggy_method).verdict is Verdict.WRONG, name
        assert verdict(engine, ws, ws.bug.fixed_method).verdict is Verdict.PLAUSIBLE, name


PAIR = REDTEAM / "pair"


def test_a_candidate_s_probe_cannot_prepare_the_jvm_for_the_next_candidate(nl2fix_cache, jvm_box, beans):
    # the attack's order (fixtures/redteam/pair/): the first's behaviour probe, then the second's
    # validation; the JVM that ran the probe is no longer fresh, so the second's pass there is confirmed
    engine = _engine("fast", nl2fix_cache, jvm_box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    fix = ws.bug.fixed_method
    required = passing_on_fix(verdict(engine, ws, fix))
    prepares, profits = (red_team_attack(name, ws.bug, PAIR) for name in ("prepares", "profits"))
    baseline = engine.probe(ws, fix, fix)
    # the root logger's level is a change of JVM-wide state a caller sees and the fix does not make: its probe
    # stops at its first call, which diverges (BehaviourProbe.spoiledBy); the JVM is no fresh one after it
    first = label(baseline, engine.probe(ws, fix, prepares), developer_fix=True)
    assert first.label is Behaviour.DIVERGES and "changed JVM-wide state" in first.candidate_result, first
    record = verdict(engine, ws, profits, required)
    # the root logger's level the first set is put back after its probe (JdkState, Trust III), so the second
    # is the bug in the warm JVM already; before, it passed there and the fresh JVM decided
    assert record.verdict is Verdict.WRONG, record
    # its behaviour label is its own too: probed where the first's code never ran
    assert label(baseline, engine.probe(ws, fix, prepares), developer_fix=True).label is Behaviour.DIVERGES
    assert label(baseline, engine.probe(ws, fix, profits), developer_fix=True).label is Behaviour.DIVERGES
    assert verdict(engine, ws, fix, required).verdict is Verdict.PLAUSIBLE
    engine.close()


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_an_earlier_candidate_cannot_make_a_later_one_pass_or_time_out(kind, nl2fix_cache, jvm_box, beans):
    # the first of the pair validated, then one that passes and one that spins where it prepared the
    # JVM: a pass, and a time limit, from a JVM that ran other candidates' code are judged again in a
    # fresh one, which decides
    engine = _engine(kind, nl2fix_cache, jvm_box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
    prepares, profits, stalls = (red_team_attack(name, ws.bug, PAIR) for name in ("prepares", "profits", "stalls"))
    assert verdict(engine, ws, prepares, required).verdict is Verdict.PLAUSIBLE
    assert verdict(engine, ws, profits, required).verdict is Verdict.WRONG
    assert verdict(engine, ws, prepares, required).verdict is Verdict.PLAUSIBLE
    stalled = verdict(engine, ws, stalls, required)
    assert stalled.verdict is Verdict.PLAUSIBLE, stalled
    engine.close()


JUDGEMENT = REDTEAM / "judgement"
JUDGEMENT_ATTACKS = sorted(p.stem for p in JUDGEMENT.glob("*.body"))
HOW_IT_ENDED = {
    # the words of the failure each attack ends in, on JUnit 4 tests (Beans-1) and JUnit 3 tests (Beans-2)
    ("Beans-1", "empty_failures"): "threw org.junit.runners.model.MultipleFailureException carrying no failures",
    ("Beans-1", "nested_failures"): "threw org.junit.internal.runners.model.MultipleFailureException carrying no",
    ("Beans-1", "assumption"): "skipped",
    ("Beans-2", "empty_failures"): "org.junit.runners.model.MultipleFailureException",
    ("Beans-2", "nested_failures"): "org.junit.internal.runners.model.MultipleFailureException",
    ("Beans-2", "assumption"): "org.junit.internal.AssumptionViolatedException",
    ("Beans-1", "thread_death"): "java.lang.ThreadDeath",
    ("Beans-2", "thread_death"): "java.lang.ThreadDeath",
}


@pytest.mark.parametrize("kind", ["fast", "rebuild"])
def test_a_pass_is_nl2fix_s_own_judgement(kind, nl2fix_cache, jvm_box):
    # fixtures/redteam/judgement/: the test framework's own exceptions, made by deserialization on a
    # class that deserializes (Beans.copy), so that the class-file check lets them through. On JUnit 4
    # tests (Beans-1) empty_failures and nested_failures were plausible (JUnit reported no failure) and
    # assumption a skip; each is wrong, the skip also without the fixed version's list of passes (as
    # `nl2fix fix` judges). The rebuild engine starts its JVM apart: JUnit 4's two ways show it hooked
    bugs = load_dataset(REDTEAM / "bench" / "nl2fix_dataset.json").bugs
    engine = _engine(kind, nl2fix_cache, jvm_box, projects_dir=REDTEAM / "bench" / "projects", candidate_timeout=60.0)
    for bug_id in ("Beans-1", "Beans-2") if kind == "fast" else ("Beans-1",):
        ws = engine.prepare(bugs[bug_id])
        fixed = verdict(engine, ws, ws.bug.fixed_method)
        assert fixed.verdict is Verdict.PLAUSIBLE, fixed
        required = passing_on_fix(fixed)
        for name in JUDGEMENT_ATTACKS if kind == "fast" else ("empty_failures", "assumption"):
            attack = red_team_attack(name, ws.bug, JUDGEMENT)
            # a skip is held to the fixed version's passes; without them, a skipped trigger is the runner's to fail
            for asked in (required, frozenset()) if kind == "fast" and name == "assumption" else (required,):
                record = verdict(engine, ws, attack, asked)
                assert record.verdict is Verdict.WRONG, (bug_id, name, record)
                assert ws.trigger_tests[0] in record.failing_tests, (bug_id, name, record)
                assert HOW_IT_ENDED[bug_id, name] in record.detail, (bug_id, name, record)
            print(kind, bug_id, name, record.detail[:200])
        if kind == "fast":
            assert verdict(engine, ws, ws.bug.buggy_method, required).verdict is Verdict.WRONG
            assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    engine.close()


def test_without_a_sandbox_the_job_s_folders_are_emptied_too(nl2fix_cache, beans):
    # --sandbox none: the warm JVM's temporary folder and working directory are folders of its own on
    # the host (the sandbox's scratch), emptied after every job as a tmpfs is; what a job left there,
    # a read-only folder included, is gone before the next one, and the JVM takes it
    engine = _engine("fast", nl2fix_cache, make_sandbox("none"), projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
    assert verdict(engine, ws, red_team_attack("squat_folder", ws.bug, NEXT), required).verdict is Verdict.WRONG
    jvms = [jvm for jvms in engine._warm.idle.values() for jvm in jvms]
    assert jvms, "the JVM that ran the attack takes the next candidate"
    for jvm in jvms:
        scratch = jvm.mounts.host_scratch
        assert list((scratch / "tmp").iterdir()) == []
        assert sorted(p.name for p in (scratch / "cwd").iterdir() if not p.is_symlink()) == []
    assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    engine.close()


def test_a_job_that_changed_the_runner_s_own_thread_retires_its_jvm(nl2fix_cache, jvm_box, beans):
    # the canary covers the runner's own words and thread, not only the JDK's interned literals
    engine = _engine("fast", nl2fix_cache, jvm_box, projects_dir=REDTEAM / "bench" / "projects")
    ws = engine.prepare(beans)
    required = passing_on_fix(verdict(engine, ws, ws.bug.fixed_method))
    assert [jvm for jvms in engine._warm.idle.values() for jvm in jvms], "a JVM waits for the next candidate"
    assert verdict(engine, ws, red_team_attack("runner_thread", ws.bug, NEXT), required).verdict is Verdict.WRONG
    assert [jvm for jvms in engine._warm.idle.values() for jvm in jvms] == [], "the JVM it ran in is retired"
    assert verdict(engine, ws, ws.bug.fixed_method, required).verdict is Verdict.PLAUSIBLE
    engine.close()
