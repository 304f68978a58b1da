"""Real javac for tests that need class files: many small sources compiled in one run (javac's
start-up is most of its time), each source in its own package."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

JDK17_JAVAC = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/javac")


def javac() -> Path:
    """JDK 17's javac (it compiles for ``--release 8`` and ``11``), or any on PATH; skips the test without one."""
    found = JDK17_JAVAC if JDK17_JAVAC.is_file() else shutil.which("javac")
    if not found:
        pytest.skip("no javac")
    return Path(found)


def compile_java(sources: Mapping[str, str], root: Path, *options: str) -> Path:
    """Writes ``sources`` (a path under the source root, ``pkg/Text.java`` -> its text) under
    ``root/src`` and compiles them in one javac run; returns the classes folder."""
    src, classes = root / "src", root / "classes"
    for relative, text in sources.items():
        (src / relative).parent.mkdir(parents=True, exist_ok=True)
        (src / relative).write_text(text, encoding="utf-8")
    done = subprocess.run([str(javac()), "-nowarn", "-encoding", "UTF-8", *options, "-d", str(classes),
                           *sorted(str(src / r) for r in sources)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return classes
