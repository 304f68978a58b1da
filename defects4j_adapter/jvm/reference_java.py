"""Which Java runs the tests: one that behaves like the Java Defects4J runs them on.

Defects4J 3.x runs tests on Java 11 and 2.x on Java 8; both let tests reflect deeply into the
JDK (``setAccessible`` on ``java.util`` internals), and both still have ``java.util.jar.Pack200``.
A newer JDK forbids the first (strong encapsulation since 16) and lacks the second (removed in
14), so the fixed versions of some bugs "fail" there although Defects4J passes them. The choice:

1. ``$NL2FIX_TEST_JAVA_HOME``, when set (a full JDK, 11 or newer);
2. Defects4J's own Java, when it is a full JDK of the major version Defects4J requires;
3. an installed JDK (``/usr/lib/jvm``, ``$JAVA_HOME``) of that version;
4. otherwise ``java`` on PATH, with ``--add-opens`` for every package of every module it boots,
   as broad as Java 11's default (it opens the whole JDK to class-path code, with a warning).
   What cannot be emulated (a class the JDK no longer has) is reported by
   :mod:`defects4j_adapter.engines.linkage` as an environment fault.

nl2fix's runner needs Java 11 (``ProcessHandle``), so a Java 8 reference (Defects4J 2.x) is
served by Java 11, which permits deep reflection as 8 does. The choice is made once per process
and recorded in the run store (:func:`environment`), and reports show it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.d4j import cli as d4j_cli
from nl2fix.core.domain import Engine
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command, which

TEST_JAVA_HOME_ENV = "NL2FIX_TEST_JAVA_HOME"
RUNNER_MIN_MAJOR = 11
"""The runner is compiled with ``--release 11``."""
STRONG_ENCAPSULATION_MAJOR = 16
"""From JDK 16 on, code on the class path may no longer reflect into JDK internals by default."""
DEFAULT_REFERENCE_MAJOR = 11
"""Without a Defects4J to ask: the Java of Defects4J 3.x, the current release."""
JVM_ROOTS = (Path("/usr/lib/jvm"),)
PROBE_TIMEOUT = 60.0
_VERSION = re.compile(r'version "((?:1\.)?(\d+)[^"]*)"')
_README_VERSION = re.compile(r"Defects4J\s+--\s+version\s+(\d+(?:\.\d+)*)")
_REQUIRED_JAVA = re.compile(r"\$1\s*!=\s*(\d+)\)")
"""Constants.pm of Defects4J 3.x: ``if ($1 != 11) { die ("Java 11 is required!") }``."""

# Run as a single-file source program (Java 11+): the packages of every module in the boot layer
# of a class-path application, which is what Java 11's default opened to class-path code.
_LIST_PACKAGES = """\
public class ListPackages {
    public static void main(String[] args) {
        for (Module m : ModuleLayer.boot().modules()) {
            for (String p : m.getPackages()) {
                System.out.println(m.getName() + "/" + p);
            }
        }
    }
}
"""


@dataclass(frozen=True)
class Reference:
    """The Java Defects4J runs tests on (what the test JVM must behave like)."""

    major: int
    defects4j_version: str = ""
    """e.g. ``3.0.1``; empty when no Defects4J was found."""
    defects4j_home: str = ""

    def describe(self) -> str:
        if not self.defects4j_version:
            return f"no Defects4J found: Java {self.major}, as Defects4J 3.x"
        return f"Defects4J {self.defects4j_version} (Java {self.major})"


@dataclass(frozen=True)
class Jdk:
    home: Path
    major: int
    version: str

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"

    @property
    def javac(self) -> Path:
        return self.home / "bin" / "javac"

    @property
    def full(self) -> bool:
        """A JDK, not a runtime: the runner compiles candidates in memory (``javax.tools``)."""
        return self.javac.is_file()


@dataclass(frozen=True)
class TestJava:
    """The JVM the tests run on, and why."""

    jdk: Jdk
    reference: Reference
    choice: str
    """Why this JDK."""
    flags: tuple[str, ...] = ()
    """JVM options that make it behave like the reference (``--add-opens``)."""

    @property
    def emulation(self) -> str:
        if not self.flags:
            return ""
        modules = {f.split("=", 1)[1].split("/", 1)[0] for f in self.flags}
        return f"--add-opens for all {len(self.flags)} packages of {len(modules)} modules (as Java 11 permits)"

    @property
    def mismatch(self) -> str:
        """Empty when the tests run on the Java Defects4J runs them on (or, for a Java 8 reference,
        the Java 11 that serves it); else a warning, for every summary that names this Java."""
        return java_mismatch(self.jdk.major, self.reference.major)

    def describe(self) -> str:
        how = f"; {self.emulation}" if self.flags else ""
        warning = f"; {self.mismatch}" if self.mismatch else ""
        return (
            f"tests on Java {self.jdk.version} ({self.jdk.home}), {self.choice}{how}; "
            f"reference: {self.reference.describe()}{warning}"
        )

    def record(self) -> dict:
        """What the run store keeps about it."""
        return {
            "java_home": str(self.jdk.home),
            "java_version": self.jdk.version,
            "choice": self.choice,
            "flags": self.emulation,
            "defects4j_version": self.reference.defects4j_version,
            "defects4j_home": self.reference.defects4j_home,
            "reference_java": self.reference.major,
            "summary": self.describe(),
        }


def java_mismatch(major: int, reference_major: int) -> str:
    """A loud note when tests on Java ``major`` are not Defects4J's (pure; 0: not known)."""
    if major and major == max(reference_major, RUNNER_MIN_MAJOR):
        return ""
    return (
        f"NOT Defects4J's Java {reference_major}: some verdicts may differ from Defects4J's "
        f"(install JDK {max(reference_major, RUNNER_MIN_MAJOR)}: scripts/jdk11.sh)"
    )


def parse_java_version(text: str) -> tuple[int, str] | None:
    """``(11, "11.0.24")`` from ``java -version`` output; ``(8, "1.8.0_412")`` for Java 8."""
    m = _VERSION.search(text)
    if not m:
        return None
    full = m.group(1)
    major = int(m.group(2)) if full.startswith("1.") else int(full.split(".")[0].split("-")[0].split("+")[0])
    return major, full


def defects4j_version(readme_text: str) -> str:
    m = _README_VERSION.search(readme_text)
    return m.group(1) if m else ""


def required_java(constants_pm: str, version: str) -> int:
    """The Java major Defects4J needs: its own check when it has one (3.x), else by release
    (2.x: 8, older: 7)."""
    m = _REQUIRED_JAVA.search(constants_pm)
    if m:
        return int(m.group(1))
    release = int(version.split(".")[0]) if version else 3
    return 11 if release >= 3 else 8 if release == 2 else 7


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def reference(env: Mapping[str, str] | None = None) -> Reference:
    """What the installed Defects4J (if any) runs tests on."""
    exe = d4j_cli.locate(env)
    if exe is None:
        return Reference(DEFAULT_REFERENCE_MAJOR)
    home = Path(os.path.realpath(exe)).parents[2]
    version = defects4j_version(_read(home / "README.md"))
    major = required_java(_read(home / "framework" / "core" / "Constants.pm"), version)
    return Reference(major, version or "unknown version", str(home))


@functools.cache
def probe(home: Path) -> Jdk | None:
    """The Java installed at ``home``, or None when there is none that starts."""
    java = home / "bin" / "java"
    if not java.is_file():
        return None
    result = run_command([str(java), "-version"], timeout=PROBE_TIMEOUT)
    parsed = parse_java_version(result.stderr + result.stdout) if result.ok else None
    return Jdk(home, *parsed) if parsed else None


def _home_of(java: Path) -> Path:
    return Path(os.path.realpath(java)).parent.parent


def installed(env: Mapping[str, str], roots: Iterable[Path] = JVM_ROOTS) -> list[Jdk]:
    """Every JDK or runtime found in ``roots`` and ``$JAVA_HOME``, one per real folder."""
    homes = [p for root in roots if root.is_dir() for p in sorted(root.iterdir())]
    if env.get("JAVA_HOME"):
        homes.append(Path(env["JAVA_HOME"]))
    seen, out = set(), []
    for home in homes:
        real = Path(os.path.realpath(home))
        jdk = None if real in seen else probe(real)
        seen.add(real)
        if jdk is not None:
            out.append(jdk)
    return out


def choose(
    ref: Reference, *, explicit: Jdk | None, defects4j_java: Jdk | None, candidates: list[Jdk], on_path: Jdk | None
) -> tuple[Jdk, str]:
    """The JDK the tests run on and why (pure; :func:`current` gathers its inputs)."""
    if explicit is not None:
        if not explicit.full or explicit.major < RUNNER_MIN_MAJOR:
            what = (
                f"is Java {explicit.version}{'' if explicit.full else ' without javac'}"
                if explicit.major
                else "has no working bin/java"
            )
            raise Nl2FixError(
                f"{TEST_JAVA_HOME_ENV}={explicit.home} {what}",
                f"point it at a full JDK {RUNNER_MIN_MAJOR} or newer (Defects4J 3.x runs Java 11)",
            )
        return explicit, f"as set by {TEST_JAVA_HOME_ENV}"
    target = max(ref.major, RUNNER_MIN_MAJOR)
    served = "" if target == ref.major else f" (the nearest to Java {ref.major} nl2fix's runner can use)"
    if defects4j_java is not None and defects4j_java.full and defects4j_java.major == target:
        return defects4j_java, f"the Java Defects4J runs on{served}"
    for jdk in candidates:
        if jdk.full and jdk.major == target:
            return jdk, f"an installed JDK {target}{served}"
    if on_path is None or not on_path.full or on_path.major < RUNNER_MIN_MAJOR:
        found = ", ".join(f"{j.home} ({j.version}{'' if j.full else ', no javac'})" for j in candidates) or "none"
        raise Nl2FixError(
            f"no JDK {RUNNER_MIN_MAJOR} or newer to run the tests on (JDKs found: {found})",
            "install one: apt-get install openjdk-11-jdk-headless (or openjdk-17-jdk-headless), "
            f"or set {TEST_JAVA_HOME_ENV}",
        )
    return on_path, f"java on PATH: no full JDK {target} is installed"


def _packages(jdk: Jdk, cache_base: Path) -> list[str]:
    """``module/package`` of every package the JDK boots, computed once per JDK and cached."""
    key = hashlib.sha256(f"{jdk.home}\n{jdk.version}".encode()).hexdigest()[:16]

    def build(tmp: Path) -> None:
        source = tmp / "ListPackages.java"
        source.write_text(_LIST_PACKAGES, encoding="utf-8")
        result = run_command([str(jdk.java), str(source)], timeout=PROBE_TIMEOUT)
        if not result.ok or "/" not in result.stdout:
            raise Nl2FixError(f"cannot list the packages of {jdk.home}: {(result.stderr or result.stdout)[-500:]}")
        (tmp / "packages").write_text("\n".join(sorted(result.stdout.split())) + "\n", encoding="utf-8")

    return (cache.build_once(cache_base / "jvm" / key, build) / "packages").read_text(encoding="utf-8").split()


def emulation_flags(jdk: Jdk, ref: Reference, cache_base: Path, packages: list[str] | None = None) -> tuple[str, ...]:
    """``--add-opens`` for every package when ``jdk`` encapsulates the JDK and the reference does not
    (``packages``: the JDK's, when listed elsewhere, e.g. in a container image)."""
    if jdk.major < STRONG_ENCAPSULATION_MAJOR or ref.major >= STRONG_ENCAPSULATION_MAJOR:
        return ()
    opened = packages if packages is not None else _packages(jdk, cache_base)
    return tuple(f"--add-opens={p}=ALL-UNNAMED" for p in opened)


_ENV_KEYS = (TEST_JAVA_HOME_ENV, d4j_cli.JAVA_HOME_ENV, "JAVA_HOME", "PATH", *d4j_cli.HOME_ENVS)


@functools.lru_cache(maxsize=8)
def _current(env_items: tuple[tuple[str, str], ...], cache_base: Path) -> TestJava:
    env = dict(env_items)
    ref = reference(env)
    explicit = env.get(TEST_JAVA_HOME_ENV)
    d4j_java = env.get(d4j_cli.JAVA_HOME_ENV) or env.get("JAVA_HOME")
    path_java = which("java")
    jdk, why = choose(
        ref,
        explicit=(probe(Path(explicit)) or Jdk(Path(explicit), 0, "")) if explicit else None,
        defects4j_java=probe(Path(os.path.realpath(d4j_java))) if d4j_java else None,
        candidates=installed(env),
        on_path=probe(_home_of(path_java)) if path_java else None,
    )
    return TestJava(jdk, ref, why, emulation_flags(jdk, ref, cache_base))


def current(cache_base: Path | None = None) -> TestJava:
    """The test Java for this process's environment (chosen once per environment)."""
    env = tuple((k, os.environ[k]) for k in _ENV_KEYS if os.environ.get(k))
    return _current(env, cache_base or cache.cache_dir())


def environment_key(engine: str) -> str:
    """The run store's meta key for where ``engine``'s tests ran."""
    return f"validation_environment.{engine}"


def environment(engine: Engine, sandbox=None) -> dict:
    """Where ``engine``'s tests run, for the run store and reports: the test Java and its flags
    (the javac-based engines; in ``sandbox``, when given, its own Java: a container's), or
    Defects4J and the Java it runs on (the defects4j engine)."""
    if engine is not Engine.DEFECTS4J:
        java = sandbox.test_java() if sandbox is not None else current()
        record = {"engine": engine.value, **java.record()}
        if sandbox is not None:
            record.update(sandbox=sandbox.name, summary=f"{record['summary']}; sandbox: {sandbox.name}")
        return record
    ref = reference()
    home = os.environ.get(d4j_cli.JAVA_HOME_ENV) or os.environ.get("JAVA_HOME") or ""
    jdk = probe(Path(os.path.realpath(home))) if home else None
    java = f"Java {jdk.version} ({home})" if jdk else "the java on PATH"
    return {
        "engine": engine.value,
        "defects4j_version": ref.defects4j_version,
        "defects4j_home": ref.defects4j_home,
        "java_home": home,
        "java_version": jdk.version if jdk else "",
        "summary": f"tests run by {ref.describe()} on {java}",
    }
