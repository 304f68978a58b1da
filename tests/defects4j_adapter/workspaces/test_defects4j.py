"""Defects4J workspaces and the reference engine: the pure parts on recorded Defects4J outputs,
the cache and candidate slots on real git checkouts, the docker image's Dockerfile, and (marked
``defects4j``) the real engine when Defects4J is installed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings, Outcome, Phase
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j.cli import Defects4J
from defects4j_adapter.d4j.parsers import FailureKind
from defects4j_adapter.engines.defects4j import (
    Defects4JEngine,
    Step,
    absorb_compile,
    absorb_test,
    harness_hiccup,
    judge_test_run,
    plan,
)
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from defects4j_adapter.workspaces.local import detect_encoding
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import ExecResult
from tests.helpers.minibench import red_team_attack
from tests.helpers.paths import FIXTURES, REPO

DATA = FIXTURES / "defects4j"
JXPATH_FILE = "src/java/org/apache/commons/jxpath/ri/compiler/CoreOperationRelationalExpression.java"
JXPATH_TRIGGER = "org.apache.commons.jxpath.ri.compiler.JXPath149Test::testComplexOperationWithVariables"


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def bug(**changes) -> Bug:
    fields = dict(
        project="JxPath",
        number=20,
        path=JXPATH_FILE,
        start_line=3,
        end_line=5,
        buggy_method="int f() {\n  return 1;\n}",
        fixed_method="int f() {\n  return 2;\n}",
        title="t",
    )
    fields.update(changes)
    return Bug(**fields)


def exports(root: Path) -> dict[str, str]:
    """What ``defects4j export`` prints for each property of a JxPath-20 checkout at ``root``
    (lists and classpath in the recorded formats)."""
    return {
        "tests.trigger": f"{JXPATH_TRIGGER}\n\n",
        "tests.relevant": recorded("export_tests_relevant_jxpath20.stdout"),
        "cp.compile": f"{root}/target/classes\n",
        "cp.test": f"{root}/target/classes:{root}/target/test-classes:/d4j/framework/projects/lib/junit-4.11.jar"
        f":lib/xerces.jar:{root}/target/classes:${{test.classes.dir}}\n",
        "dir.src.classes": "src/java\n",
        "dir.src.tests": "src/test\n",
        "dir.bin.classes": "target/classes\n",
        "dir.bin.tests": "target/test-classes\n",
    }


def exec_result(stdout: str = "", stderr: str = "", returncode: int = 0, timed_out: bool = False) -> ExecResult:
    args = ("/d4j/framework/bin/defects4j", "test", "-w", "/w")
    return ExecResult(args, returncode, stdout, stderr, 12.0, 9.5, timed_out)


# --- Workspace from exported properties -------------------------------------------------------


def test_workspace_from_recorded_exports(tmp_path):
    ws = d4j_workspace.workspace_from_exports(bug(), tmp_path, exports(tmp_path), encoding="ISO-8859-1")
    assert ws.src_dir == tmp_path / "src/java" and ws.test_dir == tmp_path / "src/test"
    assert ws.classes_dir == tmp_path / "target/classes"
    assert ws.test_classes_dir == tmp_path / "target/test-classes"
    # The checkout's own class folders are not "everything else"; relative entries are the checkout's.
    assert ws.classpath == (Path("/d4j/framework/projects/lib/junit-4.11.jar"), tmp_path / "lib/xerces.jar")
    assert ws.trigger_tests == (JXPATH_TRIGGER,)
    assert len(ws.relevant_tests) == 6
    assert ws.target_file == tmp_path / JXPATH_FILE and ws.encoding == "ISO-8859-1"


def test_listed_test_classes_the_build_did_not_compile_are_left_out(tmp_path):
    """As Defects4J's test run does (JacksonDatabind-16 lists ext.TestSOAP, which its Java 11 patches delete)."""
    listed = ("p.ATest", "p.ext.TestSOAP", "p.BTest")
    for name in ("p/ATest.class", "p/BTest.class", "p/ATest$1.class"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    assert d4j_workspace.built_tests(listed, tmp_path) == (("p.ATest", "p.BTest"), ("p.ext.TestSOAP",))
    assert d4j_workspace.built_tests(("p.ATest",), tmp_path) == (("p.ATest",), ())
    # none built: the list stays, so the failure shows
    assert d4j_workspace.built_tests(("q.CTest",), tmp_path) == (("q.CTest",), ())


def test_exports_that_cannot_be_validated_are_refused(tmp_path):
    props = exports(tmp_path)
    with pytest.raises(Nl2FixError, match="no trigger test"):
        d4j_workspace.workspace_from_exports(bug(), tmp_path, {**props, "tests.trigger": "\n"})
    with pytest.raises(Nl2FixError, match="no relevant test"):
        d4j_workspace.workspace_from_exports(bug(), tmp_path, {**props, "tests.relevant": ""})
    with pytest.raises(Nl2FixError, match="expected one"):
        d4j_workspace.workspace_from_exports(bug(), tmp_path, {**props, "dir.bin.classes": "a\nb\n"})


def test_example_bugs_are_not_defects4j_bugs(tmp_path):
    with pytest.raises(Nl2FixError, match="example benchmark") as err:
        d4j_workspace.prepare_workspace(Defects4J(tmp_path / "none"), bug(benchmark="example"), tmp_path)
    assert "--engine fast" in err.value.hint


def test_bug_ids_keep_defects4j_spelling():
    assert d4j_workspace.parse_bug_id("JxPath-20") == ("JxPath", 20)
    with pytest.raises(Nl2FixError, match="not a Defects4J bug id"):
        d4j_workspace.parse_bug_id("JxPath 20")


def test_encoding_detection():
    assert detect_encoding(["é".encode()]) == "UTF-8"
    assert detect_encoding(["é".encode("latin-1")]) == "ISO-8859-1"


# --- The command sequence ----------------------------------------------------------------------


def test_engine_command_sequence(tmp_path):
    ws = d4j_workspace.workspace_from_exports(
        bug(), tmp_path, {**exports(tmp_path), "tests.trigger": "a.BTest::t1\na.ATest\na.CTest::t2\n"}
    )
    steps = plan(ws)
    w = str(tmp_path)
    assert [(s.phase, s.args) for s in steps] == [
        (Phase.COMPILE, ("compile", "-w", w)),
        (Phase.TRIGGER, ("test", "-w", w, "-t", "a.BTest::t1")),
        (Phase.TRIGGER, ("test", "-w", w, "-t", "a.CTest::t2")),
        (Phase.RELEVANT, ("test", "-w", w, "-r")),
    ]
    assert [s.test for s in steps] == [None, "a.BTest::t1", "a.CTest::t2", None]


def test_cli_arguments():
    w = Path("/w")
    assert d4j_cli.checkout_args("Lang", "1b", w) == ("checkout", "-p", "Lang", "-v", "1b", "-w", "/w")
    assert d4j_cli.export_args(w, "cp.test") == ("export", "-p", "cp.test", "-w", "/w")
    assert d4j_cli.info_args("Lang", 1) == ("info", "-p", "Lang", "-b", "1")
    with pytest.raises(ValueError):
        d4j_cli.test_args(w, test="a.B::c", relevant=True)
    with pytest.raises(ValueError, match="Class::method"):
        d4j_cli.test_args(w, test="a.B")


# --- Finding Defects4J and its Java ------------------------------------------------------------


def test_absent_defects4j_says_how_to_get_it(tmp_path):
    with pytest.raises(Nl2FixError, match="Defects4J is not installed") as err:
        Defects4J.find({"PATH": str(tmp_path)})
    assert "docker build -t nl2fix-d4j -f docker/Dockerfile ." in err.value.hint
    assert "cpanm --installdeps" in err.value.hint and "docker build" in err.value.hint


def test_engine_without_defects4j_fails_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    for name in d4j_cli.HOME_ENVS:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(Nl2FixError, match="Defects4J is not installed"):
        Defects4JEngine(EngineOptions(sandbox=None, cache_dir=tmp_path))


def test_locate_on_path_or_under_d4j_home(tmp_path):
    exe = tmp_path / "home" / "framework" / "bin" / "defects4j"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert d4j_cli.locate({"PATH": str(tmp_path), "D4J_HOME": str(tmp_path / "home")}) == exe
    assert d4j_cli.locate({"PATH": f"/nonexistent:{exe.parent}"}) == exe
    assert d4j_cli.locate({"PATH": ""}) is None


def test_java_home_for_defects4j(tmp_path):
    env = d4j_cli.d4j_environment({"PATH": "/usr/bin", "JAVA_HOME": "/jdk17"}, "/usr/lib/jvm/java-8")
    assert env["JAVA_HOME"] == "/usr/lib/jvm/java-8"
    assert env["PATH"].split(os.pathsep)[0] == "/usr/lib/jvm/java-8/bin"
    assert env["TZ"] == "America/Los_Angeles"
    assert d4j_cli.d4j_environment({"JAVA_HOME": "/jdk17"}, None)["JAVA_HOME"] == "/jdk17"
    exe = tmp_path / "defects4j"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    with pytest.raises(Nl2FixError, match="has no bin/java"):
        Defects4J.find({"PATH": str(tmp_path), d4j_cli.JAVA_HOME_ENV: str(tmp_path)})


def test_environment_errors_hint_at_the_fix():
    mismatch = d4j_cli.CommandResult(exec_result(stderr=recorded("compile_maxpermsize_env.stderr"), returncode=1))
    mismatch = d4j_cli.CommandResult(mismatch.result, d4j_cli.failure_of(mismatch.result))
    err = d4j_cli.environment_error("cannot compile", mismatch)
    assert d4j_cli.JAVA_HOME_ENV in err.hint and "Java 8" in err.hint
    assert "Unrecognized VM option" in err.message
    missing = d4j_cli.CommandResult(exec_result(stderr="[Errno 2] No such file or directory", returncode=127))
    assert d4j_cli.failure_of(missing.result).kind is FailureKind.BROKEN_ENVIRONMENT


# --- Reading compile and test runs (recorded outputs) ------------------------------------------


def test_compile_results():
    bad = d4j_cli.read_compile(exec_result(stderr=recorded("compile_javac_error.stderr"), returncode=1))
    assert bad.failure.kind is FailureKind.COMPILE_FAILURE
    assert bad.errors.startswith("/cache/d4j/JxPath-20/src/java/") and "cannot find symbol" in bad.errors
    env = d4j_cli.read_compile(exec_result(stderr=recorded("compile_source5_env.stderr"), returncode=1))
    assert env.failure.kind is FailureKind.BROKEN_ENVIRONMENT and env.errors == ""
    assert d4j_cli.read_compile(exec_result(stderr=recorded("compile_ok.stderr"))).failure is None


def listing(failing) -> str:
    """What d4j-test prints for a failing_tests file: the count, then classes, then methods."""
    return f"Failing tests: {failing.count}\n" + "".join(f"  - {t}\n" for t in failing.names)


def test_judging_failing_tests():
    from defects4j_adapter.d4j.parsers import parse_failing_tests

    text = recorded("failing_tests_mixed")
    run = d4j_cli.read_test_run(exec_result(listing(parse_failing_tests(text))), text, recorded("all_tests_jxpath"))
    result = judge_test_run(run)
    assert result.harness_error == ""
    assert result.failing[0] == "org.mockitousage.bugs.ParentTestMockInjectionTest$ImplicitTest"
    assert len(result.failing) == 3 and result.timed_out == [] and result.tests_run == 4
    assert result.causes[result.failing[1]].startswith("java.lang.NumberFormatException")


def test_judging_a_passing_run():
    run = d4j_cli.read_test_run(
        exec_result(recorded("test_pass.stdout"), recorded("test_lang58.stderr")), "", recorded("all_tests_jxpath")
    )
    result = judge_test_run(run)
    assert (result.failing, result.tests_run, result.harness_error, result.killed) == ([], 4, "", False)


def test_judging_defects4j_watchdog_timeouts():
    text = recorded("failing_tests_timeout")
    run = d4j_cli.read_test_run(exec_result(f"Failing tests: 1\n  - {JXPATH_TRIGGER}\n"), text, "")
    result = judge_test_run(run)
    assert result.timed_out == [JXPATH_TRIGGER]
    assert result.failing == [] and result.harness_error == ""


def test_zero_tests_or_no_evidence_is_never_a_pass():
    ran_nothing = judge_test_run(d4j_cli.read_test_run(exec_result(recorded("test_pass.stdout")), "", ""))
    assert "ran no test" in ran_nothing.harness_error
    no_record = judge_test_run(d4j_cli.read_test_run(exec_result(recorded("test_pass.stdout")), "", None))
    assert "all_tests" in no_record.harness_error
    no_summary = judge_test_run(d4j_cli.read_test_run(exec_result("", recorded("test_lang58.stderr")), None, None))
    assert "summary" in no_summary.harness_error


def test_judging_harness_failures_and_kills():
    broken = judge_test_run(d4j_cli.read_test_run(exec_result("", recorded("test_cannot_run.stderr"), 1), "", None))
    assert "cannot-run-tests" in broken.harness_error and "Test is running with empty fileset" in broken.harness_error
    inconsistent = judge_test_run(
        d4j_cli.read_test_run(
            exec_result(recorded("test_lang58.stdout")), recorded("failing_tests_mixed"), recorded("all_tests_jxpath")
        )
    )
    assert "reported 7 failing tests" in inconsistent.harness_error
    unexplained = judge_test_run(
        d4j_cli.read_test_run(exec_result(recorded("test_pass.stdout"), "boom", 3), "", recorded("all_tests_jxpath"))
    )
    assert "exit 3" in unexplained.harness_error and "boom" in unexplained.harness_error
    killed = judge_test_run(d4j_cli.read_test_run(exec_result(timed_out=True, returncode=-9), None, None))
    assert killed.killed and killed.harness_error == ""


def test_only_unexplained_harness_failures_are_tried_again():
    read_test, read_compile = d4j_cli.read_test_run, d4j_cli.read_compile
    # the candidate's own results and its budget: never
    assert harness_hiccup(read_compile(exec_result(stderr=recorded("compile_javac_error.stderr"), returncode=1))) == ""
    assert harness_hiccup(read_test(exec_result(recorded("test_pass.stdout")), "", recorded("all_tests_jxpath"))) == ""
    assert harness_hiccup(read_test(exec_result(timed_out=True, returncode=-9), None, None)) == ""
    # a set-up fault Defects4J names fails alike every time
    assert harness_hiccup(read_compile(exec_result(stderr=recorded("compile_javac18_env.stderr"), returncode=1))) == ""
    assert harness_hiccup(read_test(exec_result("", recorded("test_cannot_run.stderr"), 1), "", None)) == ""
    # an exit nothing explains, or a run that left no record: worth another try
    assert "exit 3" in harness_hiccup(read_compile(exec_result(stderr="Killed", returncode=3)))
    assert "exit 3" in harness_hiccup(
        read_test(exec_result(recorded("test_pass.stdout"), "boom", 3), "", recorded("all_tests_jxpath"))
    )
    assert "summary" in harness_hiccup(read_test(exec_result("", recorded("test_lang58.stderr")), None, None))


def failing_run(failing_text: str) -> d4j_cli.TestRun:
    from defects4j_adapter.d4j.parsers import parse_failing_tests

    return d4j_cli.read_test_run(
        exec_result(listing(parse_failing_tests(failing_text))), failing_text, recorded("all_tests_jxpath")
    )


TRIGGER = Step(Phase.TRIGGER, ("test", "-w", "/w", "-t", "a.T::t"), "a.T::t")


def test_uncompilable_candidate_versus_broken_compiler():
    outcome, go_on = absorb_compile(
        Outcome(phase=Phase.COMPILE, compiled=False),
        d4j_cli.read_compile(exec_result(stderr=recorded("compile_javac_error.stderr"), returncode=1)),
    )
    assert not go_on
    assert "cannot find symbol" in outcome.compile_errors and outcome.harness_error == ""
    assert outcome.cpu_seconds == 9.5
    env, go_on = absorb_compile(
        Outcome(phase=Phase.COMPILE, compiled=False),
        d4j_cli.read_compile(exec_result(stderr=recorded("compile_javac18_env.stderr"), returncode=1)),
    )
    assert not go_on
    assert "Class not found: javac1.8" in env.harness_error and env.compile_errors == ""
    ok, go_on = absorb_compile(
        Outcome(phase=Phase.COMPILE, compiled=False),
        d4j_cli.read_compile(exec_result(stderr=recorded("compile_ok.stderr"))),
    )
    assert go_on and ok.compiled


def test_first_new_failure_stops_a_candidate_but_not_a_baseline():
    text = recorded("failing_tests_mixed")
    outcome, go_on = absorb_test(
        Outcome(phase=Phase.TRIGGER, compiled=True), TRIGGER, failing_run(text), frozenset(), stop_early=True
    )
    assert not go_on
    assert len(outcome.failing_tests) == 3 and outcome.tests_run == 4
    assert outcome.messages["org.mockitousage.bugs.ParentTestMockInjectionTest$ImplicitTest"].startswith("java.lang.")
    baseline = Outcome(phase=Phase.TRIGGER, compiled=True)
    for _ in range(2):
        baseline, go_on = absorb_test(baseline, TRIGGER, failing_run(text), frozenset(), stop_early=False)
        assert go_on
    assert len(baseline.failing_tests) == 3 and baseline.tests_run == 8


def test_known_failures_do_not_stop_or_count():
    text = recorded("failing_tests_mixed")
    from defects4j_adapter.d4j.parsers import parse_failing_tests

    known = frozenset(parse_failing_tests(text).names)
    outcome, go_on = absorb_test(
        Outcome(phase=Phase.TRIGGER, compiled=True), TRIGGER, failing_run(text), known, stop_early=True
    )
    assert go_on
    assert len(outcome.failing_tests) == 3 and outcome.detail == "" and not outcome.timed_out


def test_timeouts_stop_the_candidate():
    trigger = Outcome(phase=Phase.TRIGGER, compiled=True)
    outcome, go_on = absorb_test(trigger, TRIGGER, failing_run(recorded("failing_tests_timeout")), frozenset(), True)
    assert not go_on
    assert outcome.timed_out and outcome.failing_tests == () and len(outcome.timed_out_tests) == 1
    run = d4j_cli.read_test_run(exec_result(timed_out=True, returncode=-9), None, None)
    killed, go_on = absorb_test(trigger, TRIGGER, run, frozenset(), stop_early=False)
    assert not go_on
    assert killed.timed_out and "`defects4j test -t a.T::t` killed after 12 s" in killed.detail
    run = d4j_cli.read_test_run(exec_result("", recorded("test_cannot_run.stderr"), 1), "", None)
    broken, go_on = absorb_test(trigger, TRIGGER, run, frozenset(), stop_early=False)
    assert not go_on
    assert broken.harness_error and not broken.timed_out and broken.tests_run == 0


# --- The cache and candidate slots (real git checkouts) -----------------------------------------


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def fake_checkout(cache: Path, bug_id: str = "JxPath-20") -> tuple[Path, dict[str, str]]:
    """A git work tree laid out as a Defects4J checkout (the buggy revision committed as HEAD),
    with its state file, as ensure_checkout leaves it."""
    root = d4j_workspace.checkout_root(cache, bug_id)
    (root / "src/java").mkdir(parents=True)
    (root / "src/test").mkdir(parents=True)
    (root / "src/java/A.java").write_text("class A { int f() { return 1; } }\n")
    (root / "src/test/ATest.java").write_text("class ATest {}\n")
    (root / ".defects4j.config").write_text("#File automatically generated by Defects4J\npid=JxPath\nvid=20b\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=d4j", "-c", "user.email=d4j@localhost", "commit", "-qm", "D4J_JxPath_20_BUGGY_VERSION")
    props = exports(root)
    root.with_name(root.name + ".json").write_text(json.dumps({"bug": bug_id, "version": "20b", "properties": props}))
    return root, props


def test_cached_checkout_is_reused_without_defects4j(tmp_path):
    root, props = fake_checkout(tmp_path)
    # The executable does not exist: any Defects4J call would fail, so reuse must not make one.
    checkout = d4j_workspace.ensure_checkout(Defects4J(tmp_path / "no-defects4j"), "JxPath-20", tmp_path)
    assert checkout.root == root and checkout.properties == props
    # cached before the history was dropped: dropped now (Defects4J commits the fixed version there)
    assert not (root / ".git").exists() and (root / "src/java/A.java").is_file()


def test_incomplete_or_foreign_state_is_not_reused(tmp_path):
    root, props = fake_checkout(tmp_path)
    state = root.with_name(root.name + ".json")
    assert d4j_workspace.load_state(root, "20b") == props
    assert d4j_workspace.load_state(root, "21b") is None
    state.write_text(json.dumps({"version": "20b", "properties": {"cp.test": "x"}}))
    assert d4j_workspace.load_state(root, "20b") is None
    state.write_text("{not json")
    assert d4j_workspace.load_state(root, "20b") is None
    # A half-made checkout is redone, which needs Defects4J: here, the clear error of its absence.
    with pytest.raises(Nl2FixError, match="cannot check out JxPath-20"):
        d4j_workspace.ensure_checkout(Defects4J(tmp_path / "no-defects4j"), "JxPath-20", tmp_path)


class FlakyDefects4J(Defects4J):
    """Defects4J whose checkout prints ``failures`` (one a call) before it goes through."""

    def __init__(self, failures: list[str]):
        super().__init__(Path("/nonexistent/defects4j"), base_env={})
        self.failures, self.checkouts, self.builds = failures, 0, 0

    def checkout(self, project, version, work_dir, *, timeout=0.0):
        self.checkouts += 1
        if self.failures:
            failed = _exec(1, self.failures.pop(0))
            return d4j_cli.CommandResult(failed, d4j_cli.failure_of(failed))
        (work_dir / ".git" / "refs" / "tags").mkdir(parents=True)
        (work_dir / ".git" / "refs" / "tags" / "D4J_JxPath_20_FIXED_VERSION").write_text("f1xed\n")
        (work_dir / ".defects4j.config").write_text(f"pid={project}\nvid={version}\n")
        return d4j_cli.CommandResult(_exec(0, ""))

    def export_and_compile(self, work_dir, props=d4j_cli.EXPORT_PROPERTIES, *, timeout=0.0):
        self.builds += 1
        return exports(work_dir), d4j_cli.CompileResult(_exec(0, ""))


def _exec(code: int, stderr: str) -> ExecResult:
    return ExecResult(("defects4j",), code, "", stderr, 0.0, 0.0)


def test_a_transient_checkout_failure_is_tried_again_and_logged(tmp_path, caplog):
    waits: list[float] = []
    d4j = FlakyDefects4J(["Tag post-fix revision .............................................. FAIL"])
    backoff = d4j_workspace.Backoff(attempts=3, first_delay=0.01, sleep=waits.append)
    checkout = d4j_workspace.ensure_checkout(d4j, "JxPath-20", tmp_path, backoff=backoff)
    assert (d4j.checkouts, d4j.builds, waits) == (2, 1, [0.01])
    assert checkout.properties["dir.src.classes"] == "src/java\n"
    assert not (checkout.root / ".git").exists()  # no candidate's copy holds the fixed version
    assert "`defects4j checkout` of JxPath-20 failed (try 1 of 3: cannot check out JxPath-20" in caplog.text


def test_a_set_up_failure_is_not_tried_again(tmp_path):
    waits: list[float] = []
    d4j = FlakyDefects4J(["Exception in thread main: UnsupportedClassVersionError"] * 3)
    backoff = d4j_workspace.Backoff(attempts=3, first_delay=0.01, sleep=waits.append)
    with pytest.raises(Nl2FixError, match="cannot check out JxPath-20") as err:
        d4j_workspace.ensure_checkout(d4j, "JxPath-20", tmp_path, backoff=backoff)
    assert (d4j.checkouts, waits) == (1, []) and "Java 11" in (err.value.hint or "")


def test_each_candidate_gets_a_fresh_copy_that_holds_nothing_of_the_one_before(tmp_path):
    root, _ = fake_checkout(tmp_path)
    (root / "target/classes").mkdir(parents=True)
    (root / "target/classes/A.class").write_bytes(b"buggy build")
    with d4j_workspace.candidate_slot(root, slots=2) as slot:
        assert slot != root and (slot / "src/java/A.java").is_file() and (slot / ".git").is_dir()
        # what a candidate's build or tests could leave: edits, untracked and ignored files, build
        # outputs, dot-folders, a folder nobody may enter
        (slot / "src/java/A.java").write_text("class A { int f() { return 2; } }\n")
        (slot / "src/test/ATest.java").write_text("class ATest { broken }\n")
        (slot / "target/classes/A.class").write_bytes(b"planted")
        (slot / "target/classes/Planted.class").write_bytes(b"planted")
        (slot / ".ant").mkdir()
        (slot / "build.xml").write_text("<project><exec executable='planted'/></project>")
        (slot / "failing_tests").write_text("")
        (slot / "locked").mkdir()
        (slot / "locked/x").write_text("x")
        (slot / "locked").chmod(0)
        assert (root / "src/java/A.java").read_text() == "class A { int f() { return 1; } }\n"
    assert list(slot.iterdir()) == []  # emptied, whatever modes the job left
    with d4j_workspace.candidate_slot(root, slots=1) as again:
        assert again == slot and "return 1" in (again / "src/java/A.java").read_text()
        assert (again / "src/test/ATest.java").read_text() == "class ATest {}\n"
        assert (again / "target/classes/A.class").read_bytes() == b"buggy build"
        left = {p.relative_to(again).as_posix() for p in again.rglob("*") if ".git/" not in p.as_posix()}
        assert {p.relative_to(root).as_posix() for p in root.rglob("*") if ".git/" not in p.as_posix()} == left
    # a copy a killed run left behind is not reused
    (slot / "src").mkdir(parents=True)
    (slot / "src/leftover").write_text("x")
    with d4j_workspace.candidate_slot(root, slots=1) as third:
        assert not (third / "src/leftover").exists()


def test_concurrent_candidates_get_different_slots(tmp_path):
    root, props = fake_checkout(tmp_path)
    held, seen, release = threading.Barrier(3), [], threading.Event()

    def judge():
        with d4j_workspace.candidate_slot(root, slots=2) as slot:
            seen.append(slot)
            held.wait(timeout=10)
            release.wait(timeout=10)

    threads = [threading.Thread(target=judge) for _ in range(2)]
    for t in threads:
        t.start()
    held_ok = True
    try:
        held.wait(timeout=10)
    except threading.BrokenBarrierError:
        held_ok = False
    release.set()
    for t in threads:
        t.join(timeout=10)
    assert held_ok and len(set(seen)) == 2


def test_engine_run_when_defects4j_is_gone(tmp_path):
    """A whole ``run`` on a cached checkout whose Defects4J has since disappeared: the candidate is
    spliced into a private slot, the missing tool is a harness error (never a verdict), and the
    slot is reset afterwards."""
    root, _ = fake_checkout(tmp_path)
    engine = Defects4JEngine(EngineOptions(sandbox=None, cache_dir=tmp_path), d4j=Defects4J(tmp_path / "gone"))
    target = bug(path="src/java/A.java", start_line=1, end_line=1, buggy_method="class A { int f() { return 1; } }")
    workspace = engine.prepare(target)
    assert workspace.root == root and workspace.target_file == root / "src/java/A.java"
    outcome = engine.run(workspace, "class A { int f() { return 2; } }", log_dir=tmp_path / "logs")
    assert outcome.phase is Phase.COMPILE and not outcome.compiled and outcome.tests_run == 0
    assert "tool-missing" in outcome.harness_error
    assert "return 2" in (tmp_path / "logs" / "A.java").read_text()
    assert (tmp_path / "logs" / "00-compile.err").is_file() and outcome.log_dir == tmp_path / "logs"
    assert list((tmp_path / "d4j" / "JxPath-20.slots" / "0").iterdir()) == []  # the candidate's copy is gone
    assert "return 1" in (root / "src/java/A.java").read_text()
    unbalanced = engine.run(workspace, "class A { int f() { return 2; }", log_dir=tmp_path / "logs2")
    assert unbalanced.phase is Phase.SPLICE and "braces" in unbalanced.compile_errors
    assert unbalanced.harness_error == "" and not (tmp_path / "logs2" / "00-compile.err").exists()
    moved = engine.run(replace(workspace, bug=replace(target, buggy_method="int g() {}")), "int g() { }")
    assert moved.phase is Phase.SPLICE and "not at lines 1-1" in moved.harness_error


# --- The docker image --------------------------------------------------------------------------


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)``: comment lines dropped (as Docker does, also inside a continued
    instruction), then line continuations joined."""
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line:
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_pins_defects4j_and_installs_nl2fix():
    steps = dockerfile_instructions((REPO / "docker" / "Dockerfile").read_text())
    words = [w for w, _ in steps]
    assert words[0] == "FROM" and all(
        w in {"FROM", "ARG", "ENV", "RUN", "COPY", "USER", "WORKDIR", "VOLUME", "ENTRYPOINT", "CMD"} for w in words
    )
    args = dict(a.split("=", 1) for w, a in steps if w == "ARG")
    assert args["D4J_VERSION"] == "v2.0.1" and args["D4J_JAVA"] == "8"
    runs = " && ".join(a for w, a in steps if w == "RUN")
    assert 'git clone --depth 1 --branch "${D4J_VERSION}" https://github.com/rjust/defects4j.git' in runs
    assert "cpanm --notest --installdeps ." in runs and "./init.sh" in runs
    assert "openjdk-8-jdk-headless" in runs and "subversion" in runs and "cpanminus" in runs
    assert "junit4 libhamcrest-java" in runs  # the runner's JUnit (runner.JUNIT_JARS), for nl2fix's own re-run
    assert "pip install" in runs and "/opt/nl2fix" in runs
    env = " ".join(a for w, a in steps if w == "ENV")
    assert "framework/bin" in env and f"{d4j_cli.JAVA_HOME_ENV}=" in env
    # nl2fix runs as the container's root so that each job runs as a uid of its own (ContainerSandbox); what a
    # job must not read is closed to others: the runs, nl2fix's source, Defects4J's copies of the fixes
    assert [a for w, a in steps if w == "USER"] == []
    assert "chmod 0700 /runs /opt/nl2fix" in runs and "framework/projects/*/patches" in runs
    assert "project_repos" in runs and "! -name README" in runs


def test_dockerfile_copies_files_that_exist():
    steps = dockerfile_instructions((REPO / "docker" / "Dockerfile").read_text())
    sources = [shlex.split(a)[:-1] for w, a in steps if w == "COPY"]
    assert sources and all((REPO / s).exists() for group in sources for s in group)
    entry = REPO / "docker" / "entrypoint.sh"
    assert os.access(entry, os.X_OK)
    assert "defects4j_adapter.workspaces.defects4j" in entry.read_text()
    entrypoint = json.loads(next(a for w, a in steps if w == "ENTRYPOINT"))
    assert entrypoint == ["/usr/local/bin/nl2fix-entrypoint"]


def test_precheckout_entry_point_usage(capsys):
    assert d4j_workspace.main([]) == 2
    assert "Lang-1" in capsys.readouterr().out


# --- The real thing (needs Defects4J) ----------------------------------------------------------


needs_defects4j = pytest.mark.skipif(
    d4j_cli.locate() is None,
    reason="Defects4J is not installed (no `defects4j` "
    "on PATH or under $D4J_HOME); build docker/Dockerfile to run these",
)


@pytest.fixture(scope="module")
def jxpath5(shared_data, tmp_path_factory):
    # JxPath-5, not -20: JxPath-20's ground truth needs a change outside the method (the dataset's),
    # so it does not compile under Defects4J either
    from nl2fix.dataset.load import load_dataset

    target = load_dataset(shared_data / "nl2fix_dataset.json").bugs["JxPath-5"]
    cache = tmp_path_factory.mktemp("d4j-cache")
    engine = Defects4JEngine(EngineOptions(sandbox=None, cache_dir=cache, settings=EngineSettings(workers=1)))
    return engine, engine.prepare(target), target


@pytest.mark.defects4j
@pytest.mark.dataset
@needs_defects4j
def test_real_engine_judges_fixed_buggy_and_broken(jxpath5):
    engine, workspace, target = jxpath5
    assert workspace.trigger_tests and workspace.classes_dir.is_dir()
    fixed = engine.run(workspace, target.fixed_method, stop_at_first_failure=False)
    assert fixed.harness_error == "" and fixed.phase is Phase.DONE and fixed.tests_run > 0
    known = frozenset(fixed.failing_tests)
    buggy = engine.run(workspace, target.buggy_method, known_failures=known)
    assert buggy.compiled and buggy.phase is Phase.TRIGGER and buggy.harness_error == ""
    assert workspace.trigger_tests[0] in buggy.failing_tests
    broken = engine.run(workspace, target.buggy_method.replace("{", "{ undefinedCall();", 1), known_failures=known)
    assert not broken.compiled and "error" in broken.compile_errors and broken.harness_error == ""
    assert fixed.cpu_seconds > 0 and (fixed.log_dir / "00-compile.err").is_file()


@pytest.mark.defects4j
@pytest.mark.dataset
@needs_defects4j
def test_a_candidate_that_would_rewrite_defects4j_s_result_files_is_rejected_before_its_tests(jxpath5):
    # the buggy method plus a shutdown hook that empties the failing_tests file Defects4J reads
    engine, workspace, target = jxpath5
    outcome = engine.run(workspace, red_team_attack("empty_result_files", target))
    assert outcome.compiled and outcome.phase is Phase.COMPILE and outcome.tests_run == 0
    assert "java.lang.Runtime#addShutdownHook" in outcome.rejection
    assert engine.run(workspace, target.fixed_method).rejection == ""
