"""Run one failing test of a built project and read its stack trace, for localisation.

The test is the user's own (not model-written code), run as their build would run it: JUnit 4's
``JUnitCore`` over the test's class, in the module's folder, on the Java tests run on, with the
project's own JUnit when it has one. Only the named method's failure is read. It runs confined as
candidates are (the same sandbox, seeing the built copy of the build's inputs and the class path
only): it is the project's code, and what it prints is shown.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.jvm import junit_classpath
from defects4j_adapter.jvm.runner import junit_jars
from defects4j_adapter.sandbox.base import Limits, Mounts, SandboxSpec
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.localise import junit_failures
from nl2fix.fix.project_build import Module

TEST_TIMEOUT = 300.0


@dataclass(frozen=True)
class TestResult:
    test: str
    failed: bool
    trace: str
    output: str


def _outermost(paths: Iterable[Path]) -> tuple[Path, ...]:
    """The existing paths, less those inside another (one bind covers them)."""
    kept: list[Path] = []
    for p in sorted({Path(p) for p in paths if Path(p).exists()}, key=lambda p: len(p.parts)):
        if not any(p == k or k in p.parents for k in kept):
            kept.append(p)
    return tuple(kept)


def run_test(module: Module, test: str, sandbox: SandboxSpec, timeout: float = TEST_TIMEOUT) -> TestResult:
    """Run ``Class::method``'s class with JUnitCore in ``sandbox``; whether that method failed, and its trace."""
    cls = test.split("::")[0]
    confined = make_sandbox(sandbox)
    java = confined.test_java()
    junit = junit_classpath.project_junit(module.classpath) or junit_jars()
    classpath = [module.test_classes, module.classes, *module.classpath, *junit]
    argv = [str(java.jdk.java), *java.flags, "-cp", ":".join(map(str, classpath)), "org.junit.runner.JUnitCore", cls]
    with tempfile.TemporaryDirectory(prefix="nl2fix-localise-") as scratch:
        # the working directory: the module's entries as links in a scratch folder (tests read their files)
        mounts = Mounts(
            read_only=_outermost([module.dir, *classpath]), links_from=module.dir, host_scratch=Path(scratch)
        )
        result = confined.run(argv, mounts, Limits(wall_seconds=timeout))
    output = result.stdout + result.stderr
    if result.timed_out:
        raise Nl2FixError(f"{cls} did not finish in {timeout:.0f} s", "pass --method to say which method to fix")
    failures = junit_failures(output)
    if "Tests run:" not in output and "OK (" not in output:
        raise Nl2FixError(
            f"JUnit could not run {cls}:\n{output.strip()[-1500:]}",
            "is it a JUnit 4 (or 3) test class of the module? pass --method to skip localisation",
        )
    return TestResult(test, test in failures, failures.get(test, ""), output)
