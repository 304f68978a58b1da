"""Red team 25 on the job loader's second read of a class file (``JobLoader.findClass``, commit d45e8fc): the bytes the
runner parses for members handing out ``sun.misc.Unsafe`` (``JobClasses.defined``) are read again from the class's code
source by a URL of the loader's own making, not the URL ``URLClassLoader`` itself read the class from. Where those
differ, the class the JVM defined is not the class the runner checked. Real javac and java, the runner's own classes
and JVM options, as ``tests/defects4j_adapter/jvm/test_reflection_filters.py`` runs them."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.helpers.javac import JDKS, build, javac, runner_build, runner_check

CHECK = """package nl2fix.runner;

public final class LoaderCheck25 {
    public static void main(String[] args) throws Exception {
        Class.forName("sun.misc.Unsafe");
        ReflectionWall.hideClassInternals();
        ReflectionFilters.remember();
        java.net.URL[] urls = {new java.io.File(args[0]).toURI().toURL()};
        nl2fix.loader.JobLoader loader =
                (nl2fix.loader.JobLoader) JobClasses.loader(urls, LoaderCheck25.class.getClassLoader());
        for (int attempt = 1; attempt <= 2; attempt++) {
            try {
                Class<?> c = Class.forName(args[1], false, loader);
                System.out.println("load " + attempt + " ok visible " + java.util.Arrays.stream(c.getDeclaredFields())
                        .map(java.lang.reflect.Field::getName).sorted()
                        .collect(java.util.stream.Collectors.joining(",")) + " own " + JobClasses.own(c));
            } catch (ClassNotFoundException | RuntimeException | LinkageError e) {
                System.out.println("load " + attempt + " failed " + e);
            }
        }
        ReflectionFilters.restore();
    }
}
"""

PLAIN = """package p;
public final class Holder {
    private static final Object PLAIN = null;
}
"""
UNSAFE = """package p;
public final class Holder {
    private static final sun.misc.Unsafe U = null;
    private static final Object PLAIN = null;
}
"""


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("loader25")
    src = root / "src" / "nl2fix" / "runner"
    src.mkdir(parents=True)
    (src / "LoaderCheck25.java").write_text(CHECK, encoding="utf-8")
    classes = root / "classes"
    build(runner_build(src / "LoaderCheck25.java", classes))
    return classes


def compiled(root: Path, text: str, name: str = "Holder") -> bytes:
    """The class file of ``text`` (``p.<name>``), as a Java 8 project's build makes it."""
    src = root / f"src-{abs(hash(text))}" / "p"
    src.mkdir(parents=True, exist_ok=True)
    (src / f"{name}.java").write_text(text, encoding="utf-8")
    out = root / f"out-{abs(hash(text))}"
    build(
        [str(javac()), "-source", "8", "-target", "8", "-nowarn", "-g:none", "-d", str(out), str(src / f"{name}.java")]
    )
    return (out / "p" / f"{name}.class").read_bytes()


def lines(runner: Path, java: Path, entry: Path, name: str) -> list[str]:
    done = subprocess.run(
        runner_check(java, runner, "LoaderCheck25", str(entry), name), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done
    return done.stdout.splitlines()


JAVAS = [j for j in JDKS if j.is_file()]


@pytest.mark.slow
@pytest.mark.parametrize("java", JAVAS, ids=lambda j: j.parent.parent.name)
def test_a_multi_release_jar_s_versioned_class_is_the_one_checked_for_unsafe_members(runner, tmp_path, java):
    """A multi-release jar (``Multi-Release: true``; a library's ``META-INF/versions/9`` class holding an ``Unsafe``,
    its
    Java 8 class none): ``URLClassLoader`` opens the jar at the runtime's version and defines the versioned class (its
    own resource URL says ``#runtime``), but the loader's second read (``jar:file:...!/p/Holder.class``) opens it at the
    base version and hands the runner the Java 8 class file. The ``Unsafe`` field of the class the JVM defined is never
    hidden: a project's reflective getter hands it out. Before d45e8fc, ``findResource``'s URL read the same entry."""
    jar = tmp_path / "lib.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n")
        z.writestr("p/Holder.class", compiled(tmp_path, PLAIN))
        z.writestr("META-INF/versions/9/p/Holder.class", compiled(tmp_path, UNSAFE))
    assert lines(runner, java, jar, "p.Holder") == [
        "load 1 ok visible PLAIN own true",
        "load 2 ok visible PLAIN own true",
    ]


def renamed(class_file: bytes, old: str, new: str) -> bytes:
    """``class_file`` with its own name's UTF-8 constant ``old`` (``p/AxB``) replaced by ``new`` of the same length: a
    class name javac cannot write but the JVM defines (``#``, ``%``: legal in a binary name; other JVM languages'
    compilers and bytecode generators write such names)."""
    assert len(old) == len(new) and class_file.count(old.encode()) == 1
    return class_file.replace(old.encode(), new.encode())


@pytest.mark.slow
@pytest.mark.parametrize("java", JAVAS, ids=lambda j: j.parent.parent.name)
def test_a_class_whose_second_read_fails_is_not_left_defined_unchecked(runner, tmp_path, java):
    """A class path folder holding ``p/A#B.class`` (a legal binary name): ``URLClassLoader`` reads it (its own URL
    escapes the name) and defines it; the loader's second read, ``new URL(folder, "p/A#B.class")``, takes ``#B.class``
    for a fragment, reads ``p/A`` and fails, and ``findClass`` throws ``ClassNotFoundException`` *after* the JVM defined
    the class. The runner was never told of it: the next lookup finds it defined (``findLoadedClass``), its ``Unsafe``
    field visible to reflection, and not the project's own (``JobClasses.own``). A plain JUnit run loads it the first
    time; the honest outcome is the class loaded, its ``Unsafe`` member hidden, on both lookups."""
    folder = tmp_path / "classes"
    (folder / "p").mkdir(parents=True)
    (folder / "p" / "A#B.class").write_bytes(
        renamed(compiled(tmp_path, UNSAFE.replace("Holder", "AxB"), "AxB"), "p/AxB", "p/A#B")
    )
    assert lines(runner, java, folder, "p.A#B") == [
        "load 1 ok visible PLAIN own true",
        "load 2 ok visible PLAIN own true",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("java", JAVAS, ids=lambda j: j.parent.parent.name)
def test_a_percent_escape_in_a_class_name_does_not_make_the_runner_check_another_class(runner, tmp_path, java):
    """``p/X%41.class`` (an ``Unsafe`` field) beside ``p/XA.class`` (none): the JVM defines ``p.X%41`` from its own
    file,
    but the second read's URL ``file:.../p/X%41.class`` is decoded to ``p/XA.class``, so the runner checks ``XA``'s
    bytes
    and leaves ``X%41``'s ``Unsafe`` field visible."""
    folder = tmp_path / "classes"
    (folder / "p").mkdir(parents=True)
    (folder / "p" / "X%41.class").write_bytes(
        renamed(compiled(tmp_path, UNSAFE.replace("Holder", "Xxxx"), "Xxxx"), "p/Xxxx", "p/X%41")
    )
    (folder / "p" / "XA.class").write_bytes(compiled(tmp_path, PLAIN.replace("Holder", "XA"), "XA"))
    assert lines(runner, java, folder, "p.X%41") == [
        "load 1 ok visible PLAIN own true",
        "load 2 ok visible PLAIN own true",
    ]
