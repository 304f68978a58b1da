"""The Java language level a project is compiled at, and javac's options for it.

The level decides what javac accepts, not only the class file version: generic code that Java 7's
inference accepted (a raw type in a conditional expression, commons-collections'
``IteratorUtils.collatedIterator``) is an error at level 8. A project is therefore compiled at its
own level, never a stricter one:

- a Defects4J checkout: the level its own build produced (the class file version of its compiled
  classes);
- a project nl2fix builds with javac: the level its ``pom.xml`` or Ant properties declare, else 8.

javac drops old levels over time (11 accepts 6, 17 accepts 7, 21 accepts 8): the nearest level a
javac still accepts is used. ``-source``/``-target`` rather than ``--release``: ``--release`` also
hides the JDK's newer API, which the project's own build (javac 8 or 11 at ``-source 1.x``) saw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from defects4j_adapter.jvm import reference_java
from nl2fix.core.errors import Nl2FixError

DEFAULT_LEVEL = 8
BUILD_FILES = ("pom.xml", "build.properties", "default.properties", "project.properties")
_CLASS_MAGIC = b"\xca\xfe\xba\xbe"
_DECLARED = (
    re.compile(r"<maven\.compiler\.(?:release|source)>\s*([\d.]+)\s*<"),
    re.compile(r"<(?:release|source)>\s*([\d.]+)\s*</(?:release|source)>"),
    re.compile(r"^\s*(?:compile\.source|javac\.source|maven\.compiler\.source)\s*[=:]\s*([\d.]+)\s*$", re.MULTILINE),
)


def parse_level(text: str) -> int | None:
    """``7`` for ``1.7`` or ``7``."""
    m = re.fullmatch(r"(?:1\.)?(\d+)(?:\.0)?", text.strip())
    return int(m.group(1)) if m else None


def declared_level(build_files: Mapping[str, str]) -> int | None:
    """The source level a project's build files declare (by file name: ``pom.xml``, Ant's
    ``*.properties``), or None."""
    for name in BUILD_FILES:
        text = build_files.get(name, "")
        for pattern in _DECLARED:
            m = pattern.search(text)
            if m and parse_level(m.group(1)) is not None:
                return parse_level(m.group(1))
    return None


def project_level(root: Path) -> int:
    """The level of a project nl2fix compiles itself."""
    files = {
        name: (root / name).read_text(encoding="utf-8", errors="replace")
        for name in BUILD_FILES
        if (root / name).is_file()
    }
    return declared_level(files) or DEFAULT_LEVEL


def class_file_level(classes_dir: Path) -> int | None:
    """The Java level of the first class file under ``classes_dir`` (major version 51 is 7)."""
    for path in classes_dir.rglob("*.class"):
        with open(path, "rb") as fh:
            head = fh.read(8)
        if len(head) == 8 and head[:4] == _CLASS_MAGIC:
            return int.from_bytes(head[6:8], "big") - 44
    return None


def oldest_accepted(javac_major: int) -> int:
    """The oldest ``-source`` a javac of this major version accepts."""
    return 6 if javac_major <= 11 else 7 if javac_major < 20 else 8


def compile_level(level: int, javac_major: int) -> int:
    """``level``, or the nearest one this javac still accepts."""
    return max(level, oldest_accepted(javac_major))


def in_memory_release(level: int) -> str:
    """The level (``-source``/``-target``) the runner's in-memory compiler (the test Java's javac)
    uses for ``level``."""
    try:
        return str(compile_level(level, reference_java.current().jdk.major))
    except Nl2FixError:
        # no JDK to run tests on: only the defects4j engine can work, and it never reads this
        return str(level)


def javac_options(level: int, javac_major: int) -> list[str]:
    """``-source``/``-target`` for ``level`` (quiet about the old level and the boot class path)."""
    at = str(compile_level(level, javac_major))
    return ["-source", at, "-target", at, "-Xlint:-options"]
