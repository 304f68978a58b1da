"""The fast and rebuild engines compile and run real Java, confined by bubblewrap.

Mini-1 (JUnit 4, UTF-8) and Mini-2 (JUnit 3, ISO-8859-1, a drifted line range, a regression test
that fails on the fixed version too) are tiny projects in the bundled benchmark's format.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from defects4j_adapter.bytecode import closed_init
from defects4j_adapter.engines import fast as fast_engine
from defects4j_adapter.engines import pace
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.engines.runner_output import ReportedTest, Status
from defects4j_adapter.sandbox import base as sandbox
from defects4j_adapter.sandbox import bwrap
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core import story
from nl2fix.core.domain import Verdict
from nl2fix.core.retry import Backoff
from nl2fix.dataset.load import open_dataset
from nl2fix.validation.verdicts import record_of
from tests.helpers.minibench import SANDBOXES, engine_options, hostile

pytestmark = pytest.mark.sandbox
ALWAYS_BROKEN = frozenset({"org.mini.TextTest::testAlwaysBroken"})


@pytest.fixture(scope="module")
def fast(nl2fix_cache, confined):
    engine = FastEngine(engine_options(nl2fix_cache))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def mini1(fast, minibench):
    return fast.prepare(minibench.bugs["Mini-1"])


@pytest.fixture(scope="module")
def mini2(fast, minibench):
    return fast.prepare(minibench.bugs["Mini-2"])


def verdict(engine, ws, code, known=frozenset(), stop=True, **kw):
    outcome = engine.run(ws, code, known_failures=known, stop_at_first_failure=stop, **kw)
    return record_of(outcome, bug_id=ws.bug.id, hash="h", engine="fast", fails_on_fix=known)


def test_the_workspace_is_the_buggy_tree_compiled_once(fast, mini1, minibench):
    assert (mini1.classes_dir / "org/mini/Calc.class").is_file()
    assert (mini1.test_classes_dir / "org/mini/CalcTest.class").is_file()
    assert "return lo;" in mini1.target_file.read_text().split("if (v > hi)")[1].split("}")[0]
    assert fast.prepare(minibench.bugs["Mini-1"]).root == mini1.root  # cached, not rebuilt


def test_ground_truth_is_plausible_and_the_buggy_method_wrong(fast, mini1):
    fixed = verdict(fast, mini1, mini1.bug.fixed_method, stop=False)
    assert fixed.verdict is Verdict.PLAUSIBLE and fixed.tests_run == 8 and not fixed.failing_tests
    buggy = verdict(fast, mini1, mini1.bug.buggy_method, stop=False)
    assert buggy.verdict is Verdict.WRONG
    assert buggy.failing_tests == ["org.mini.CalcTest::testClampHigh"]
    assert "expected:<10> but was:<0>" in buggy.detail


def test_broken_java_is_uncompilable_with_the_compiler_errors(fast, mini1):
    record = verdict(fast, mini1, mini1.bug.fixed_method.replace("return hi;", "return hi"))
    assert record.verdict is Verdict.UNCOMPILABLE and "';' expected" in record.compile_errors
    record = verdict(fast, mini1, mini1.bug.fixed_method.replace("return hi;", "return undefinedName;"))
    assert record.verdict is Verdict.UNCOMPILABLE and "cannot find symbol" in record.compile_errors


def test_unbalanced_braces_are_uncompilable_without_touching_the_file(fast, mini1):
    before = mini1.target_file.read_bytes()
    record = verdict(fast, mini1, mini1.bug.fixed_method + "\n}\nclass Extra {")
    assert record.verdict is Verdict.UNCOMPILABLE and "rest of the class" in record.compile_errors
    assert mini1.target_file.read_bytes() == before


def test_junit3_latin1_drifted_range_and_known_failures(fast, mini2, monkeypatch):
    fixed = verdict(fast, mini2, mini2.bug.fixed_method, stop=False)
    assert fixed.verdict is Verdict.WRONG and fixed.failing_tests == sorted(ALWAYS_BROKEN)
    assert "found it by its text" in fixed.detail  # the dataset's range is off by two lines
    assert fixed.tests_run == 5  # testCafe passes: the file was read as ISO-8859-1
    code = mini2.bug.fixed_method.replace("s.isEmpty()", "s.length() == 0")
    candidate = verdict(fast, mini2, code, ALWAYS_BROKEN)
    # testAlwaysBroken never calls capitalize: narrowed away, as it cannot notice the change
    assert candidate.verdict is Verdict.PLAUSIBLE and candidate.ignored_failures == []
    monkeypatch.setattr(fast, "narrow", False)
    candidate = verdict(fast, mini2, code, ALWAYS_BROKEN)
    assert candidate.verdict is Verdict.PLAUSIBLE and candidate.ignored_failures == sorted(ALWAYS_BROKEN)
    buggy = verdict(fast, mini2, mini2.bug.buggy_method, ALWAYS_BROKEN)
    assert buggy.verdict is Verdict.WRONG and buggy.failing_tests == ["org.mini.TextTest::testCapitalizeEmpty"]


def test_a_warm_pass_that_fails_only_what_the_fix_fails_is_confirmed_in_a_fresh_jvm(fast, mini2, monkeypatch):
    # every test runs (--all-tests) and testAlwaysBroken fails, as on the fixed version: the verdict
    # excuses it, so such a run is a pass, and a pass where other candidates' code ran needs a fresh
    # JVM's word (it was believed as it stood while the engine's own rule held every failure against it)
    monkeypatch.setattr(fast, "narrow", False)
    verdict(fast, mini2, mini2.bug.buggy_method.replace("{", "{ int warm = 1;", 1), ALWAYS_BROKEN)
    code = mini2.bug.fixed_method.replace("s.isEmpty()", "s.length() == 0")
    with story.kept() as told:
        record = verdict(fast, mini2, code, ALWAYS_BROKEN, stop=False)
    assert record.verdict is Verdict.PLAUSIBLE and record.ignored_failures == sorted(ALWAYS_BROKEN)
    assert any("confirmed in a fresh JVM" in line for line in told), told


def test_static_and_jdk_state_do_not_leak_between_candidates(fast, mini1):
    # CalcTest.testFreshState asserts a static counter is 0 and a system property unset, then sets both
    for extra in ("", "int unused = 1;", "int unused = 2;"):
        code = mini1.bug.fixed_method.replace("{", "{ " + extra, 1)
        assert verdict(fast, mini1, code).verdict is Verdict.PLAUSIBLE


def test_a_closed_initialiser_s_table_is_each_job_s_own_copy_of_the_runner_s(fast, mini1, monkeypatch):
    # Squares' initialiser computes its table from constants alone: the runner computes it once a JVM and each job's
    # class takes a copy (tests/defects4j_adapter/bytecode/test_closed_init.py shows the mechanism);
    # CalcTest.testFreshTable reads it through clamp and writes into it, so a write that reached the next job would
    # fail that job's test
    assert list(closed_init.classes(mini1.classes_dir)) == ["org.mini.Squares"]
    for switch in ("1", "0"):
        monkeypatch.setenv(closed_init.SWITCH, switch)
        for n in range(3):
            code = mini1.bug.fixed_method.replace("{", f"{{ int unused{switch} = {n};", 1)
            assert verdict(fast, mini1, code).verdict is Verdict.PLAUSIBLE, (switch, n)
        assert verdict(fast, mini1, mini1.bug.buggy_method).verdict is Verdict.WRONG


@pytest.mark.parametrize(
    ("attack", "own"),
    [
        # its own job's copy: its own test fails there, nothing else
        ("java.util.Arrays.fill(Squares.TABLE, 7);", Verdict.WRONG),
        # the runner's copy itself, asked for by name: the class-file check refuses finding a class by name
        (
            'try { int[] t = (int[]) Class.forName("nl2fix.runner.Statics").getMethod("get", Class.class, String.class)'
            '.invoke(null, Squares.class, "TABLE"); java.util.Arrays.fill(t, 7); } catch (Exception e) { }',
            Verdict.REJECTED,
        ),
    ],
    ids=["own_copy", "runner_copy"],
)
def test_a_candidate_that_writes_into_a_closed_table_changes_no_later_job(fast, mini1, attack, own):
    # red team (session 21): the table the runner computes once a JVM, written into by a candidate's method (a 7 where
    # CalcTest.testFreshTable wants 9); the fix and the buggy method judged after it in the same JVMs get their own
    # verdicts
    poisoned = verdict(fast, mini1, mini1.bug.fixed_method.replace("{", "{ " + attack, 1))
    assert poisoned.verdict is own, poisoned
    for n in range(2):
        fixed = mini1.bug.fixed_method.replace("{", f"{{ int after = {n};", 1)
        assert verdict(fast, mini1, fixed).verdict is Verdict.PLAUSIBLE
    assert verdict(fast, mini1, mini1.bug.buggy_method).verdict is Verdict.WRONG


def test_what_a_candidate_writes_to_the_real_stdout_cannot_hide_a_failure(fast, mini1):
    # text without a line break on the JVM's own standard output used to swallow the next
    # report line: the trigger test's failure vanished and the buggy method came out plausible
    write = (
        'try { new java.io.FileOutputStream(java.io.FileDescriptor.out).write("x".getBytes()); } '
        "catch (java.io.IOException e) { }"
    )
    code = mini1.bug.buggy_method.replace("{", "{ " + write, 1)
    for stop in (True, False):
        record = verdict(fast, mini1, code, stop=stop)
        # it ran, and its output did not hide the failure; then its classes were refused for the
        # way it reached the real standard output
        assert record.verdict is Verdict.REJECTED and "java.io.FileDescriptor" in record.detail, stop


def test_a_test_is_held_to_its_cpu_time_and_a_waiting_one_to_a_longer_wall_clock_limit(fast, mini1):
    # a loaded machine stretches a busy test's wall-clock time, not its CPU time: the limit is CPU;
    # a test that only waits uses none, so wall-clock time bounds it (at 6 times the limit)
    # (each at the limit the fix paces, the detail says which)
    busy = verdict(fast, mini1, hostile("loop_forever", mini1.bug))
    used = re.search(r"test used (\d+) ms of CPU; each test had ([\d.]+) CPU-s", busy.detail)
    assert busy.verdict is Verdict.TIMEOUT and used, busy.detail
    assert int(used[1]) == round(float(used[2]) * 1000), busy.detail
    idle = verdict(fast, mini1, hostile("sleep_forever", mini1.bug, SLEEP="50"))
    waited = re.search(r"test timed out after (\d+) ms; each test had ([\d.]+) CPU-s", idle.detail)
    assert idle.verdict is Verdict.TIMEOUT and waited, idle.detail
    assert int(waited[1]) == 6 * round(float(waited[2]) * 1000), idle.detail


def test_a_job_s_limit_is_wall_clock_and_cpu_time_or_four_times_the_wall_clock_time():
    assert not fast_engine.over_budget(wall=30, cpu=15, seconds=20)  # a loaded machine: CPU left
    assert fast_engine.over_budget(wall=30, cpu=20, seconds=20)
    assert not fast_engine.over_budget(wall=19, cpu=40, seconds=20)  # never before the wall-clock limit
    assert fast_engine.over_budget(wall=80, cpu=1, seconds=20)  # waiting, not computing


def test_a_candidate_throwing_thread_death_under_junit3_is_wrong(fast, mini2):
    # JUnit 3 lets ThreadDeath through: the class ended early with no failure and the run was plausible
    code = mini2.bug.buggy_method.replace(
        "if (s == null) {", "if (s.isEmpty()) { throw new ThreadDeath(); } if (s == null) {", 1
    )
    for stop in (True, False):
        record = verdict(fast, mini2, code, ALWAYS_BROKEN, stop=stop)
        assert record.verdict is Verdict.WRONG, (stop, record)
        assert "org.mini.TextTest::testCapitalizeEmpty" in record.failing_tests, (stop, record)


def test_a_changed_declaration_is_rebuilt_and_judged_as_defects4j_would(fast, mini1):
    # CalcTest was compiled against `int clamp(...)`; with `long`, only a recompile links
    code = mini1.bug.fixed_method.replace("public static int clamp", "public static long clamp")
    record = verdict(fast, mini1, code)
    assert record.verdict is Verdict.PLAUSIBLE and "recompiled" in record.detail


def test_artifacts_are_kept(fast, mini1, tmp_path):
    verdict(fast, mini1, mini1.bug.buggy_method, log_dir=tmp_path / "logs")
    kept = {p.name for p in (tmp_path / "logs").iterdir()}
    assert {"Calc.java", "request.txt", "runner.out", "runner.err"} <= kept
    assert "TEST\tfail\torg.mini.CalcTest::testClampHigh" in (tmp_path / "logs" / "runner.out").read_text()


def test_a_pass_is_confirmed_in_a_one_job_jvm_on_the_classes_already_checked(fast, mini1, tmp_path, monkeypatch):
    started: list[fast_engine.WarmJvm] = []
    real = fast_engine.WarmJvm.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(fast_engine.WarmJvm, "__init__", spy)
    fix = mini1.bug.fixed_method
    body = fix.index("{") + 1
    # the first leaves the JVM having judged a candidate, so the second's pass there is confirmed
    assert verdict(fast, mini1, fix[:body] + ";" + fix[body:]).verdict is Verdict.PLAUSIBLE
    assert verdict(fast, mini1, fix[:body] + ";;" + fix[body:], log_dir=tmp_path).verdict is Verdict.PLAUSIBLE
    confirming = started[-1]
    # (through the shell that writes the JVM's argfile: each option quoted as the argfile's reader reads it)
    assert any("-XX:TieredStopAtLevel=1" in str(arg) for arg in confirming.proc.args)
    # the kept request is the confirming job's: the compiling JVM's checked classes, no javac
    request = (tmp_path / "request.txt").read_text()
    assert not any(line.startswith("source ") for line in request.splitlines())


def test_a_used_jvm_runs_the_triggers_only_and_the_fresh_one_judges_the_other_tests(fast, mini1, monkeypatch):
    fix = mini1.bug.fixed_method
    body = fix.index("{") + 1
    assert verdict(fast, mini1, fix[:body] + ";;;" + fix[body:]).verdict is Verdict.PLAUSIBLE
    requests = []
    real = fast_engine.jobs.runner_job

    def spy(*args, **kwargs):
        requests.append(real(*args, **kwargs))
        return requests[-1]

    monkeypatch.setattr(fast_engine.jobs, "runner_job", spy)
    # passes the trigger (testClampHigh), fails testClampLow, which only the fresh JVM runs
    low_broken = verdict(fast, mini1, fix.replace("return lo;", "return v;", 1))
    assert low_broken.verdict is Verdict.WRONG and low_broken.failing_tests == ["org.mini.CalcTest::testClampLow"]
    compiled, warm, fresh = requests
    # compiled once, by the JVM that only compiles; both test JVMs take its classes
    assert compiled.compile_only and compiled.source is not None
    assert warm.triggers == list(mini1.trigger_tests) and warm.relevant == [] and warm.source is None
    assert fresh.relevant == list(mini1.relevant_tests) and fresh.source is None
    assert warm.compiled is not None and fresh.compiled is not None
    # a second candidate fails it the same way; then the developer's fix (trusted code) runs it as a used JVM would
    requests.clear()
    assert verdict(fast, mini1, fix.replace("return lo;", "return v * 1;", 1)).verdict is Verdict.WRONG
    compiled, warm, fresh, *learning = requests
    assert learning[-1].relevant == ["org.mini.CalcTest"] and learning[-1].triggers == list(mini1.trigger_tests)
    # a candidate that fails its trigger costs no fresh JVM
    requests.clear()
    assert verdict(fast, mini1, mini1.bug.buggy_method + " ").verdict is Verdict.WRONG
    assert len(requests) == 2 and requests[0].compile_only and requests[1].triggers == list(mini1.trigger_tests)
    # testClampLow failed two candidates before and the fix passes it so: the used JVM runs it after the triggers,
    # alone of its class, and a candidate that fails it there costs no fresh JVM either
    requests.clear()
    low_broken_too = verdict(fast, mini1, fix.replace("return lo;", "return v + 0;", 1))
    assert low_broken_too.verdict is Verdict.WRONG
    assert low_broken_too.failing_tests == ["org.mini.CalcTest::testClampLow"]
    assert len(requests) == 2, requests
    warm = requests[1]
    assert warm.relevant == ["org.mini.CalcTest"] and warm.only == {
        "org.mini.CalcTest": ("org.mini.CalcTest::testClampLow",)
    }
    # one that passes it there is still confirmed by a fresh JVM, which runs every test
    requests.clear()
    assert verdict(fast, mini1, fix[:body] + ";;;;" + fix[body:]).verdict is Verdict.PLAUSIBLE
    assert [r.relevant for r in requests[1:]] == [["org.mini.CalcTest"], list(mini1.relevant_tests)]


def test_a_test_joins_what_a_used_jvm_runs_only_where_the_developer_fix_passes_it_so(nl2fix_cache, confined, minibench):
    # a test that fails when run without the tests its class runs before it would make every candidate fail there,
    # and a failure there is final: the developer's fix must pass it as a used JVM runs it (here a "fix" that fails
    # testClampLow stands in for such a test)
    engine = FastEngine(engine_options(nl2fix_cache))
    try:
        ws = engine.prepare(minibench.bugs["Mini-1"])
        fix = ws.bug.fixed_method
        ws = replace(ws, bug=replace(ws.bug, fixed_method=fix.replace("return lo;", "return v;", 1)))
        body = fix.index("{") + 1
        assert verdict(engine, ws, fix[:body] + ";" + fix[body:]).verdict is Verdict.PLAUSIBLE
        for wrong in ("return v - 0;", "return v * 1;"):  # the second failure has the fix try it
            assert verdict(engine, ws, fix.replace("return lo;", wrong, 1)).verdict is Verdict.WRONG
        requests = []
        real = fast_engine.jobs.runner_job

        def spy(*args, **kwargs):
            requests.append(real(*args, **kwargs))
            return requests[-1]

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(fast_engine.jobs, "runner_job", spy)
            again = verdict(engine, ws, fix.replace("return lo;", "return v + 0;", 1))
        assert again.verdict is Verdict.WRONG and again.failing_tests == ["org.mini.CalcTest::testClampLow"]
        # compiled, the triggers alone in the used JVM, then the fresh JVM that found the failure
        assert [r.relevant for r in requests[1:]] == [[], list(ws.relevant_tests)], requests
    finally:
        engine.close()


def _sleepers(tag: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", tag.encode()]:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def example_ws(fast):
    dataset = open_dataset("example")
    return fast.prepare(next(iter(dataset.bugs.values())))


@pytest.fixture(scope="module", params=SANDBOXES)
def any_fast(request, fast, nl2fix_cache):
    """The fast engine under bubblewrap, then in a container of the JVM image."""
    if request.param == "bwrap":
        yield fast
        return
    engine = FastEngine(engine_options(nl2fix_cache, sandbox=make_sandbox(request.param)))
    yield engine
    engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("which", ["mini", "example"])
def test_hostile_candidates_end_in_verdicts_and_leave_host_and_workspace_intact(
    any_fast, mini1, example_ws, which, tmp_path
):
    fast = any_fast
    ws = mini1 if which == "mini" else example_ws
    marker = tmp_path / "marker.txt"
    marker.write_text("keep")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    received: list[bytes] = []
    done = threading.Event()

    def accept():
        while not done.is_set():
            try:
                conn, _ = server.accept()
                received.append(conn.recv(100))
            except OSError:
                pass

    threading.Thread(target=accept, daemon=True).start()
    workspace_before = sorted(str(p) for p in ws.root.parent.rglob("*"))
    tag = str(random.randrange(10_000, 99_999))  # this test's sleepers, whatever else runs
    subs = dict(
        MARKER=str(marker),
        OUTSIDE=str(tmp_path / "outside.txt"),
        WORKSPACE=str(ws.root.parent),
        PORT=str(server.getsockname()[1]),
        SLEEP=tag,
    )
    either = {Verdict.WRONG, Verdict.TIMEOUT}  # on a loaded machine the limit may strike first
    # the fast engine runs a candidate before it reads its classes: what the sandbox holds is
    # tested either way, and a candidate that reaches for the process, files or sockets is then
    # refused for it (the reference named)
    expected = {
        "loop_forever": ({Verdict.TIMEOUT}, ""),
        "system_exit": ({Verdict.REJECTED}, "java.lang.System#exit"),
        "allocate": (either, ""),
        "fork": ({Verdict.REJECTED}, "java.lang.ProcessBuilder"),
        "delete_files": ({Verdict.REJECTED}, "writing and deleting files"),
        "fill_disk": ({Verdict.REJECTED}, "writing and deleting files"),
        "open_socket": ({Verdict.REJECTED}, "java.net.Socket"),
    }
    for name, (allowed, refused) in expected.items():
        start = time.monotonic()
        record = verdict(fast, ws, hostile(name, ws.bug, **subs))
        assert record.verdict in allowed and refused in record.detail, (name, record)
        assert time.monotonic() - start < 20, name
        assert record.failing_tests == ([] if refused else [ws.trigger_tests[0]]), (name, record)
    done.set()
    assert marker.read_text() == "keep"
    assert not (tmp_path / "outside.txt").exists()
    assert received == []
    assert sorted(str(p) for p in ws.root.parent.rglob("*")) == workspace_before
    assert not _sleepers(tag)
    # the run goes on: the workspace still judges the ground truth plausible
    assert verdict(fast, ws, ws.bug.fixed_method).verdict is Verdict.PLAUSIBLE


@pytest.mark.slow
def test_rebuild_engine_agrees_with_the_fast_engine(nl2fix_cache, fast, mini1, confined):
    rebuild = RebuildEngine(engine_options(nl2fix_cache))
    codes = {
        "fixed": mini1.bug.fixed_method,
        "buggy": mini1.bug.buggy_method,
        "broken": mini1.bug.fixed_method.replace("return hi;", "return hi"),
        "exit": hostile("system_exit", mini1.bug),
    }
    for name, code in codes.items():
        a, b = verdict(fast, mini1, code), verdict(rebuild, mini1, code)
        assert (a.verdict, a.failing_tests) == (b.verdict, b.failing_tests), name
        assert b.cpu_seconds > 0


def _threads_of_uid(uid: int | None, count: int) -> subprocess.Popen:
    """A process of ``uid`` (this user when None) holding ``count`` threads: the process limit
    (RLIMIT_NPROC) counts a uid's threads machine-wide."""
    script = (
        "import threading, time\nstop = threading.Event()\n"
        f"for _ in range({count}):\n    threading.Thread(target=stop.wait, daemon=True).start()\n"
        "print('ready', flush=True)\ntime.sleep(60)\n"
    )
    as_job_user = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if uid is not None else []
    holder = subprocess.Popen([*as_job_user, "/usr/bin/python3", "-c", script], stdout=subprocess.PIPE, cwd="/")
    assert holder.stdout.readline() == b"ready\n"
    return holder


def test_a_job_the_machine_cannot_start_is_an_error_not_uncompilable(nl2fix_cache, mini1, confined, monkeypatch):
    # more threads of the job's uid than the sandbox's process limit: javac cannot even start,
    # which used to be recorded as the candidate's compile error
    uid = None
    if os.geteuid() == 0:
        uid = sandbox.JOB_UID_BASE + sandbox.JOB_UID_SPAN - 1
        monkeypatch.setattr(bwrap, "job_uid", lambda: uid)  # force the collision jobs normally avoid
    rebuild = RebuildEngine(engine_options(nl2fix_cache))
    holder = _threads_of_uid(uid, 600)
    try:
        record = verdict(rebuild, mini1, mini1.bug.fixed_method)
    finally:
        holder.kill()
        holder.wait()
    assert record.verdict is Verdict.ERROR, record


@pytest.mark.skipif(os.geteuid() != 0, reason="jobs get uids of their own only when nl2fix runs as root")
def test_a_neighbour_exhausting_its_process_limit_does_not_touch_other_jobs(nl2fix_cache, mini1, confined):
    # a forking candidate fills its own uid's process budget; the next job has a budget of its own
    neighbour = _threads_of_uid(sandbox.job_uid(), 600)
    try:
        record = verdict(RebuildEngine(engine_options(nl2fix_cache)), mini1, mini1.bug.fixed_method)
    finally:
        neighbour.kill()
        neighbour.wait()
    assert record.verdict is Verdict.PLAUSIBLE, record


@pytest.mark.slow
def test_the_example_benchmark_ground_truths_validate(fast):
    dataset = open_dataset("example")
    if not dataset.bugs:
        pytest.skip("the example benchmark has no bugs yet")
    for bug in list(dataset.bugs.values())[:3]:
        ws = fast.prepare(bug)
        fixed = verdict(fast, ws, bug.fixed_method, stop=False)
        buggy = verdict(fast, ws, bug.buggy_method, frozenset(fixed.failing_tests), stop=False)
        assert fixed.verdict is Verdict.PLAUSIBLE, (bug.id, fixed)
        assert buggy.verdict is Verdict.WRONG and set(buggy.failing_tests) & set(bug.trigger_tests), bug.id
        broken = verdict(fast, ws, bug.fixed_method.replace(";", "", 1))
        assert broken.verdict is Verdict.UNCOMPILABLE, bug.id


def test_a_users_own_project_is_copied_compiled_and_validated(fast, mini1, tmp_path, nl2fix_cache):
    from defects4j_adapter.workspaces.local import ProjectLayout, prepare_project

    user = tmp_path / "myproject"
    shutil.copytree(mini1.root, user)  # a project whose tree holds the buggy method
    before = sorted(str(p) for p in user.rglob("*"))
    ws = prepare_project(mini1.bug, ProjectLayout(user, "src/main/java", "src/test/java"), nl2fix_cache)
    assert ws.root != user and (ws.classes_dir / "org/mini/Calc.class").is_file()
    assert verdict(fast, ws, mini1.bug.fixed_method).verdict is Verdict.PLAUSIBLE
    assert verdict(fast, ws, mini1.bug.buggy_method).verdict is Verdict.WRONG
    assert sorted(str(p) for p in user.rglob("*")) == before  # nothing written in the user's tree


def test_the_jdk_loading_its_own_security_providers_does_not_retire_the_jvm(fast, mini1):
    # File.createTempFile seeds a SecureRandom, which loads the JDK's SUN provider, and registering a
    # provider's services is a change the guard retires a JVM for: the runner registers the JDK's
    # providers before any candidate (Compress's tests retired every test JVM after one job before)
    fix = mini1.bug.fixed_method
    body = fix.index("{") + 1
    seeded = fix[:body] + " new java.security.SecureRandom().nextInt();" + fix[body:]
    before = {id(jvm): jvm.jobs_done for jvms in fast._warm.idle.values() for jvm in jvms}
    assert verdict(fast, mini1, seeded).verdict is Verdict.PLAUSIBLE
    after = {id(jvm): jvm.jobs_done for jvms in fast._warm.idle.values() for jvm in jvms}
    assert any(done > before.get(key, 0) for key, done in after.items()), "the JVM that ran it takes the next one"


def test_a_warm_jvm_that_died_while_idle_is_replaced(fast, mini1):
    assert verdict(fast, mini1, mini1.bug.buggy_method).verdict is Verdict.WRONG
    idle = [jvm for pool in (fast._warm, fast._compilers) for jvms in pool.idle.values() for jvm in jvms]
    assert len(idle) >= 2, "the JVMs that compiled and judged the candidate wait for the next one"
    for jvm in idle:
        jvm.proc.kill()
        jvm.proc.wait()
    assert verdict(fast, mini1, mini1.bug.fixed_method).verdict is Verdict.PLAUSIBLE


def test_without_the_sandbox_the_engines_still_judge(nl2fix_cache, mini1, caplog):
    options = engine_options(nl2fix_cache, sandbox=make_sandbox(False))
    assert "UNCONFINED" in caplog.text
    for engine in (FastEngine(options), RebuildEngine(options)):
        try:
            assert verdict(engine, mini1, mini1.bug.fixed_method).verdict is Verdict.PLAUSIBLE
            assert verdict(engine, mini1, mini1.bug.buggy_method).verdict is Verdict.WRONG
        finally:
            engine.close()


def test_a_warm_jvm_that_does_not_start_is_started_again_before_any_error(
    nl2fix_cache, confined, minibench, monkeypatch, caplog
):
    engine = FastEngine(engine_options(nl2fix_cache))
    ws = engine.prepare(minibench.bugs["Mini-1"])
    waits: list[float] = []
    engine.start_backoff = Backoff(attempts=2, first_delay=0.001, sleep=waits.append)
    starts = []

    def once_broken(*args):
        starts.append(args)
        if len(starts) == 1:
            raise fast_engine.JvmFailure("the warm test JVM did not start: (a fake hiccup)")
        return real(*args)

    real = fast_engine.WarmJvm
    monkeypatch.setattr(fast_engine, "WarmJvm", once_broken)
    try:
        assert verdict(engine, ws, ws.bug.fixed_method).verdict is Verdict.PLAUSIBLE
    finally:
        engine.close()
    assert len(starts) >= 2 and waits == [0.001]
    assert "starting the warm test JVM for Mini-1 failed (try 1 of 2" in caplog.text


def test_a_loop_in_a_jvm_that_ran_other_candidates_stops_at_the_fix_s_pace_and_the_fresh_jvm_decides(
    fast, mini1, monkeypatch
):
    limits = []
    runner_job = fast_engine.jobs.runner_job

    def noted(*args, **kwargs):
        if "compiled" in kwargs:  # a test job (a compiling JVM's job names its source instead)
            limits.append(kwargs["test_timeout"])
        return runner_job(*args, **kwargs)

    assert verdict(fast, mini1, mini1.bug.fixed_method).verdict is Verdict.PLAUSIBLE  # how long its tests take
    other = mini1.bug.buggy_method.replace("{", "{ int unused = 3;", 1)
    assert verdict(fast, mini1, other).verdict is Verdict.WRONG  # the warm JVM has run a candidate
    monkeypatch.setattr(fast_engine.jobs, "runner_job", noted)
    record = verdict(fast, mini1, hostile("loop_forever", mini1.bug))
    # the warm JVM gave up at five times what the fix's trigger took (a few ms: the floor, 0.3 s), not at 2 s;
    # the fresh JVM's limit, paced to the fix (1 CPU-s and ten times a few ms, or 6 times that of a loaded
    # machine's wall-clock time), decided
    assert record.verdict is Verdict.TIMEOUT and fast_engine.RECHECKED in record.detail
    assert len(limits) == 2 and pace.WARM_FLOOR <= limits[0] < pace.WARM_TEST_LIMIT, limits
    assert pace.FRESH_FLOOR <= limits[1] < 2.0, limits
    assert f"test used {round(limits[1] * 1000)} ms of CPU" in record.detail or "test timed out after" in record.detail
    assert "times the 0.0" in record.detail and "the developer's fix took on its slowest test" in record.detail


def test_a_loop_in_a_fresh_jvm_is_a_timeout_at_the_fix_s_pace_not_at_the_user_s_limit(
    nl2fix_cache, minibench, confined
):
    # no baseline ran in this engine, and the cache keeps no times: the engine times the fix itself, once
    shutil.rmtree(nl2fix_cache / pace.SUBDIR, ignore_errors=True)
    engine = FastEngine(engine_options(nl2fix_cache, test_timeout=8.0))
    try:
        ws = engine.prepare(minibench.bugs["Mini-1"])
        with story.kept() as told:
            record = verdict(engine, ws, hostile("loop_forever", ws.bug))  # a new engine: its first JVM is fresh
            verdict(engine, ws, ws.bug.buggy_method.replace("{", "{ int unused = 3;", 1))
        limit = engine._pace.fresh(ws, 8.0, engine.options.settings.timeout_pace)
    finally:
        engine.close()
    # the fix's tests take milliseconds: the loop is stopped at about the floor, and the verdict says why
    assert pace.FRESH_FLOOR <= limit.seconds < 3.0, limit
    assert record.verdict is Verdict.TIMEOUT and limit.why in record.detail, record
    assert (
        f"test used {int(limit.seconds * 1000)} ms of CPU" in record.detail or "test timed out after" in record.detail
    )
    assert sum("timing the reference" in line for line in told) == 1, told


def test_a_used_jvm_s_limit_is_paced_to_the_fix_s_slowest_test_it_runs_within_floor_and_cap():
    bug = SimpleNamespace(id="B-1", fixed_method="fix", buggy_method="bug")
    ws = SimpleNamespace(root=Path("/ws"), trigger_tests=("T::a", "T::b"), relevant_tests=("T",), bug=bug)
    paced = pace.Pace()
    triggers = ws.trigger_tests
    assert paced.used(ws, triggers).seconds == pace.WARM_TEST_LIMIT  # the fix not seen yet
    paced.saw(ws, [ReportedTest("T::a", Status.PASS, 20), ReportedTest("T::b", Status.PASS, 120)])
    paced.saw(ws, [ReportedTest("T::a", Status.PASS, 10)])  # the longest run counts
    assert paced.used(ws, triggers).seconds == pytest.approx(pace.WARM_PACE * 0.12)
    assert paced.used(ws, None).seconds == pace.WARM_TEST_LIMIT  # every test: not paced
    assert paced.used(ws, (*triggers, "U::c")).seconds == pace.WARM_TEST_LIMIT  # a test the fix was not seen on
    paced.saw(ws, [ReportedTest("U::c", Status.PASS, 900)])
    assert paced.used(ws, (*triggers, "U::c")).seconds == pace.WARM_TEST_LIMIT
    quick = SimpleNamespace(root=Path("/other"), trigger_tests=("T::a",), relevant_tests=(), bug=bug)
    paced.saw(quick, [ReportedTest("T::a", Status.PASS, 3)])
    assert paced.used(quick, quick.trigger_tests).seconds == pace.WARM_FLOOR


def test_a_fresh_jvm_s_limit_is_the_floor_plus_the_pace_times_the_fix_s_slowest_test_kept_in_the_cache(tmp_path):
    bug = SimpleNamespace(id="B-1", fixed_method="fix", buggy_method="bug")
    ws = SimpleNamespace(root=Path("/ws"), trigger_tests=("T::a",), relevant_tests=("T", "U"), bug=bug)
    paced = pace.Pace(tmp_path)
    assert paced.fresh(ws, 10.0, 10.0) == pace.Limit(10.0)  # nothing known: the user's limit
    paced.saw(ws, [ReportedTest("T::a", Status.PASS, 30), ReportedTest("U::b", Status.PASS, 150)])
    limit = paced.fresh(ws, 10.0, 10.0)
    assert limit.seconds == pytest.approx(pace.FRESH_FLOOR + 1.5)
    assert "0.150 s the developer's fix took on its slowest test" in limit.why and "--timeout-pace 10" in limit.why
    assert paced.fresh(ws, 10.0, 0.0) == pace.Limit(10.0)  # --timeout-pace 0
    assert paced.fresh(ws, 2.0, 10.0) == pace.Limit(2.0)  # never more than the user's limit
    # another process (a resumed run) paces as this one did; a damaged file paces nothing
    assert pace.Pace(tmp_path).fresh(ws, 10.0, 10.0) == limit
    assert pace.Pace(tmp_path).known(ws) and not pace.Pace(tmp_path / "elsewhere").known(ws)
    next(tmp_path.rglob("*.json")).write_text("[1, 2", encoding="utf-8")
    assert pace.Pace(tmp_path).fresh(ws, 10.0, 10.0) == pace.Limit(10.0)
    # without a developer's fix the tree as it is paces, and says so
    mine = SimpleNamespace(id="B-2", fixed_method="", buggy_method="bug")
    own = SimpleNamespace(root=Path("/own"), trigger_tests=(), relevant_tests=(), bug=mine)
    paced.saw(own, [ReportedTest("T::a", Status.PASS, 100)])
    assert "the tree as it is took" in paced.fresh(own, 10.0, 10.0).why
