"""Which JUnit and Hamcrest the runner's JVM loads: the project's own, when it has a usable one.

The runner's JVM holds JUnit on its own class path, which its class loaders consult before the
project's: whatever JUnit and Hamcrest sit there decide what the project's tests link against.
Debian's (JUnit 4.13, Hamcrest 2.2) shadowed the project's: Csv's tests, compiled against
Hamcrest 1.3, then failed with ``NoSuchMethodError: AllOf.allOf(Matcher, Matcher)``, which
Hamcrest 2 no longer has. So when the project's test class path holds JUnit 4.6 or newer (the
runner uses ``Description.getMethodName``, new in 4.6), the runner's JVM gets the project's JUnit
and Hamcrest jars instead, in the project's order, so the first of them wins as it does on
Defects4J's flat class path. Only jars holding nothing but JUnit and Hamcrest classes move: a
jar that bundles them with other code (``mockito-all``) stays with the project's classes.
"""

from __future__ import annotations

import functools
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MIN_JUNIT = (4, 6)
_TEST_LIBRARY_PACKAGES = ("org/junit/", "junit/", "org/hamcrest/")
_JUNIT4_RUNNER = "org/junit/runner/Description.class"
_VERSION = re.compile(r"^(?:Implementation-Version|Bundle-Version|version)\s*[:=]\s*(\d+)\.(\d+)", re.MULTILINE)
_FILE_VERSION = re.compile(r"junit[\w.-]*?-(\d+)\.(\d+)")


@dataclass(frozen=True)
class JarFacts:
    test_library_only: bool
    """Every class in it is JUnit's or Hamcrest's."""
    junit4: tuple[int, int] | None
    """The JUnit 4 version when it holds JUnit 4's runner API ((0, 0): version unknown)."""


def _version(texts: Sequence[str], name: str) -> tuple[int, int]:
    for text in texts:
        m = _VERSION.search(text)
        if m:
            return int(m.group(1)), int(m.group(2))
    m = _FILE_VERSION.search(name)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


@functools.lru_cache(maxsize=1024)
def _facts(path: Path, _mtime: float) -> JarFacts | None:
    try:
        with zipfile.ZipFile(path) as jar:
            names = jar.namelist()
            classes = [n for n in names if n.endswith(".class") and not n.startswith("META-INF/")]
            only = bool(classes) and all(n.startswith(_TEST_LIBRARY_PACKAGES) for n in classes)
            if _JUNIT4_RUNNER not in names:
                return JarFacts(only, None)
            meta = [
                n
                for n in names
                if n == "META-INF/MANIFEST.MF"
                or (n.startswith("META-INF/maven/junit/") and n.endswith("pom.properties"))
            ]
            texts = sorted((jar.read(n).decode("utf-8", "replace") for n in meta), key=len)
            return JarFacts(only, _version(texts, path.name))
    except (OSError, zipfile.BadZipFile):
        return None


def facts(path: Path) -> JarFacts | None:
    """What a class path entry holds; None for a folder or an unreadable jar."""
    if not path.is_file():
        return None
    return _facts(path, path.stat().st_mtime)


def project_junit(test_classpath: Sequence[Path]) -> tuple[Path, ...]:
    """The project's JUnit and Hamcrest jars, in its order, when the first JUnit 4 among them is
    one the runner can use; else ``()`` (the runner keeps its own)."""
    found = [(p, facts(p)) for p in test_classpath]
    first = next((f for _, f in found if f is not None and f.junit4 is not None), None)
    if first is None or not first.test_library_only:
        return ()
    assert first.junit4 is not None  # the search above takes only a jar with a JUnit 4 version
    if first.junit4 < MIN_JUNIT:
        return ()
    return tuple(p for p, f in found if f is not None and f.test_library_only)


def _manifest_classpath(jar: zipfile.ZipFile) -> list[str]:
    try:
        text = jar.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except KeyError:
        return []
    unfolded = re.sub(r"\r?\n ", "", text)  # a manifest continues a long value on lines starting with a space
    m = re.search(r"^Class-Path:\s*(.*)$", unfolded, re.MULTILINE)
    return m.group(1).split() if m else []


@functools.lru_cache(maxsize=256)
def _jar_packages(path: Path, _mtime: float) -> frozenset[str]:
    """The packages of a jar's classes and of the jars its manifest's ``Class-Path`` adds (taken
    beside the jar as named and beside the file it links to: the JVM resolves them against the
    former, Debian's links point at the latter)."""
    try:
        with zipfile.ZipFile(path) as jar:
            found = {
                n.rpartition("/")[0].replace("/", ".")
                for n in jar.namelist()
                if n.endswith(".class") and "/" in n and not n.startswith("META-INF/")
            }
            added = _manifest_classpath(jar)
    except (OSError, zipfile.BadZipFile):
        return frozenset()
    for name in added:
        for folder in {path.parent, path.resolve().parent}:
            extra = folder / name
            if extra.is_file() and extra.resolve() != path.resolve():
                found |= _jar_packages(extra, extra.stat().st_mtime)
    return frozenset(found)


def shadowed(runner_classpath: Sequence[Path], class_dirs: Sequence[Path]) -> list[str]:
    """The packages of the project's own classes (``class_dirs``) that the runner's JVM class path
    (``runner_classpath``, with what its jars' manifests add) holds too. The runner's copies load
    first, so they hide the project's and every candidate's: a project that is itself JUnit or
    Hamcrest cannot be judged with them."""
    runner = frozenset().union(*(_jar_packages(p, p.stat().st_mtime) for p in runner_classpath if p.is_file()))
    own = {str(c.parent.relative_to(d)).replace("/", ".") for d in class_dirs if d.is_dir() for c in d.rglob("*.class")}
    return sorted(own & runner)
