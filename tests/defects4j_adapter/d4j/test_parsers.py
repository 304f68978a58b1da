"""The Defects4J output parsers on recorded outputs (tests/fixtures/defects4j; README.md there names
the source of each sample: an rjust/defects4j issue where it was pasted, or the Defects4J code
that prints it)."""

from __future__ import annotations

import pytest

from defects4j_adapter.d4j import parsers as p
from defects4j_adapter.d4j.parsers import FailureKind
from tests.helpers.paths import FIXTURES

DATA = FIXTURES / "defects4j"


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_failing_tests_summary_lists_every_method():
    # rjust/defects4j#206: Lang-58b, seven failing methods.
    report = p.parse_test_output(recorded("test_lang58.stdout"))
    assert report.count == 7
    assert report.failing[0] == "org.apache.commons.lang.math.NumberUtilsTest::testLang300"
    assert report.failing[-1] == "org.apache.commons.lang.time.DateUtilsTest::testTruncateLang59"
    assert len(report.failing) == 7


def test_no_failing_test_and_missing_summary():
    # d4j-test prints "Failing tests: 0" and nothing else when all pass.
    assert p.parse_test_output(recorded("test_pass.stdout")) == p.TestReport(0, ())
    # A run that died before reporting has no summary at all: that is not "0 failing".
    assert p.parse_test_output(recorded("test_lang58.stderr")) is None


def test_class_level_failures_show_the_class_alone():
    # rjust/defects4j#464/#198: class-level errors first (inner classes keep their $), then methods.
    report = p.parse_test_output(recorded("test_mockito_classes.stdout"))
    assert report.count == 6
    assert "org.mockitousage.bugs.ParentTestMockInjectionTest$BaseTest" in report.failing
    assert [t for t in report.failing if "::" not in t] == list(report.failing[:4])


def test_failing_tests_file_as_defects4j_reads_it():
    # Formatter.java writes "--- Class::method" (or "--- Class") then the stack trace.
    failing = p.parse_failing_tests(recorded("failing_tests_mixed"))
    assert failing.methods == (
        "org.apache.commons.lang.math.NumberUtilsTest::testLang300",
        "org.apache.commons.lang.time.DateUtilsTest::testRound",
    )
    assert failing.classes == ("org.mockitousage.bugs.ParentTestMockInjectionTest$ImplicitTest",)
    assert failing.count == 3
    assert failing.names[0] == failing.classes[0]
    assert failing.causes["org.apache.commons.lang.math.NumberUtilsTest::testLang300"] == (
        "java.lang.NumberFormatException: 1l is not a valid number."
    )
    assert failing.causes["org.mockitousage.bugs.ParentTestMockInjectionTest$ImplicitTest"].startswith(
        "java.lang.Exception: No runnable methods"
    )


def test_stack_trace_lines_are_not_tests():
    text = recorded("failing_tests_mixed")
    assert all(not name.startswith(("\tat", "java.", "junit.")) for name in p.parse_failing_tests(text).names)
    assert p.parse_failing_tests("") == p.FailingTests()


def test_all_tests_file_names_each_started_test():
    # Formatter.startTest prints test.toString(), i.e. "method(Class)".
    started = p.parse_all_tests(recorded("all_tests_jxpath"))
    assert started[0] == "org.apache.commons.jxpath.ri.compiler.JXPath149Test::testComplexOperationWithVariables"
    assert started[-1] == "org.apache.commons.jxpath.ri.compiler.CoreOperationTest::testParameterized[0]"
    assert len(started) == 4
    assert p.parse_all_tests("\n\n") == ()


@pytest.mark.parametrize(
    "sample, kind, name",
    [
        ("compile_javac_error.stderr", FailureKind.COMPILE_FAILURE, "compile"),
        ("compile_tests_error.stderr", FailureKind.COMPILE_FAILURE, "compile"),
        ("compile_javac18_env.stderr", FailureKind.BROKEN_ENVIRONMENT, "java-version-mismatch"),
        ("compile_maxpermsize_env.stderr", FailureKind.BROKEN_ENVIRONMENT, "java-version-mismatch"),
        ("compile_source5_env.stderr", FailureKind.BROKEN_ENVIRONMENT, "java-version-mismatch"),
        ("java_version_mismatch.stderr", FailureKind.BROKEN_ENVIRONMENT, "java-version-mismatch"),
        ("perl_dbi_missing.stderr", FailureKind.BROKEN_ENVIRONMENT, "perl-module-missing"),
        ("not_initialised.stderr", FailureKind.BROKEN_ENVIRONMENT, "defects4j-not-initialised"),
        ("test_cannot_run.stderr", FailureKind.BROKEN_ENVIRONMENT, "cannot-run-tests"),
        ("checkout_invalid_project.stderr", FailureKind.CHECKOUT_FAILURE, "checkout"),
        ("failing_tests_timeout", FailureKind.TEST_TIMEOUT, "junit-watchdog"),
        ("test_lang58.stdout", FailureKind.TEST_FAILURE, "failing-tests"),
    ],
)
def test_failure_signatures(sample, kind, name):
    sig = p.classify_failure(recorded(sample))
    assert (sig.kind, sig.name) == (kind, name)
    assert sig.kind.candidates_fault == (
        kind in (FailureKind.COMPILE_FAILURE, FailureKind.TEST_FAILURE, FailureKind.TEST_TIMEOUT)
    )


def test_successful_outputs_match_no_signature():
    for sample in ("compile_ok.stderr", "checkout_mockito1b.stderr", "test_pass.stdout", "test_lang58.stderr"):
        assert p.classify_failure(recorded(sample)) is None, sample


def test_candidate_text_echoed_by_javac_cannot_pose_as_a_broken_environment():
    # javac prints the offending source line under the error; a candidate's string literal there
    # must not turn an uncompilable candidate into a harness error.
    echo = (
        "    [javac] /w/src/A.java:3: error: ';' expected\n"
        '    [javac]         String s = "java: command not found; Could not find or load main class X"\n'
        "    [javac]                                                                         ^\n"
        "Cannot compile sources! at /defects4j/framework/bin/d4j/d4j-compile line 82.\n"
    )
    assert p.classify_failure(echo).kind is FailureKind.COMPILE_FAILURE
    shell = p.classify_failure("bash: java: command not found\nCannot compile sources!")
    assert shell.kind is FailureKind.BROKEN_ENVIRONMENT


def test_first_compiler_errors_with_their_context():
    errors = p.compile_errors(recorded("compile_javac_error.stderr"))
    lines = errors.splitlines()
    assert lines[0].endswith("CoreOperationRelationalExpression.java:78: error: cannot find symbol")
    assert "  symbol:   class InitialContxt" in lines
    assert lines[-3].endswith(":99: error: missing return statement")
    # Warnings, notes and the "2 errors" tally are not errors.
    assert "warning" not in errors and "Note:" not in errors and "2 errors" not in errors
    assert p.compile_errors(recorded("compile_javac_error.stderr"), limit=1).count("error:") == 1


def test_compiler_errors_in_tests_and_global_errors():
    tests = p.compile_errors(recorded("compile_tests_error.stderr"))
    assert "NumberUtilsTest.java:255: error: method createNumber" in tests
    assert "  reason: actual and formal argument lists differ in length" in tests
    assert p.compile_errors(recorded("compile_source5_env.stderr")).splitlines() == [
        "error: Source option 5 is no longer supported. Use 6 or higher.",
        "error: Target option 1.5 is no longer supported. Use 1.6 or higher.",
    ]
    assert p.compile_errors(recorded("compile_ok.stderr")) == ""


def test_failed_step_names_the_ant_target():
    assert p.failed_step(recorded("compile_javac_error.stderr")) == "Running ant (compile)"
    assert p.failed_step(recorded("compile_tests_error.stderr")) == "Running ant (compile.tests)"
    assert p.failed_step(recorded("compile_ok.stderr")) == ""


def test_export_values():
    # rjust/defects4j#410 (cp.test of Math-70), d4j-export prints the value then a newline.
    cp = p.parse_classpath(recorded("export_cp_test_math70.stdout"))
    assert cp == (
        "/home/ab/math-70/target/classes",
        "/home/ab/math-70/target/test-classes",
        "/home/ab/defects4j/framework/projects/lib/junit-4.11.jar",
        "/home/ab/math-70/lib/junit-4.4.jar",
    )
    # rjust/defects4j#468: unresolved ant properties and repeats are dropped.
    cli = p.parse_classpath(recorded("export_cp_test_cli40.stdout"))
    assert len(cli) == 2 and not any("${" in e for e in cli)
    assert p.parse_export_list(recorded("export_tests_trigger_lang1.stdout")) == (
        "org.apache.commons.lang3.math.NumberUtilsTest::TestLang747",
    )
    relevant = p.parse_export_list(recorded("export_tests_relevant_jxpath20.stdout"))
    assert len(relevant) == 6 and "org.apache.commons.jxpath.ri.compiler.JXPath149Test" in relevant


def test_info_of_a_bug():
    info = p.parse_info(recorded("info_lang1.stdout"))
    assert info.project["Project ID"] == "Lang"
    assert info.project["Number of bugs"] == "64"
    assert info.bug == "Lang-1"
    assert info.value("Revision ID (fixed version)") == "687b2e62b7c6e81cd9d5c872b7fa9cc8fd3f1509"
    assert info.value("Bug report id") == "LANG-747"
    assert info.root_causes == {
        "org.apache.commons.lang3.math.NumberUtilsTest::TestLang747": 'java.lang.NumberFormatException: For input string: "80000000"'  # noqa: E501
    }
    assert info.modified_sources == ("org.apache.commons.lang3.math.NumberUtils",)
    assert p.parse_info(recorded("info_lang1.stdout").split("Summary for Bug")[0]).bug == ""
