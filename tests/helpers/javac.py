"""The javac on the path, for tests that prove a reading of Java text agrees with the compiler's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nl2fix.java_source.splice import encode_source

JAVAC = shutil.which("javac")
needs_javac = pytest.mark.skipif(JAVAC is None, reason="no javac on the path")


def compile_java(sources: dict[str, str], out: Path) -> subprocess.CompletedProcess:
    """``javac`` on the files ``{name: text}`` (written beside ``out`` as the engines write a spliced
    file, in UTF-8), classes into ``out`` without debug information, so that two sources javac reads
    alike give the same class files."""
    src = out.with_name(out.name + "-src")
    src.mkdir(parents=True, exist_ok=True)
    for name, text in sources.items():
        (src / name).write_bytes(encode_source(text, "UTF-8"))
    return subprocess.run([str(JAVAC), "-g:none", "-encoding", "UTF-8", "-d", str(out),
                           *(str(src / name) for name in sources)], capture_output=True, text=True, timeout=300)


def class_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.class"))}
