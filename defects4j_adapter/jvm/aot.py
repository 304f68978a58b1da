"""The JDK's common code and javac's, compiled ahead of time once per JDK (JEP 295's ``jaotc``, JDK 9-16), so that a
fresh JVM does not spend its first half second compiling them.

Most of the runner's JVMs are fresh: a pass's confirmation and its behaviour probe run where no other candidate
ran, and a bug's first candidates start its JVMs. The quick compiler spends 0.4-0.7 CPU-s of each such JVM on the
JDK's code (collections, reflection, method handles, streams, digests: measured with ``-XX:+LogCompilation`` on
the held-out set's dearest probes), the same methods in every JVM, and a compiling JVM most of its on javac's.
``jaotc`` compiles the classes listed in ``aot-classes.txt`` (those whose methods such JVMs compiled) into a shared
library, which every runner JVM on that JDK maps (``-XX:AOTLibrary``) instead; the runner's, the project's, the
tests' and the candidate's classes are left to the JIT. Not the runner's: its code compiled so kept a job's class
loader reachable after the job (on Math-45's answers, 2 to 3 of 10 warm JVMs retired for it, none with the JDK's
alone), and a warm JVM whose last job's loader is still reachable takes no other job.

The library depends on the JDK alone (its build, the garbage collector it is compiled for), not on a run or its
cache: it is kept per user under ``$NL2FIX_AOT_DIR`` (default ``~/.cache/nl2fix-aot``), built on first use (a few
CPU-minutes; ``scripts/setup.sh`` builds it first) and never rebuilt. The JVM refuses a library made for another
build of the JDK (checked by loading it once after the build: a refused one is remembered and not given) and stops
when a file it is given cannot be read, so the option is only given for the host's own JDK (not a docker image's)
and only when the library was accepted. ``NL2FIX_AOT=0`` turns it off. JDKs without ``jaotc`` (17 and later,
runtimes) run as before.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.jvm.reference_java import Jdk
from nl2fix.core.processes import run_command

log = logging.getLogger(__name__)

CLASSES = Path(__file__).with_name("aot-classes.txt")
"""The JDK classes (of :data:`MODULES`) whose every method is compiled ahead of time."""
MODULES = ("java.base", "jdk.compiler")
"""The JDK's own code and javac's: the compiling JVMs spend most of their JIT's time on javac's."""
REFUSED = "refused.txt"
"""Written in place of the library when it could not be made or the JVM would not take it: why."""
GC = "-XX:+UseSerialGC"
"""The collector every runner JVM uses (:func:`defects4j_adapter.jvm.runner.jvm_command`); a library made for
another is refused."""
BUILD_TIMEOUT = 1800.0
ENABLE_ENV = "NL2FIX_AOT"
DIR_ENV = "NL2FIX_AOT_DIR"
UNLOCK = "-XX:+UnlockExperimentalVMOptions"


@dataclass(frozen=True)
class Library:
    """Precompiled code for a JVM to map, or why there is none."""

    paths: tuple[Path, ...] = ()
    why_not: str = ""

    def options(self) -> list[str]:
        """The JVM options that map it (none without one)."""
        return [UNLOCK, "-XX:AOTLibrary=" + ":".join(map(str, self.paths))] if self.paths else []


NONE = Library()


def compile_commands(class_names: list[str]) -> str:
    """``jaotc``'s ``--compile-commands`` text that compiles every method of ``class_names`` and nothing else (its
    patterns are regular expressions but for ``.`` and ``*``: a nested class's ``$`` is escaped, else it matches
    nothing)."""
    return "".join(f"compileOnly {name.replace('$', chr(92) + '$')}.*\n" for name in class_names)


def module_packages(describe_module: str) -> set[str]:
    """The packages of a module, from ``java --describe-module``'s output."""
    packages = set()
    for line in describe_module.splitlines():
        words = line.split()
        if words[:1] in (["exports"], ["contains"]) and len(words) > 1:
            packages.add(words[1])
        elif words[:2] == ["qualified", "exports"] and len(words) > 2:
            packages.add(words[2])
    return packages


_TASK = re.compile(r"<task compile_id='\d+' method='([^' ]+) ")


def jit_compiled_classes(compilation_log: str, packages: set[str]) -> set[str]:
    """The classes of ``packages`` with a method the JIT compiled, from a ``-XX:+LogCompilation`` log; not the
    JVM's hidden and generated ones (lambdas, lambda forms, reflection accessors), which have no class file."""
    found = set()
    for name in _TASK.findall(compilation_log):
        if "$$" in name or "/" in name or "LambdaForm$" in name or ".Generated" in name:
            continue
        if name.rpartition(".")[0] in packages:
            found.add(name)
    return found


def listed_classes(text: str) -> list[str]:
    """The class names of ``aot-classes.txt``'s text: one a line, ``#`` comments and blank lines left out."""
    names = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [name for name in names if name]


def accepted(print_aot_output: str, library: Path) -> str:
    """Empty when the JVM's ``-XX:+PrintAOT`` output says it loaded ``library``; else why it did not."""
    for line in print_aot_output.splitlines():
        if str(library) in line:
            if "loaded" in line.split():
                return ""
            return line.strip()
    return "the JVM did not say it loaded the library: " + print_aot_output.strip()[-300:]


def aot_root() -> Path:
    """The folder of every JDK's library, as a real absolute path: the JVM opens the path it is given from the job's
    own working directory, and a sandbox checks (and mounts) that very path."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    chosen = Path(os.environ[DIR_ENV]) if os.environ.get(DIR_ENV) else Path(base) / "nl2fix-aot"
    return chosen.expanduser().resolve()


def jaotc(jdk: Jdk) -> Path | None:
    tool = jdk.home / "bin" / "jaotc"
    return tool if tool.is_file() else None


def library(jdk: Jdk) -> Library:
    """``jdk``'s precompiled code of the listed classes, built on first use; or why there is none."""
    if os.environ.get(ENABLE_ENV, "1") == "0":
        return Library(why_not=f"{ENABLE_ENV}=0")
    if jaotc(jdk) is None:
        return Library(why_not=f"Java {jdk.version} has no jaotc")
    # what is compiled names the library, not the list's comments
    compiled = "\n".join(listed_classes(CLASSES.read_text()))
    made = _built(jdk, aot_root() / _jdk_key(jdk) / f"jdk-{_digest(compiled)}")
    return Library((made,)) if isinstance(made, Path) else Library(why_not=made)


def for_host() -> Library:
    """The host's test Java's precompiled code (:func:`reference_java.current`), which the JVMs of every sandbox but
    docker run on."""
    return library(reference_java.current().jdk)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _jdk_key(jdk: Jdk) -> str:
    """The JDK's build: its path, version and modules image (a JDK updated in place is another)."""
    modules = jdk.home / "lib" / "modules"
    shown = f"{modules.stat().st_size}:{modules.stat().st_mtime_ns}" if modules.is_file() else ""
    return _digest("\0".join((str(jdk.home.resolve()), jdk.version, GC, shown)))


_BUILT: dict[Path, Path | str] = {}


def _built(jdk: Jdk, folder: Path) -> Path | str:
    """The library kept in ``folder`` (built on first use), or why there is none."""
    if folder not in _BUILT:
        # named for its folder: a JVM maps one library of a name, whatever its folder
        name = f"{folder.name}.so"
        try:
            made = cache.build_once(folder, lambda tmp: _build(jdk, tmp, tmp / name))
        except OSError as exc:
            # nothing kept (a full disk, a build out of time): this process runs without, the next one tries again
            _BUILT[folder] = f"precompiled code could not be made in {folder}: {exc}"
            return _BUILT[folder]
        refused = made / REFUSED
        _BUILT[folder] = (
            made / name
            if (made / name).is_file()
            else refused.read_text(errors="replace")
            if refused.is_file()
            else f"{made} holds neither the library nor why not (delete it to build again)"
        )
    return _BUILT[folder]


def _build(jdk: Jdk, tmp: Path, out: Path) -> None:
    """The library ``out`` of the listed classes, or :data:`REFUSED` beside it saying why not (kept too, so that code
    that cannot be compiled so is not tried again on every JVM start)."""
    tool = jaotc(jdk)
    assert tool is not None
    log.warning("compiling Java code ahead of time for Java %s, once: %s", jdk.version, out.stem)
    commands = tmp / "compile-commands.txt"
    commands.write_text(compile_commands(listed_classes(CLASSES.read_text())))
    arguments = ["--compile-commands", str(commands), "--module", ":".join(MODULES)]
    made = run_command([tool, f"-J{GC}", *arguments, "--output", out], timeout=BUILD_TIMEOUT)
    if made.timed_out:
        # a machine too busy today, not a JDK that cannot: nothing is kept
        raise TimeoutError(f"jaotc ran out of its {BUILD_TIMEOUT:.0f} s")
    why = ""
    if not made.ok or not out.is_file():
        why = "jaotc failed: " + (made.stdout + made.stderr)[-1000:]
    else:
        tried = run_command([jdk.java, GC, UNLOCK, f"-XX:AOTLibrary={out}", "-XX:+PrintAOT", "-version"], timeout=120.0)
        why = accepted(tried.stdout + tried.stderr, out) if tried.ok else "java refused it: " + tried.stderr[-500:]
    if why:
        out.unlink(missing_ok=True)
        out.with_name(REFUSED).write_text(why)
        log.warning("not compiled ahead of time: %s", why)
