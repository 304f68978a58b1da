"""Build a user's Java project once, offline, and say where its classes and class path are.

The build system is detected (``pom.xml``: Maven, ``build.gradle[.kts]``/``settings.gradle``:
Gradle, ``build.xml``: Ant, else a plain source/test/class-path triple) or chosen. The build's
inputs (:mod:`nl2fix.fix.build_inputs`: in a git work tree the tracked files, else an allow-list;
never ``.env``, credentials or other untracked files) are copied into
``$NL2FIX_CACHE_DIR/projects/`` and built there, so nothing is written in the user's tree and
candidates validated there reach nothing else of it; the copy is keyed by the content of every
input, like Defects4J checkouts, and reused until one changes.

- Maven: ``mvn -o test-compile dependency:build-classpath`` (scope test) over the reactor; each
  module's test class path is what maven-dependency-plugin writes, sibling modules as their
  ``target/classes``. ``--maven-repo DIR`` is the local repository (default: Maven's own,
  ``~/.m2/repository``); ``--maven-repo debian`` is one made of Debian's ``/usr/share/maven-repo``
  (the packaged plugins and libraries, nothing downloaded).
- Gradle: ``gradle --offline`` (or the project's ``./gradlew`` when its Gradle is downloaded) with
  init scripts (:mod:`nl2fix.fix.gradle_offline`) that compile the tests and write each Java
  project's source sets, output folders and test runtime class path; with ``--maven-repo`` they
  point every Maven repository the build declares at that one (``debian``: Debian's, serving a
  version it lacks by the installed one).
- Online, once: a Maven or Gradle build that fails offline for artifacts the local repository (or
  ``--maven-repo DIR``) or Gradle's cache lacks resolves them online once, the project's own way
  (``mvn dependency:go-offline``, then the build's own goals online if it missed some; Gradle
  without ``--offline``), says so, and builds offline again (:mod:`nl2fix.fix.online_resolution`).
  Never with ``offline`` (``--offline``) or ``--maven-repo debian``, nor for Gradle with a folder.
  Without network it stops naming what was lacking and the repositories it could not reach.
- Ant: build files have no standard layout or targets, so the source and test folders come from
  ``build.xml``'s properties (``src.dir``, ``test.dir`` ...) or ``--src``/``--test``, the class
  path from ``lib/**/*.jar`` or ``--classpath``, and javac compiles them.
- plain: ``--src`` (default ``src/main/java`` or ``src``), ``--test`` (``src/test/java``, ``test``
  or ``tests``), ``--classpath``; compiled with javac.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.contract import Workspace
from defects4j_adapter.jvm import java_level, junit_classpath
from defects4j_adapter.jvm.runner import junit_jars
from defects4j_adapter.workspaces import local as local_workspace
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import DEFAULT_OUTPUT_LIMIT, ExecResult, run_command, which
from nl2fix.fix import debian_maven, gradle_offline, online_resolution
from nl2fix.fix.build_inputs import BuildInputs, build_inputs, copy_inputs

PROJECTS_DIR = "projects"
BUILD_FILE = "nl2fix-build.json"
BUILD_TIMEOUT = 1800.0
MAVEN_ATTEMPTS = 40
"""Offline builds with Debian's repository: each may add substitutions, then Maven tries again."""
MAVEN_CLASSPATH_FILE = "target/nl2fix.classpath"
MAVEN_CHECKS_SKIPPED = {
    "animal-sniffer-maven-plugin": "animal.sniffer.skip",
    "maven-enforcer-plugin": "enforcer.skip",
    "apache-rat-plugin": "rat.skip",
    "maven-checkstyle-plugin": "checkstyle.skip",
    "spotbugs-maven-plugin": "spotbugs.skip",
    "maven-pmd-plugin": "pmd.skip",
    "jacoco-maven-plugin": "jacoco.skip",
    "japicmp-maven-plugin": "japicmp.skip",
    "revapi-maven-plugin": "revapi.skip",
}
"""Plugins that check a build and produce nothing nl2fix uses, by their skip property: skipped, so a
check's own inputs (animal-sniffer's API signatures, enforcer's rules about versions, which
Debian's substitutions break) do not stop an offline build. Said when the project's POMs name one."""
FORMAT = 4
Say = Callable[[str], None]
_ANT_SRC = ("src.dir", "source.dir", "src.main.dir", "java.src.dir", "src.java.dir", "main.src.dir", "src")
_ANT_TEST = ("test.dir", "test.src.dir", "src.test.dir", "tests.dir", "test.src", "test.source.dir", "test.java.dir")


class BuildSystem(str, enum.Enum):
    MAVEN = "maven"
    GRADLE = "gradle"
    ANT = "ant"
    PLAIN = "plain"


@dataclass(frozen=True)
class BuildOptions:
    """How to build; everything but the project is optional."""

    system: BuildSystem | None = None
    """None: detected from the build files."""
    src_dir: str | None = None
    """Main sources relative to the project (plain and Ant)."""
    test_dir: str | None = None
    classpath: tuple[Path, ...] = ()
    """Dependency jars or class folders (plain and Ant; JUnit is added)."""
    maven_repo: str | None = None
    """The Maven repository the build resolves from: a folder, ``debian``, or None for the build
    tool's own (Maven's local repository, Gradle's cache)."""
    timeout: float = BUILD_TIMEOUT
    offline: bool = False
    """Never go online, even for what the local repository or Gradle's cache lacks. Not part of the
    cache key: a build that succeeds is the same either way (the online path ends in the same
    offline build), and one that fails is not cached."""


def _goes_online(options: BuildOptions) -> bool:
    """Whether a build that lacks artifacts may resolve them online: never with ``--offline``, nor
    from Debian's repository (it is made of installed packages; nothing online fills it)."""
    return not options.offline and options.maven_repo != "debian"


_NO_NETWORK_HINT = (
    "build once where the network is (nl2fix resolves what is lacking online by itself then), or "
    "pass --maven-repo debian for Debian's packaged artifacts"
)
_OFFLINE_HINT = "--offline: everything must already be there; without it nl2fix resolves what is lacking online once"


@dataclass(frozen=True)
class Module:
    """One compiled Java module of the built copy (absolute paths)."""

    dir: Path
    src_dirs: tuple[Path, ...]
    test_dirs: tuple[Path, ...]
    classes: Path
    test_classes: Path
    classpath: tuple[Path, ...]
    """Everything else its tests need: resources, sibling modules' classes, dependency jars, JUnit."""


@dataclass(frozen=True)
class BuiltProject:
    system: BuildSystem
    source: Path
    """The user's project folder."""
    root: Path
    """The built copy."""
    modules: tuple[Module, ...]
    encoding: str = "UTF-8"

    def module_of(self, rel_path: str) -> tuple[Module, Path]:
        """The module whose main sources hold ``rel_path`` (relative to the project), and that source folder."""
        target = (self.root / rel_path).resolve()
        for module in self.modules:
            for src in module.src_dirs:
                if target.is_relative_to(src.resolve()):
                    return module, src
        raise Nl2FixError(
            f"{rel_path} is not under the main sources of any module of {self.source}",
            "give a file of the project's main sources (src/main/java/...)",
        )

    def module_at(self, rel_path: str) -> Module | None:
        """The innermost module whose folder holds ``rel_path`` (a Gradle root project holds its subprojects)."""
        holding = [m for m in self.modules if (self.root / rel_path).is_relative_to(m.dir)]
        return max(holding, key=lambda m: len(m.dir.parts), default=None)

    def _sources(self, tests: bool) -> dict[str, str]:
        out = {}
        for module in self.modules:
            for folder in module.test_dirs if tests else module.src_dirs:
                for path in local_workspace.java_files(folder):
                    # a test file the build left out (it did not compile) is not a test of the project
                    if tests and not (module.test_classes / path.relative_to(folder).with_suffix(".class")).is_file():
                        continue
                    out[str(path.relative_to(self.root))] = path.read_bytes().decode(self.encoding, "replace")
        return out

    @functools.cached_property
    def main_sources(self) -> dict[str, str]:
        """Every main Java file, by path relative to the project, with its text."""
        return self._sources(tests=False)

    @functools.cached_property
    def test_sources(self) -> dict[str, str]:
        """Every test Java file the build compiled, by path relative to the project, with its text."""
        return self._sources(tests=True)

    def workspace(self, bug: Bug) -> Workspace:
        """The workspace that validates candidates of ``bug`` in the module holding its file."""
        module, src = self.module_of(bug.path)
        classes = module.classes
        runner_junit = junit_classpath.project_junit(module.classpath) or junit_jars()
        hidden = junit_classpath.shadowed(runner_junit, [classes])
        if hidden:
            raise Nl2FixError(
                f"{module.dir.name} defines classes in packages the test runner's JUnit and Hamcrest also hold "
                f"({', '.join(hidden[:5])}{', ...' if len(hidden) > 5 else ''}): their copies load first and would "
                "hide the project's and every candidate's, so every candidate would pass",
                "nl2fix cannot validate fixes of JUnit or Hamcrest themselves",
            )
        level = java_level.class_file_level(classes) or java_level.project_level(module.dir)
        return Workspace(
            bug=bug,
            root=module.dir,
            src_dir=src,
            test_dir=module.test_dirs[0] if module.test_dirs else module.dir / local_workspace.DEFAULT_TEST_DIR,
            classes_dir=classes,
            test_classes_dir=module.test_classes,
            classpath=module.classpath,
            trigger_tests=bug.trigger_tests,
            relevant_tests=bug.relevant_tests,
            encoding=self.encoding,
            java_release=java_level.in_memory_release(level),
            target_file=self.root / bug.path,
        )


def detect(project: Path) -> BuildSystem:
    if (project / "pom.xml").is_file():
        return BuildSystem.MAVEN
    if any(
        (project / f).is_file() for f in ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
    ):
        return BuildSystem.GRADLE
    if (project / "build.xml").is_file():
        return BuildSystem.ANT
    return BuildSystem.PLAIN


def project_inputs(root: Path, options: BuildOptions) -> BuildInputs:
    return build_inputs(root, (options.src_dir, options.test_dir))


def fingerprint(root: Path, options: BuildOptions, system: BuildSystem, inputs: BuildInputs | None = None) -> str:
    """A key over every input of the build (:mod:`nl2fix.fix.build_inputs`) and the build options."""
    h = hashlib.sha256(
        f"{FORMAT}\n{system.value}\n{options.src_dir}\n{options.test_dir}\n{options.classpath}\n"
        f"{options.maven_repo}\n".encode()
    )
    for rel in (inputs or project_inputs(root, options)).files:
        path = root / rel
        h.update(str(rel).encode() + b"\0")
        if path.is_file():
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


def _error_lines(output: str) -> list[str]:
    lines = [l for l in output.splitlines() if "ERROR" in l or "error:" in l or "FAILURE" in l] or output.splitlines()
    return lines[:12]


def _failed(what: str, output: str, hint: str) -> Nl2FixError:
    return Nl2FixError(f"{what}:\n" + "\n".join(_error_lines(output)), hint)


def _against_substitutes(
    build: str, served: Iterable[debian_maven.Substitution], lines: list[str], hint: str
) -> Nl2FixError:
    """A compile that failed where versions were served in place of the asked ones: those are the
    likeliest cause, so they are named."""
    served = list(served)
    return Nl2FixError(
        f"the offline {build} build failed to compile, against {len(served)} substitute(s): "
        + "; ".join(map(str, served))
        + ":\n"
        + "\n".join(lines),
        "a substitute's API may differ from the version the project was written for (the files that "
        f"fail name the library); install that version, or {hint}",
    )


# -- Maven --


def _pom(path: Path) -> ET.Element:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise Nl2FixError(f"{path} is not valid XML: {exc}") from exc
    for el in root.iter():  # drop the POM namespace so paths stay short
        if isinstance(el.tag, str) and "}" in el.tag:
            el.tag = el.tag.split("}", 1)[1]
    return root


@dataclass(frozen=True)
class MavenModule:
    """A reactor module's folders, relative to its own folder."""

    dir: Path
    src: str
    test: str
    classes: str
    test_classes: str


def maven_modules(root: Path) -> list[MavenModule]:
    """Every module with sources of a reactor."""
    out, todo = [], [root]
    while todo:
        folder = todo.pop(0)
        pom = _pom(folder / "pom.xml")
        todo += [folder / m.text.strip() for m in pom.findall("./modules/module") if m.text]
        if (pom.findtext("./packaging") or "jar").strip() != "pom":
            out.append(
                MavenModule(
                    folder,
                    *(
                        _pom_path(pom, name, default)
                        for name, default in (
                            ("sourceDirectory", "src/main/java"),
                            ("testSourceDirectory", "src/test/java"),
                            ("outputDirectory", "target/classes"),
                            ("testOutputDirectory", "target/test-classes"),
                        )
                    ),
                )
            )
    return out


def _pom_path(pom: ET.Element, name: str, default: str) -> str:
    """A ``<build>`` folder of a POM; the default where it is not set or names properties."""
    value = (pom.findtext(f"./build/{name}") or "").strip()
    return value if value and "${" not in value else default


def _maven_repo(options: BuildOptions, build_dir: Path) -> Path | None:
    if options.maven_repo is None:
        return None
    if options.maven_repo == "debian":
        return debian_maven.debian_repo(build_dir / "maven-repo-debian")
    return Path(options.maven_repo).resolve()


def _build_maven(project: Path, options: BuildOptions, say: Say, log: Path) -> list[Module]:
    mvn = which("mvn")
    if mvn is None:
        raise Nl2FixError("this is a Maven project and `mvn` is not installed", "apt-get install maven")
    repo = _maven_repo(options, project.parent)
    named = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in project.rglob("pom.xml"))
    skipped = [plugin for plugin in MAVEN_CHECKS_SKIPPED if plugin in named]
    if skipped:
        say(
            f"maven: checks that build nothing nl2fix uses are skipped: {', '.join(skipped)} (-D"
            + " -D".join(MAVEN_CHECKS_SKIPPED[p] for p in skipped)
            + ")"
        )
    properties: dict[str, str] = {}
    """Version properties Debian's repository defined for the build (see below)."""
    served: list[debian_maven.Substitution] = []
    log.unlink(missing_ok=True)
    goals = [
        "test-compile",
        "dependency:build-classpath",
        f"-Dmdep.outputFile={MAVEN_CLASSPATH_FILE}",
        "-Dmdep.includeScope=test",
    ]

    def maven(run_goals: list[str], online: bool) -> ExecResult:
        """Maven with the build's flags, logged: offline and quiet, or online (-U: see online_resolution)
        with every download said."""
        argv = [
            str(mvn),
            *(["-U", "-B"] if online else ["-o", "-B", "-q"]),
            *([f"-Dmaven.repo.local={repo}"] if repo else []),
            *(f"-D{flag}" for flag in MAVEN_CHECKS_SKIPPED.values()),
            *(f"-D{name}={value}" for name, value in properties.items()),
            *run_goals,
        ]
        result = run_command(
            argv,
            timeout=options.timeout,
            cwd=project,
            output_limit=online_resolution.ONLINE_OUTPUT_LIMIT if online else DEFAULT_OUTPUT_LIMIT,
        )
        with log.open("a", encoding="utf-8") as f:
            f.write(f"$ {' '.join(argv)}\n{result.stdout + result.stderr}\n")
        return result

    for _ in range(MAVEN_ATTEMPTS):
        result = maven(goals, online=False)
        output = result.stdout + result.stderr
        if result.ok or options.maven_repo != "debian" or repo is None:
            break
        # Debian's repository: serve the versions asked for by the installed ones, and try again
        wanted, unversioned = debian_maven.missing_artifacts(output)
        made, lacking = debian_maven.substitute(repo, wanted)
        served += made
        for substitution in made:
            say(f"maven: {substitution}")
        # a version property no POM defines (a real parent did; the installed one serving it does not): the installed
        # version of its artifact, or a placeholder plugin when none is installed
        undefined = {k: c for k, c in debian_maven.undefined_versions(output).items() if k not in properties}
        for name, c in undefined.items():
            installed = debian_maven.version_for(repo, c)
            if installed is not None:
                properties[name] = installed
                say(
                    f"maven: ${{{name}}}, the version of {c}, is defined by no POM Maven read: set "
                    f"to the installed {installed}"
                )
            else:
                debian_maven.placeholders(repo, [c])
                properties[name] = debian_maven.PLACEHOLDER
                say(
                    f"maven: ${{{name}}}, the version of {c}, is defined by no POM Maven read and "
                    f"Debian lacks it: set to an empty placeholder {debian_maven.PLACEHOLDER} (a "
                    f"build that runs the plugin fails)"
                )
        stand_ins = debian_maven.placeholders(repo, unversioned)
        for c in stand_ins:
            say(
                f"maven: {c.group}:{c.artifact} is not in Debian's repository and has no version in the POMs: an empty "
                f"placeholder {c.version} lets Maven read them (a build that runs the plugin fails)"
            )
        if not made and not stand_ins and not undefined:
            if lacking or unversioned:
                raise debian_maven.lacking_error(
                    "Maven",
                    [*lacking, *unversioned],
                    f"install the packages named (apt-get install ...), or build once online and pass --maven-repo "
                    f"~/.m2/repository; the whole log: {log}",
                )
            break
    absent = online_resolution.maven_lacking(output) if not result.ok and _goes_online(options) else []
    if absent:
        where = (
            f"the local repository {repo}"
            if repo
            else "Maven's local repository (~/.m2/repository unless the settings name another)"
        )
        result = online_resolution.resolve_maven(
            maven, goals, absent, where, say, f"{_NO_NETWORK_HINT}; the whole log: {log}", options.timeout
        )
        output = result.stdout + result.stderr
    run = debian_maven.placeholders_run(output) if not result.ok and repo is not None else []
    if run:
        raise Nl2FixError(
            f"the offline Maven build runs {', '.join(f'{c.group}:{c.artifact}' for c in run)}, which Debian's "
            f"repository does not hold: the empty placeholder that let Maven read the POMs has no goal to run\n"
            + debian_maven.lacking_message(run),
            f"install the packages named, or build once online and pass --maven-repo ~/.m2/repository; the whole "
            f"log: {log}",
        )
    left_out: list[Path] = []
    if not result.ok and served and _test_files_failing(output, project):
        # only test files fail, against substitutes: build without them, as Defects4J leaves out
        # tests that do not compile, rather than not at all
        retry = maven(["-Dmaven.test.skip=true", *goals], online=False)
        if retry.ok:
            left_out = _compile_tests_leaving_out(project, _test_files_failing(output, project), log)
            result, output = retry, retry.stdout + retry.stderr
            say(
                f"maven: {len(left_out)} test file(s) left out, they do not compile against the substitutes (as "
                f"Defects4J leaves out tests that do not compile): "
                + ", ".join(str(f.relative_to(project)) for f in left_out)
            )
    if not result.ok and served and "COMPILATION ERROR" in output:
        # the versions Debian serves in place of the asked ones are the likeliest cause: say which
        raise _against_substitutes(
            "Maven",
            served,
            _error_lines(output),
            f"build once online and pass --maven-repo ~/.m2/repository; the whole log: {log}",
        )
    if not result.ok:
        hint = (
            f"the whole log: {log}"
            if not (options.offline and online_resolution.maven_lacking(output))
            else f"{_OFFLINE_HINT} (or pass --maven-repo debian for Debian's packaged plugins and libraries); "
            f"the whole log: {log}"
        )
        raise _failed(f"the offline Maven build failed ({' '.join(result.args[1:])})", output, hint)
    modules = []
    for m in maven_modules(project):
        cp_file = m.dir / MAVEN_CLASSPATH_FILE
        entries = cp_file.read_text().strip().split(os.pathsep) if cp_file.is_file() else []
        # the resources are in the output folder already; the folders serve a rebuild from the sources
        resources = [m.dir / r for r in local_workspace.RESOURCE_DIRS if (m.dir / r).is_dir()]
        modules.append(
            Module(
                m.dir,
                (m.dir / m.src,),
                (m.dir / m.test,),
                m.dir / m.classes,
                m.dir / m.test_classes,
                (*resources, *(_real(Path(e)) for e in entries if e)),
            )
        )
    return modules


_MAVEN_ERROR_FILE = re.compile(r"^\[ERROR\] (/\S+\.java):\[\d+", re.MULTILINE)
_JAVAC_ERROR_FILE = re.compile(r"^(/\S+\.java):\d+: error:", re.MULTILINE)


def _test_files_failing(output: str, project: Path) -> list[Path]:
    """The files of a failed compile, when every one is a test source of a module (else none)."""
    files = sorted({Path(m) for m in _MAVEN_ERROR_FILE.findall(output)})
    tests = [m.dir / m.test for m in maven_modules(project)]
    if files and all(any(f.is_relative_to(t) for t in tests) for f in files):
        return files
    return []


def _compile_tests_leaving_out(project: Path, failing: list[Path], log: Path) -> list[Path]:
    """Each module's tests compiled by javac against its classes and Maven's test class path, less
    the files that do not compile (and those that then fail for their sake); the files left out."""
    left_out = set(failing)
    for m in maven_modules(project):
        sources = local_workspace.java_files(m.dir / m.test)
        if not sources:
            continue
        classes, out = m.dir / m.classes, m.dir / m.test_classes
        cp_file = m.dir / MAVEN_CLASSPATH_FILE
        classpath = (
            [classes, *(Path(e) for e in cp_file.read_text().strip().split(os.pathsep) if e)]
            if cp_file.is_file()
            else [classes]
        )
        level = java_level.class_file_level(classes) or java_level.project_level(m.dir)
        encoding = local_workspace.detect_encoding(p.read_bytes() for p in sources)
        for _ in range(MAVEN_ATTEMPTS):
            shutil.rmtree(out, ignore_errors=True)
            result = local_workspace.javac(
                [p for p in sources if p not in left_out], out, classpath, encoding, release=str(level)
            )
            with log.open("a", encoding="utf-8") as f:
                f.write(
                    f"$ javac (the tests of {m.dir.name}, {len(left_out)} left out)\n{result.stdout + result.stderr}\n"
                )
            if result.ok:
                break
            more = {Path(f) for f in _JAVAC_ERROR_FILE.findall(result.stdout + result.stderr)} - left_out
            if not more:
                raise _failed(
                    f"the tests of {m.dir.name} do not compile", result.stdout + result.stderr, f"the whole log: {log}"
                )
            left_out |= more
        resources = m.dir / "src/test/resources"
        if resources.is_dir():
            shutil.copytree(resources, out, dirs_exist_ok=True)
    return sorted(left_out)


def _real(path: Path) -> Path:
    """Jars of a linked repository resolved to the files themselves (the sandbox binds real paths)."""
    return Path(os.path.realpath(path))


# -- Gradle --


def _gradle_command(project: Path, say: Say) -> tuple[list[str], gradle_offline.Wrapper | None]:
    """``./gradlew`` when its Gradle is unpacked already (offline it cannot download it), else the
    installed ``gradle``; and the wrapper passed over, if any."""
    script = project / "gradlew"
    runnable = script.is_file() and os.access(script, os.X_OK)
    dist = gradle_offline.wrapper(project) if runnable else None
    if runnable and (dist is None or dist.unpacked):
        return [str(script)], None
    found = which("gradle")
    if found is None:
        raise Nl2FixError(
            "this is a Gradle project without a usable ./gradlew and `gradle` is not installed",
            "apt-get install gradle, or pass --build plain with --src/--test-src/--classpath",
        )
    if dist is not None:
        version = re.search(r"^Gradle (\S+)", run_command([str(found), "--version"], timeout=120).stdout, re.MULTILINE)
        say(
            f"gradle: ./gradlew's {dist.name} is not in Gradle's user home and an offline build cannot download it "
            f"({dist.url}): built with the installed gradle{f' {version.group(1)}' if version else ''} instead"
        )
    return [str(found)], dist


def _build_gradle(project: Path, options: BuildOptions, say: Say, log: Path) -> list[Module]:
    gradle, passed_over = _gradle_command(project, say)
    work = project.parent
    notes_file = work / "nl2fix-gradle-notes.txt"
    layout_init = work / "nl2fix-layout.gradle"
    layout_init.write_text(gradle_offline.LAYOUT_INIT, encoding="utf-8")
    major = gradle_offline.java_major()
    # no daemon left running on the user's machine after the build
    argv = [
        *gradle,
        "--offline",
        "--no-daemon",
        "-q",
        "--console=plain",
        "-I",
        str(layout_init),
        f"-D{gradle_offline.NOTES_PROPERTY}={notes_file}",
    ]
    if major is not None:
        argv.append(f"-D{gradle_offline.OLDEST_LEVEL_PROPERTY}={java_level.oldest_accepted(major)}")
    repo = _maven_repo(options, work)
    if repo is not None:
        repo_init = work / "nl2fix-repository.gradle"
        repo_init.write_text(gradle_offline.REPOSITORY_INIT, encoding="utf-8")
        config = gradle_offline.write_repository_config(
            work / "nl2fix-repository.json", repo, substitute=options.maven_repo == "debian"
        )
        argv += ["-I", str(repo_init), f"-D{gradle_offline.REPOSITORY_PROPERTY}={config}"]
    argv.append("nl2fixLayout")

    def run(online: bool) -> ExecResult:
        command = [a for a in argv if not (online and a == "--offline")]
        result = run_command(command, timeout=options.timeout, cwd=project)
        with log.open("a", encoding="utf-8") as f:
            f.write(f"$ {' '.join(command)}\n{result.stdout + result.stderr}\n")
        return result

    log.unlink(missing_ok=True)
    result = run(online=False)
    output = result.stdout + result.stderr
    # with --maven-repo the declared repositories are replaced by a folder: nothing online to resolve from
    lacking = (
        online_resolution.gradle_lacking(output, gradle_offline.portal_plugins(output, project))
        if not result.ok and _goes_online(options) and options.maven_repo is None
        else []
    )
    if lacking:
        say(
            f"gradle: Gradle's cache ({gradle_offline.user_home() / 'caches'}) lacks {online_resolution.few(lacking)}: "
            "building once online to fill it, the project's own way (gradle without --offline)"
        )
        attempt = online_resolution.Attempt(
            "Gradle", "gradle without --offline", lambda: run(online=True), lambda: run(online=False)
        )
        result = online_resolution.online_then_offline(
            attempt, lacking, say, f"{_NO_NETWORK_HINT}; the whole log: {log}", options.timeout
        )
        output = result.stdout + result.stderr
    notes = gradle_offline.read_notes(notes_file)
    for task, asked, at in notes.levels:
        say(
            f"gradle: {task} compiles at Java {asked}, which the JDK's javac ({major}) no longer accepts: compiled "
            f"at {at}"
        )
    for substitution in notes.served:
        say(f"gradle: {substitution}")
    if not result.ok:
        raise _gradle_failed(project, options, output, notes, passed_over, log)
    modules = []
    for layout in sorted(project.rglob(f"build/{gradle_offline.LAYOUT_FILE}")):
        data = json.loads(layout.read_text(encoding="utf-8"))
        classes = [Path(p) for p in data["classes"]]
        test_classes = [Path(p) for p in data["testClasses"]]
        own = {*classes[:1], *test_classes[:1]}
        modules.append(
            Module(
                layout.parent.parent,
                tuple(map(Path, data["src"])),
                tuple(map(Path, data["test"])),
                classes[0],
                test_classes[0],
                tuple(_real(Path(p)) for p in data["classpath"] if Path(p) not in own),
            )
        )
    if not modules:
        raise Nl2FixError(
            f"Gradle built {project.name} but no Java project was found in it",
            "apply the `java` plugin, or pass --build plain",
        )
    return modules


def _gradle_failed(
    project: Path,
    options: BuildOptions,
    output: str,
    notes: gradle_offline.Notes,
    passed_over: gradle_offline.Wrapper | None,
    log: Path,
) -> Nl2FixError:
    """What stopped an offline Gradle build, most specific first."""
    online = (
        "drop --offline: nl2fix then builds once online to fill Gradle's cache"
        if options.offline
        else "build once online so that Gradle's cache holds them"
    )
    plugins = gradle_offline.portal_plugins(output, project)
    if plugins:
        return Nl2FixError(
            "the offline Gradle build applies plugins by id from the Gradle plugin portal, which it "
            "cannot reach and Debian does not package: " + ", ".join(plugins),
            f"{online}; the whole log: {log}",
        )
    lacking = gradle_offline.not_found(output)
    if lacking and options.maven_repo == "debian":
        return debian_maven.lacking_error(
            "Gradle",
            lacking,
            f"install the packages named (apt-get install ...), or "
            f"{online} and build without --maven-repo; the whole log: {log}",
        )
    what = gradle_offline.what_went_wrong(output)
    if notes.served and any("error:" in line or "Compilation failed" in line for line in what):
        return _against_substitutes(
            "Gradle", notes.served, what, f"{online} and build without --maven-repo; the whole log: {log}"
        )
    wrapper = (
        f"the project's wrapper asks for {passed_over.name}, which may be what the build needs; "
        if passed_over is not None
        else ""
    )
    hint = (
        f"{wrapper}everything must already be in Gradle's cache: {online}, or pass --maven-repo debian for "
        f"Debian's packaged libraries; the whole log: {log}"
        if options.offline and not options.maven_repo
        else f"{wrapper}the whole log: {log}"
    )
    return Nl2FixError("the offline Gradle build failed:\n" + "\n".join(what), hint)


# -- Ant and plain: javac --


def _ant_properties(build_xml: Path) -> dict[str, str]:
    try:
        root = ET.parse(build_xml).getroot()
    except ET.ParseError as exc:
        raise Nl2FixError(f"{build_xml} is not valid XML: {exc}") from exc
    props = {}
    for prop in root.iter("property"):
        name, value = prop.get("name"), prop.get("location") or prop.get("value")
        if name and value and name not in props:
            props[name] = value
    return props


def _expand(value: str, props: dict[str, str]) -> str:
    for _ in range(5):  # ${a} inside ${b}
        for name, text in props.items():
            value = value.replace("${" + name + "}", text)
    return value.replace("${basedir}/", "").replace("${basedir}", ".")


def javac_layout(project: Path, options: BuildOptions, system: BuildSystem) -> local_workspace.ProjectLayout:
    """Where the sources are and what they compile against, for builds nl2fix compiles itself."""
    src, test, classpath = options.src_dir, options.test_dir, list(options.classpath)
    if system is BuildSystem.ANT:
        props = _ant_properties(project / "build.xml")
        src = src or next((_expand(props[n], props) for n in _ANT_SRC if n in props), None)
        test = test or next((_expand(props[n], props) for n in _ANT_TEST if n in props), None)
        if not classpath:
            classpath = sorted((project / "lib").rglob("*.jar")) if (project / "lib").is_dir() else []
    src = src or next((d for d in ("src/main/java", "src") if (project / d).is_dir()), "src/main/java")
    test = test or next((d for d in ("src/test/java", "test", "tests") if (project / d).is_dir()), "src/test/java")
    return local_workspace.ProjectLayout(project, src, test, tuple(Path(p).resolve() for p in classpath))


def _build_javac(project: Path, options: BuildOptions, system: BuildSystem) -> list[Module]:
    layout = javac_layout(project, options, system)
    out = project.parent / "javac"
    out.mkdir()
    meta = local_workspace.compile_tree(
        project,
        local_workspace.ProjectLayout(project, layout.src_dir, layout.test_dir, layout.classpath),
        out,
        java_level.project_level(project),
    )
    return [
        Module(
            project,
            (project / layout.src_dir,),
            (project / layout.test_dir,),
            out / "classes",
            out / "test-classes",
            tuple(Path(p) for p in meta["classpath"]),
        )
    ]


# -- the cache --


def _to_json(modules: list[Module], base: Path) -> list[dict]:
    def rel(p: Path) -> str:
        return str(p.relative_to(base)) if p.is_relative_to(base) else str(p)

    return [
        {
            "dir": rel(m.dir),
            "src": [rel(p) for p in m.src_dirs],
            "test": [rel(p) for p in m.test_dirs],
            "classes": rel(m.classes),
            "test_classes": rel(m.test_classes),
            "classpath": [rel(p) for p in m.classpath],
        }
        for m in modules
    ]


def _from_json(data: list[dict], base: Path) -> tuple[Module, ...]:
    def at(p: str) -> Path:
        return base / p if not os.path.isabs(p) else Path(p)

    return tuple(
        Module(
            at(m["dir"]),
            tuple(map(at, m["src"])),
            tuple(map(at, m["test"])),
            at(m["classes"]),
            at(m["test_classes"]),
            tuple(map(at, m["classpath"])),
        )
        for m in data
    )


def build_project(
    project: Path,
    options: BuildOptions = BuildOptions(),
    cache_base: Path | None = None,
    on_build=lambda system, path: None,
    say: Say = lambda text: None,
) -> BuiltProject:
    """The project compiled (once per content) in the cache. ``on_build(system, folder)`` is called
    before a build that is not cached yet (it may take minutes); ``say`` hears what the build had to
    do that the user should know (substitutions in Debian's Maven repository), also when cached."""
    project = project.resolve()
    if not project.is_dir():
        raise Nl2FixError(f"project folder {project} does not exist")
    inputs = project_inputs(project, options)
    if not any(p.suffix == ".java" for p in inputs.files):
        raise Nl2FixError(
            f"{project} holds no Java source file (*.java){' git tracks' if inputs.tracked else ''}, "
            "outside build output",
            "point --project at the folder of a Java project (the one with pom.xml, build.gradle, "
            "build.xml or the source folders)",
        )
    if inputs.left_out:
        say(
            f"left out of the build, as git does not track them: {', '.join(inputs.left_out[:10])}"
            f"{', ...' if len(inputs.left_out) > 10 else ''} (`git add` them to build with them)"
        )
    system = options.system or detect(project)
    key = fingerprint(project, options, system, inputs)
    final = (cache_base or cache.cache_dir()) / PROJECTS_DIR / project.name / f"{system.value}-{key}"

    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        say(text)

    def build(tmp: Path) -> None:
        on_build(system, final)
        copy = tmp / "project"
        copy_inputs(project, inputs, copy)
        if system is BuildSystem.MAVEN:
            # the log is kept beside the cache entry: a failed build's folder is removed
            modules = _build_maven(copy, options, note, final.with_name(final.name + ".log"))
        elif system is BuildSystem.GRADLE:
            modules = _build_gradle(copy, options, note, final.with_name(final.name + ".log"))
        else:
            modules = _build_javac(copy, options, system)
        # paths are kept relative to the entry: it is built under a temporary name, then renamed
        encoding = local_workspace.detect_encoding(
            p.read_bytes() for m in modules for d in (*m.src_dirs, *m.test_dirs) for p in local_workspace.java_files(d)
        )
        (tmp / BUILD_FILE).write_text(
            json.dumps(
                {
                    "format": FORMAT,
                    "system": system.value,
                    "encoding": encoding,
                    "modules": _to_json(modules, tmp),
                    "notes": notes,
                },
                indent=2,
            ),
            encoding="utf-8",
        )

    cache.build_once(final, build)
    data = json.loads((final / BUILD_FILE).read_text(encoding="utf-8"))
    if not notes:  # a cached build: what it had to do still holds
        for text in data.get("notes", []):
            say(f"{text} (cached build)")
    return BuiltProject(
        BuildSystem(data["system"]), project, final / "project", _from_json(data["modules"], final), data["encoding"]
    )
