"""Real javac for tests: proving a reading of Java text agrees with the compiler's, and making
class files to check. Many small sources go through one run (javac's start-up is most of its time)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from defects4j_adapter.jvm import runner
from nl2fix.java_source.splice import encode_source

JDK17_JAVAC = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/javac")
JAVAC = str(JDK17_JAVAC) if JDK17_JAVAC.is_file() else shutil.which("javac")
needs_javac = pytest.mark.skipif(JAVAC is None, reason="no javac")
JDKS = [Path(f"/usr/lib/jvm/java-{v}-openjdk-amd64/bin/java") for v in (11, 17)]
"""Defects4J's Java and the default: the JDKs a check of the runner's runs on, where installed."""


def javac() -> Path:
    """JDK 17's javac (it compiles for ``--release 8`` and ``11``), or any on PATH; skips the test without one."""
    if JAVAC is None:
        pytest.skip("no javac")
    return Path(JAVAC)


def run_javac(sources: Mapping[str, str], out: Path, *options: str) -> subprocess.CompletedProcess:
    """``javac`` on the files ``{path: text}`` (written beside ``out`` as the engines write a spliced
    file, in UTF-8), classes into ``out``; without ``options``, without debug information, so that
    two sources javac reads alike give the same class files. The compiler may refuse them."""
    src = out.with_name(out.name + "-src")
    for relative, text in sources.items():
        (src / relative).parent.mkdir(parents=True, exist_ok=True)
        (src / relative).write_bytes(encode_source(text, "UTF-8"))
    return subprocess.run(
        [
            str(javac()),
            "-nowarn",
            "-encoding",
            "UTF-8",
            *(options or ("-g:none",)),
            "-d",
            str(out),
            *sorted(str(src / r) for r in sources),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def compile_java(sources: Mapping[str, str], root: Path, *options: str) -> Path:
    """Compiles ``sources`` (``pkg/Text.java`` -> its text) under ``root`` in one javac run, which
    must succeed (with debug information unless ``options`` say otherwise); the classes folder."""
    classes = root / "classes"
    done = run_javac(sources, classes, *(options or ("-g",)))
    assert done.returncode == 0, done.stderr
    return classes


def class_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.class"))}


def runner_build(check: Path, classes: Path) -> list[str]:
    """``javac`` of the runner's sources with ``check`` (a class of the runner's package) into ``classes``."""
    return [
        str(javac()),
        "--release",
        "11",
        "-nowarn",
        "--add-reads",
        f"{runner.MODULE}=ALL-UNNAMED",
        "-cp",
        ":".join(map(str, runner.junit_jars())),
        "-d",
        str(classes),
        *map(str, runner._sources()),
        str(check),
    ]


def runner_check(java: Path, classes: Path, main: str, *args: str) -> list[str]:
    """``nl2fix.runner.<main>`` of ``classes`` run as the engines start the runner's module: JUnit on the class
    path, the packages the runner is given opened to it alone."""
    return [
        str(java),
        "--module-path",
        str(classes),
        "--add-modules",
        runner.MODULE,
        "--add-reads",
        f"{runner.MODULE}=ALL-UNNAMED",
        *runner.runner_opens(),
        "-cp",
        ":".join(map(str, runner.junit_jars())),
        "-m",
        f"{runner.MODULE}/nl2fix.runner.{main}",
        *args,
    ]


def build(*commands: list[str]) -> None:
    """Runs each build command (:func:`runner_build`, a plain ``javac``) in turn; each must succeed."""
    for argv in commands:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr


def output_lines(argv: list[str]) -> list[str]:
    """What ``argv`` (a JVM of a check) printed, line by line; it must succeed."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done
    return done.stdout.splitlines()
