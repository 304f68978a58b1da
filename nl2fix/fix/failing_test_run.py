"""Run one failing test of a built project and read its stack trace, for localisation.

The test is the user's own (not model-written code), run as their build would run it: JUnit 4's
``JUnitCore`` over the test's class, in the module's folder, on the Java tests run on, with the
project's own JUnit when it has one. Only the named method's failure is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from defects4j_adapter.jvm import junit_classpath, reference_java
from defects4j_adapter.jvm.runner import junit_jars
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command
from nl2fix.fix.localise import junit_failures
from nl2fix.fix.project_build import Module

TEST_TIMEOUT = 300.0


@dataclass(frozen=True)
class TestResult:
    test: str
    failed: bool
    trace: str
    output: str


def run_test(module: Module, test: str, timeout: float = TEST_TIMEOUT) -> TestResult:
    """Run ``Class::method``'s class with JUnitCore; whether that method failed, and its trace."""
    cls = test.split("::")[0]
    java = reference_java.current()
    junit = junit_classpath.project_junit(module.classpath) or junit_jars()
    classpath = [module.test_classes, module.classes, *module.classpath, *junit]
    argv = [str(java.jdk.java), *java.flags, "-cp", ":".join(map(str, classpath)), "org.junit.runner.JUnitCore", cls]
    result = run_command(argv, timeout=timeout, cwd=module.dir)
    output = result.stdout + result.stderr
    if result.timed_out:
        raise Nl2FixError(f"{cls} did not finish in {timeout:.0f} s", "pass --method to say which method to fix")
    failures = junit_failures(output)
    if "Tests run:" not in output and "OK (" not in output:
        raise Nl2FixError(f"JUnit could not run {cls}:\n{output.strip()[-1500:]}",
                          "is it a JUnit 4 (or 3) test class of the module? pass --method to skip localisation")
    return TestResult(test, test in failures, failures.get(test, ""), output)
