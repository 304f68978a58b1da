"""Reading the Java runner's report (recorded outputs) and turning it into engine outcomes."""

from __future__ import annotations

from defects4j_adapter.engine import Phase
from defects4j_adapter.runner_output import Status, parse, to_outcome, unescape

RUN = (
    "NL2FIX\tGUARD\texit\n"
    "NL2FIX\tSTART\tx\n"
    "NL2FIX\tPHASE\ttrigger\n"
    "NL2FIX\tBEGIN\torg.mini.CalcTest::testClampHigh\n"
    "NL2FIX\tTEST\tfail\torg.mini.CalcTest::testClampHigh\t13\tjava.lang.AssertionError: expected:<10> but was:<0>"
    "\\n\\tat org.junit.Assert.fail(Assert.java:89)\\n\n"
    "some line a test printed to stdout\n"
    "NL2FIX\tPHASE\trelevant\n"
    "NL2FIX\tBEGIN\torg.mini.CalcTest::testClampInside\n"
    "NL2FIX\tTEST\tpass\torg.mini.CalcTest::testClampInside\t3\t\n"
    "NL2FIX\tBEGIN\torg.mini.CalcTest::testSkipped\n"
    "NL2FIX\tTEST\tskip\torg.mini.CalcTest::testSkipped\t0\tassumption failed\n"
    "NL2FIX\tCLASS\torg.mini.BrokenTest\tjava.lang.ExceptionInInitializerError\\n\\tat ...\n"
    "NL2FIX\tEND\tx\tcomplete\t0\n"
)


def test_a_complete_run_is_read_test_by_test():
    (report,) = parse(RUN)
    assert report.id == "x" and report.guarded is True and report.end == "complete"
    assert [(t.name, t.status) for t in report.tests] == [
        ("org.mini.CalcTest::testClampHigh", Status.FAIL),
        ("org.mini.CalcTest::testClampInside", Status.PASS),
        ("org.mini.CalcTest::testSkipped", Status.SKIP),
    ]
    assert report.tests[0].message.startswith("java.lang.AssertionError: expected:<10> but was:<0>\n\tat ")
    assert report.class_failures[0].name == "org.mini.BrokenTest"
    outcome = to_outcome(report)
    assert outcome.phase is Phase.DONE and outcome.compiled
    assert outcome.failing_tests == ["org.mini.CalcTest::testClampHigh", "org.mini.BrokenTest"]
    assert outcome.tests_run == 3  # two tests and one class; the skipped test did not run
    assert outcome.messages["org.mini.CalcTest::testClampHigh"] == "java.lang.AssertionError: expected:<10> but was:<0>"


def test_escapes_round_trip():
    assert unescape("a\\tb\\nc\\\\n\\r") == "a\tb\nc\\n\r"


def test_a_compile_error_is_uncompilable_with_the_messages():
    text = "NL2FIX\tSTART\tc1\nNL2FIX\tCOMPILE\terror\tCalc.java:25: error: ';' expected\\n\nNL2FIX\tEND\tc1\tcompile-error\t0\n"
    outcome = to_outcome(parse(text)[-1])
    assert not outcome.compiled and outcome.phase is Phase.COMPILE
    assert outcome.compile_errors == "Calc.java:25: error: ';' expected\n"
    assert not outcome.harness_error


def test_a_warm_jvm_answers_several_jobs_in_one_stream():
    text = "NL2FIX\tGUARD\texit\nNL2FIX\tREADY\n" + RUN.split("\n", 1)[1] + RUN.split("\n", 1)[1].replace("\tx", "\ty")
    reports = parse(text)
    assert [r.id for r in reports] == ["x", "y"] and all(r.guarded for r in reports)


def test_a_stopped_run_is_not_done():
    text = ("NL2FIX\tSTART\tx\nNL2FIX\tCOMPILE\tok\t\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\n"
            "NL2FIX\tTEST\tfail\tA::t\t1\tboom\nNL2FIX\tEND\tx\tstopped\t0\n")
    outcome = to_outcome(parse(text)[-1])
    assert outcome.phase is Phase.TRIGGER and outcome.failing_tests == ["A::t"]


def test_a_test_over_the_per_test_limit_is_a_timeout():
    text = ("NL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\n"
            "NL2FIX\tTEST\ttimeout\tA::t\t2000\ttest timed out after 2000 ms\nNL2FIX\tEND\tx\tstopped\t1\n")
    report = parse(text)[-1]
    outcome = to_outcome(report)
    assert report.restart and outcome.timed_out and outcome.timed_out_tests == ["A::t"] and not outcome.failing_tests


def test_a_jvm_killed_at_the_candidate_limit_times_out_the_running_test():
    text = "NL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\n"
    outcome = to_outcome(parse(text)[-1], killed_for_time=True)
    assert outcome.timed_out and outcome.timed_out_tests == ["A::t"] and not outcome.harness_error


def test_a_jvm_that_ends_during_a_test_fails_that_test():
    text = "NL2FIX\tGUARD\tnone\nNL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\n"
    outcome = to_outcome(parse(text)[-1])
    assert outcome.failing_tests == ["A::t"] and "JVM ended" in outcome.messages["A::t"]


def test_a_jvm_that_ends_before_any_test_is_a_harness_error():
    outcome = to_outcome(parse("")[-1], stderr_tail="Error: Could not find or load main class")
    assert "ended without reporting" in outcome.harness_error and "main class" in outcome.harness_error


def test_a_test_thread_that_cannot_be_stopped_is_a_timeout():
    text = ("NL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\n"
            "NL2FIX\tTEST\ttimeout\tA::t\t2000\tx\nNL2FIX\tEND\tx\tpoisoned\t1\n")
    outcome = to_outcome(parse(text)[-1])
    assert outcome.timed_out and outcome.phase is not Phase.DONE


def test_runner_errors_are_harness_errors():
    text = "NL2FIX\tSTART\tx\nNL2FIX\tERROR\tthe compiler failed: boom\nNL2FIX\tEND\tx\terror\t1\n"
    assert "compiler failed" in to_outcome(parse(text)[-1]).harness_error


def test_a_complete_run_without_a_result_for_a_trigger_test_is_a_harness_error():
    text = ("NL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tPHASE\trelevant\nNL2FIX\tBEGIN\tA::u\n"
            "NL2FIX\tTEST\tpass\tA::u\t1\t\nNL2FIX\tEND\tx\tcomplete\t0\n")
    assert "A::t" in to_outcome(parse(text)[-1], triggers=("A::t",)).harness_error
    assert not to_outcome(parse(text)[-1], triggers=("A::u",)).harness_error
    # a failure or skip of the trigger test's whole class is a result for it
    whole_class = text.replace("NL2FIX\tEND", "NL2FIX\tCLASS\tB\tboom\nNL2FIX\tEND")
    assert not to_outcome(parse(whole_class)[-1], triggers=("B::t",)).harness_error


def test_a_test_that_began_and_never_finished_in_a_finished_run_fails():
    text = ("NL2FIX\tSTART\tx\nNL2FIX\tPHASE\ttrigger\nNL2FIX\tBEGIN\tA::t\nNL2FIX\tPHASE\trelevant\n"
            "NL2FIX\tBEGIN\tA::u\nNL2FIX\tTEST\tpass\tA::u\t1\t\nNL2FIX\tEND\tx\tcomplete\t0\n")
    outcome = to_outcome(parse(text)[-1])
    assert outcome.failing_tests == ["A::t"] and "never finished" in outcome.messages["A::t"]


def test_a_compile_failure_without_a_diagnostic_is_the_harness_s_error():
    text = "NL2FIX\tSTART\tc1\nNL2FIX\tCOMPILE\terror\t\nNL2FIX\tEND\tc1\tcompile-error\t0\n"
    outcome = to_outcome(parse(text)[-1])
    assert not outcome.compiled and not outcome.compile_errors
    assert "without reporting a compile error" in outcome.harness_error
