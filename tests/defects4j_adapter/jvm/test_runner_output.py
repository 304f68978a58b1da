"""Reading the Java runner's report (recorded outputs) and turning it into engine outcomes.

The runner signs what decides a verdict with the job's key; :func:`runner` below writes a report
the way it does, from a readable script of plain lines."""

from __future__ import annotations

import base64
import hashlib

from defects4j_adapter.contract import Phase
from defects4j_adapter.engines.runner_output import (
    PREFIX,
    SKIPPED,
    Status,
    is_signed_end,
    outcome_of,
    read_job,
    unescape,
)
from defects4j_adapter.jvm.report_signing import JobKey, mac, new_key, siphash24

KEY = JobKey(0x0706050403020100, 0x0F0E0D0C0B0A0908)


def runner(script: str, key: JobKey = KEY, job: str = "x") -> str:
    """The runner's output for ``script`` (``KIND<TAB>fields`` lines, as the runner's events): plain
    progress lines for PHASE and BEGIN, and every event signed and numbered like ``Report.signed``."""
    out, seq = ["NL2FIX\tGUARD\texit\n"], 0
    for line in script.strip("\n").split("\n"):
        kind = line.split("\t", 1)[0]
        if kind in ("PHASE", "BEGIN"):
            out.append(PREFIX + line + "\n")
        body = f"{seq}\t{job}\t{line}"
        out.append(f"{PREFIX}SIGNED\t{body}\t{mac(key, body)}\n")
        seq += 1
    return "".join(out)


RUN = (
    "START\n"
    "COMPILE\tok\t\n"
    "PHASE\ttrigger\n"
    "BEGIN\torg.mini.CalcTest::testClampHigh\n"
    "TEST\tfail\torg.mini.CalcTest::testClampHigh\t13\tjava.lang.AssertionError: expected:<10> but was:<0>"
    "\\n\\tat org.junit.Assert.fail(Assert.java:89)\\n\n"
    "PHASE\trelevant\n"
    "BEGIN\torg.mini.CalcTest::testClampInside\n"
    "TEST\tpass\torg.mini.CalcTest::testClampInside\t3\t\n"
    "BEGIN\torg.mini.CalcTest::testSkipped\n"
    "TEST\tskip\torg.mini.CalcTest::testSkipped\t0\tassumption failed\n"
    "CLASS\torg.mini.BrokenTest\tjava.lang.ExceptionInInitializerError\\n\\tat ...\n"
    "END\tcomplete\t0\n"
)


def test_siphash_matches_the_reference_vector():
    # SipHash-2-4 paper, appendix A: key 00..0f, message 00..0e
    assert siphash24(KEY.k0, KEY.k1, bytes(range(15))) == 0xA129CA6149BE45E5


def test_a_complete_run_is_read_test_by_test():
    job = read_job(runner(RUN) + "some line a test printed to stdout\n", KEY, "x")
    report = job.signed
    assert report.guarded is True and report.end == "complete" and job.compiled and not job.forged
    assert [(t.name, t.status) for t in report.tests] == [
        ("org.mini.CalcTest::testClampHigh", Status.FAIL),
        ("org.mini.CalcTest::testClampInside", Status.PASS),
        ("org.mini.CalcTest::testSkipped", Status.SKIP),
    ]
    assert report.tests[0].message.startswith("java.lang.AssertionError: expected:<10> but was:<0>\n\tat ")
    outcome = outcome_of(runner(RUN), KEY, "x")
    assert outcome.phase is Phase.DONE and outcome.compiled
    assert outcome.failing_tests == ("org.mini.CalcTest::testClampHigh", "org.mini.BrokenTest")
    assert outcome.tests_run == 3  # two tests and one class; the skipped test did not run
    assert outcome.passed_tests == ("org.mini.CalcTest::testClampInside",)
    assert outcome.messages["org.mini.CalcTest::testClampHigh"] == "java.lang.AssertionError: expected:<10> but was:<0>"


def test_escapes_round_trip():
    assert unescape("a\\tb\\nc\\\\n\\r") == "a\tb\nc\\n\r"


PASSING = (
    "START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\nTEST\tpass\tA::t\t1\t\nPHASE\trelevant\nEND\tcomplete\t0\n"
)


def test_only_lines_signed_with_this_job_s_key_count():
    assert outcome_of(runner(PASSING), KEY, "x").passed_tests == ("A::t",)
    for text in (
        runner(PASSING, key=new_key()),  # another key
        runner(PASSING, job="c7"),  # another job's report, replayed
        runner(PASSING).replace("\tpass\t", "\tPASS\t"),
    ):  # a line changed after signing
        outcome = outcome_of(text, KEY, "x")
        assert not outcome.passed_tests and (outcome.harness_error or outcome.failing_tests), text


def test_plain_report_lines_are_progress_only_and_counted_as_forged():
    # what code under test prints through FileDescriptor.out: a pass, the next phase, the end
    forged = "NL2FIX\tTEST\tpass\tA::t\t1\t\nNL2FIX\tPHASE\trelevant\n" + "".join(
        f"NL2FIX\tEND\tc{i}\tcomplete\t0\n" for i in range(1, 50)
    )
    died = runner("START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\n") + forged
    outcome = outcome_of(died, KEY, "x")
    assert outcome.jvm_died and outcome.failing_tests == ("A::t",) and not outcome.passed_tests
    assert "ignored 50 report line(s) the runner did not sign" in outcome.detail


def test_a_report_with_a_line_missing_is_not_complete():
    lines = runner(PASSING).splitlines(keepends=True)
    dropped = "".join(line for line in lines if "\tTEST\t" not in line)
    outcome = outcome_of(dropped, KEY, "x")
    assert outcome.jvm_died and not outcome.passed_tests


def test_only_the_runner_s_signed_end_ends_a_job():
    text = runner(PASSING)
    ends = [line for line in text.splitlines() if is_signed_end(line, KEY, "x")]
    assert len(ends) == 1 and "\tEND\t" in ends[0]
    assert not is_signed_end("NL2FIX\tEND\tx\tcomplete\t0", KEY, "x")
    assert not is_signed_end(ends[0], KEY, "y") and not is_signed_end(ends[0], new_key(), "x")


def test_a_compile_error_is_uncompilable_with_the_messages():
    text = runner("START\nCOMPILE\terror\tCalc.java:25: error: ';' expected\\n\nEND\tcompile-error\t0\n")
    outcome = outcome_of(text, KEY, "x")
    assert not outcome.compiled and outcome.phase is Phase.COMPILE
    assert outcome.compile_errors == "Calc.java:25: error: ';' expected\n"
    assert not outcome.harness_error


def test_a_stopped_run_is_not_done():
    text = runner("START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\nTEST\tfail\tA::t\t1\tboom\nEND\tstopped\t0\n")
    outcome = outcome_of(text, KEY, "x")
    assert outcome.phase is Phase.TRIGGER and outcome.failing_tests == ("A::t",)


def test_a_test_over_the_per_test_limit_is_a_timeout():
    text = runner(
        "START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\n"
        "TEST\ttimeout\tA::t\t2000\ttest timed out after 2000 ms\nEND\tstopped\t1\n"
    )
    job = read_job(text, KEY, "x")
    outcome = outcome_of(text, KEY, "x")
    assert (
        job.signed.restart and outcome.timed_out and outcome.timed_out_tests == ("A::t",) and not outcome.failing_tests
    )
    assert outcome.detail == "A::t: test timed out after 2000 ms"


def test_a_test_during_which_the_jvm_ran_out_of_heap_says_so():
    for ran_out in (
        "nl2fix: the JVM ran out of heap (nl2fix's --memory) during this test (an OutOfMemoryError)",
        "java.lang.OutOfMemoryError: Direct buffer memory\\n\\tat java.base/java.nio.Bits.reserveMemory",
    ):
        text = runner(f"START\nCOMPILE\tok\t\nPHASE\ttrigger\nTEST\tfail\tA::t\t9\t{ran_out}\nEND\tstopped\t1\n")
        outcome = outcome_of(text, KEY, "x")
        assert outcome.ran_out and outcome.failing_tests == ("A::t",)
    # a failure's own message begins with what was thrown, whatever it says after
    thrown = "java.lang.AssertionError: nl2fix: the JVM ran out of heap"
    text = runner(f"START\nCOMPILE\tok\t\nPHASE\ttrigger\nTEST\tfail\tA::t\t9\t{thrown}\nEND\tstopped\t0\n")
    assert not outcome_of(text, KEY, "x").ran_out


def test_a_jvm_killed_at_the_candidate_limit_times_out_the_running_test():
    text = runner("START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\n")
    outcome = outcome_of(text, KEY, "x", killed_for_time=True)
    assert outcome.timed_out and outcome.timed_out_tests == ("A::t",) and not outcome.harness_error


def test_a_jvm_that_ends_during_a_test_fails_that_test_and_asks_for_a_second_run():
    outcome = outcome_of(runner("START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\n"), KEY, "x")
    assert outcome.jvm_died and outcome.failing_tests == ("A::t",) and "JVM ended" in outcome.messages["A::t"]


def test_a_jvm_that_ends_before_the_candidate_could_run_is_a_harness_error():
    for text in ("", runner("START\n")):
        outcome = outcome_of(text, KEY, "x", stderr_tail="Error: Could not find or load main class")
        assert "ended without reporting" in outcome.harness_error and "main class" in outcome.harness_error
        assert not outcome.jvm_died


def test_a_test_thread_that_cannot_be_stopped_is_a_timeout():
    text = runner("START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\nTEST\ttimeout\tA::t\t2000\tx\nEND\tpoisoned\t1\n")
    outcome = outcome_of(text, KEY, "x")
    assert outcome.timed_out and outcome.phase is not Phase.DONE


def test_runner_errors_are_harness_errors():
    text = runner("START\nERROR\tthe compiler failed: boom\nEND\terror\t1\n")
    assert "compiler failed" in outcome_of(text, KEY, "x").harness_error


def test_a_complete_run_without_a_result_for_a_trigger_test_failed_it():
    # the candidate's code ran in between (a listener removed, say): its failure, not the harness's
    script = (
        "START\nCOMPILE\tok\t\nPHASE\ttrigger\nPHASE\trelevant\nBEGIN\tA::u\nTEST\tpass\tA::u\t1\t\nEND\tcomplete\t0\n"
    )
    missing = outcome_of(runner(script), KEY, "x", triggers=("A::t",))
    assert missing.failing_tests == ("A::t",) and not missing.harness_error
    assert "no result" in missing.messages["A::t"]
    assert not outcome_of(runner(script), KEY, "x", triggers=("A::u",)).failing_tests
    # a failure or skip of the trigger test's whole class is a result for it
    whole_class = runner(script.replace("END", "CLASS\tB\tboom\nEND"))
    assert outcome_of(whole_class, KEY, "x", triggers=("B::t",)).failing_tests == ("B",)


def test_what_the_candidate_did_to_the_report_is_its_failure():
    # words the reader does not know (the code under test rewrote the runner's strings), forged events
    for line, said in (
        ("TEST\tpasz\tA::t\t1\t", "unknown test status 'pasz'"),
        ("TSET\tpass\tA::t\t1\t", "unknown report line 'TSET'"),
        ("FORGED\t3", "fired 3 JUnit event(s) itself"),
    ):
        script = f"START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\n{line}\nTEST\tpass\tA::t\t1\t\nEND\tcomplete\t0\n"
        outcome = outcome_of(runner(script), KEY, "x", triggers=("A::t",))
        assert not outcome.harness_error and outcome.failing_tests == ("(the runner's report)",), line
        assert said in outcome.messages["(the runner's report)"], outcome.messages


def test_class_files_are_taken_only_with_the_signed_digest():
    real, fake = b"\xca\xfe\xba\xbe real", b"\xca\xfe\xba\xbe fake"
    script = (
        f"START\nCOMPILE\tok\t\nCLASSFILE\torg.x.Text\t{hashlib.sha256(real).hexdigest()}\n"
        "PHASE\ttrigger\nBEGIN\tA::t\nTEST\tpass\tA::t\t1\t\nEND\tcomplete\t0\n"
    )
    plain = [f"{PREFIX}CLASSBYTES\torg.x.Text\t{base64.b64encode(data).decode()}\n" for data in (fake, real)]
    job = read_job("".join(plain) + runner(script), KEY, "x")
    assert job.class_files == {"org.x.Text": real}
    missing = read_job(plain[0] + runner(script), KEY, "x")
    assert missing.class_files == {} and "no class file with the signed digest" in missing.signed.corrupt[0]


def test_a_test_that_began_and_never_finished_in_a_finished_run_fails():
    text = runner(
        "START\nCOMPILE\tok\t\nPHASE\ttrigger\nBEGIN\tA::t\nPHASE\trelevant\n"
        "BEGIN\tA::u\nTEST\tpass\tA::u\t1\t\nEND\tcomplete\t0\n"
    )
    outcome = outcome_of(text, KEY, "x")
    assert outcome.failing_tests == ("A::t",) and "never finished" in outcome.messages["A::t"]


def test_a_compile_failure_without_a_diagnostic_is_the_harness_s_error():
    outcome = outcome_of(runner("START\nCOMPILE\terror\t\nEND\tcompile-error\t0\n"), KEY, "x")
    assert not outcome.compiled and not outcome.compile_errors
    assert "without reporting a compile error" in outcome.harness_error


def test_a_trigger_test_that_was_skipped_is_no_pass():
    # an assumption failure (the code under test may throw one without naming it) or an ignored
    # trigger fails the run; other skipped tests are held to the fixed version's passes (verdicts)
    skipped = RUN.replace(
        "TEST\tfail\torg.mini.CalcTest::testClampHigh\t13\tjava.lang.AssertionError: expected:<10> "
        "but was:<0>\\n\\tat org.junit.Assert.fail(Assert.java:89)\\n",
        "TEST\tskip\torg.mini.CalcTest::testClampHigh\t13\tassumption failed",
    )
    outcome = outcome_of(runner(skipped), KEY, "x", triggers=["org.mini.CalcTest::testClampHigh"])
    assert "org.mini.CalcTest::testClampHigh" in outcome.failing_tests
    assert outcome.messages["org.mini.CalcTest::testClampHigh"] == f"{SKIPPED}: assumption failed"
    assert "org.mini.CalcTest::testSkipped" not in outcome.failing_tests
    assert outcome_of(runner(skipped), KEY, "x").failing_tests == ("org.mini.BrokenTest",)
