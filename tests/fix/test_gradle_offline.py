"""Offline Gradle builds of projects as they are: the wrapper's distribution, what the init scripts
report, what a failed build lacked (Gradle 4.4.1's own messages); then real offline builds of a tiny
project with Debian's gradle and Maven repository (a substitution, a raised source level, the
wrapper passed over), and of the same project asking for what no offline build can have."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from defects4j_adapter.jvm import java_level
from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix import debian_maven, gradle_offline
from nl2fix.fix.debian_maven import Coordinate, Substitution
from nl2fix.fix.failing_test_run import run_test
from nl2fix.fix.project_build import BuildOptions, BuildSystem, build_project
from tests.helpers.paths import FIXTURES

TINY = FIXTURES / "fix_gradle_tiny"
WRAPPER_URL = "https://services.gradle.org/distributions/gradle-4.10.2-bin.zip"

# as Gradle 4.4.1 prints them (the disruptor and pcollections builds of scripts/bench_fix_projects.py)
NOT_FOUND = """
FAILURE: Build failed with an exception.

* What went wrong:
Could not resolve all files for configuration ':testCompileClasspath'.
> Could not find org.jmock:jmock-junit4:2.5.1.
  Searched in the following locations:
      file:/tmp/b/maven-repo-debian/org/jmock/jmock-junit4/2.5.1/jmock-junit4-2.5.1.pom
      file:/tmp/b/maven-repo-debian/org/jmock/jmock-junit4/2.5.1/jmock-junit4-2.5.1.jar
  Required by:
      project :
> Could not find org.jmock:jmock-legacy:2.5.1.
  Searched in the following locations:
      file:/tmp/b/maven-repo-debian/org/jmock/jmock-legacy/2.5.1/jmock-legacy-2.5.1.pom
  Required by:
      project :

* Try:
Run with --stacktrace option to get the stack trace. Run with --info or --debug option to get more log output.
"""
PLUGIN_NOT_FOUND = """
* Where:
Build file '/tmp/b/project/build.gradle' line: 9

* What went wrong:
Plugin [id: 'me.champeau.gradle.jmh', version: '0.4.5'] was not found in any of the following sources:

- Gradle Core Plugins (plugin is not in 'org.gradle' namespace)
- Plugin Repositories (could not resolve plugin artifact \
'me.champeau.gradle.jmh:me.champeau.gradle.jmh.gradle.plugin:0.4.5')
  Searched in the following repositories:
    Gradle Central Plugin Repository

* Try:
Run with --stacktrace option to get the stack trace.
"""


def _wrapper_properties(project: Path, url: str = WRAPPER_URL) -> None:
    (project / "gradle/wrapper").mkdir(parents=True)
    (project / "gradle/wrapper/gradle-wrapper.properties").write_text(
        f"distributionBase=GRADLE_USER_HOME\ndistributionPath=wrapper/dists\n"
        f"distributionUrl={url.replace(':', chr(92) + ':')}\nzipStoreBase=GRADLE_USER_HOME\n"
        "zipStorePath=wrapper/dists\n"
    )


def test_the_wrapper_runs_offline_only_once_its_distribution_is_unpacked(tmp_path):
    home = tmp_path / "gradle-home"
    env = {"GRADLE_USER_HOME": str(home)}
    assert gradle_offline.wrapper(tmp_path, env) is None  # no wrapper properties
    _wrapper_properties(tmp_path)
    absent = gradle_offline.wrapper(tmp_path, env)
    assert absent == gradle_offline.Wrapper(WRAPPER_URL, unpacked=False)  # the escaped `\:` read as `:`
    assert absent.name == "gradle-4.10.2-bin"
    # downloaded, not yet unpacked: the wrapper would still need the network
    stored = home / "wrapper/dists/gradle-4.10.2-bin/9a5xn0b2bmqq3agrj4pasj1sz"
    stored.mkdir(parents=True)
    (stored / "gradle-4.10.2-bin.zip").write_bytes(b"")
    assert not gradle_offline.wrapper(tmp_path, env).unpacked
    (stored / "gradle-4.10.2-bin.zip.ok").write_bytes(b"")  # the wrapper's mark of a finished unpack
    assert gradle_offline.wrapper(tmp_path, env).unpacked


def test_notes_say_each_substitution_and_level_once_in_order(tmp_path):
    notes = tmp_path / "notes.txt"
    # Gradle resolves a configuration, and asks each dependency, more than once
    notes.write_text(
        "served\tjunit:junit:4.12\t4.13.2\nlevel\t:compileJava\t1.6\t1.7\n"
        "served\torg.hamcrest:hamcrest-core:1.3\tdebian\nserved\tjunit:junit:4.12\t4.13.2\n"
    )
    read = gradle_offline.read_notes(notes)
    assert read.served == (
        Substitution(Coordinate("junit", "junit", "4.12"), "4.13.2"),
        Substitution(Coordinate("org.hamcrest", "hamcrest-core", "1.3"), "debian"),
    )
    assert read.levels == ((":compileJava", "1.6", "1.7"),)
    assert gradle_offline.read_notes(tmp_path / "none.txt") == gradle_offline.Notes((), ())


def test_what_gradle_found_nowhere_is_read_from_its_messages():
    assert gradle_offline.not_found(NOT_FOUND) == [
        Coordinate("org.jmock", "jmock-junit4", "2.5.1"),
        Coordinate("org.jmock", "jmock-legacy", "2.5.1"),
    ]
    assert gradle_offline.what_went_wrong(NOT_FOUND)[:2] == [
        "Could not resolve all files for configuration ':testCompileClasspath'.",
        "> Could not find org.jmock:jmock-junit4:2.5.1.",
    ]
    assert gradle_offline.not_found(PLUGIN_NOT_FOUND) == []


def test_plugins_from_the_portal_are_all_named_with_their_scripts(tmp_path):
    (tmp_path / "build.gradle").write_text(
        "plugins {\n    id 'java'\n    id 'me.champeau.gradle.jmh' version '0.4.5'\n"
        '    id("com.jfrog.bintray") version("1.8.4")\n}\n'
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/sub.gradle").write_text("plugins { id 'org.example.other' version '2' }\n")
    # Gradle stops at the first plugin it cannot find; every one the scripts ask for is named
    assert gradle_offline.portal_plugins(PLUGIN_NOT_FOUND, tmp_path) == [
        "me.champeau.gradle.jmh 0.4.5 (build.gradle)",
        "com.jfrog.bintray 1.8.4 (build.gradle)",
        "org.example.other 2 (sub/sub.gradle)",
    ]
    assert gradle_offline.portal_plugins(NOT_FOUND, tmp_path) == []  # not what failed


def test_a_failure_without_gradles_account_shows_the_end_of_the_output():
    assert gradle_offline.what_went_wrong("a\nb\nException in thread main\n") == ["a", "b", "Exception in thread main"]
    javac = "/p/src/main/java/A.java:3: error: cannot find symbol\n* What went wrong:\nExecution failed.\n* Try:\n"
    assert gradle_offline.what_went_wrong(javac) == [
        "/p/src/main/java/A.java:3: error: cannot find symbol",
        "Execution failed.",
    ]


# -- real offline builds --


def _needs_debian_gradle():
    return pytest.mark.skipif(
        shutil.which("gradle") is None or not (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2").is_dir(),
        reason="needs Debian's gradle and junit4 (scripts/setup.sh installs them)",
    )


@pytest.fixture
def tiny(tmp_path, monkeypatch) -> Path:
    """A copy of the tiny project, with a cache of its own (Debian's repository made for its builds)."""
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copytree(TINY, tmp_path / "tiny")
    if gradle_offline.wrapper(tmp_path / "tiny").unpacked:
        pytest.skip("this machine has the wrapper's Gradle 4.10.2 unpacked: the wrapper (a stand-in here) would run")
    return tmp_path / "tiny"


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
@_needs_debian_gradle()
def test_offline_gradle_build_with_debians_artifacts(tiny):
    """junit 4.12 from Maven Central (Debian has 4.13.2), Java 1.6, a wrapper whose Gradle is not downloaded."""
    before = _files(tiny)
    said: list[str] = []
    built = build_project(tiny, BuildOptions(maven_repo="debian"), say=said.append)
    assert built.system is BuildSystem.GRADLE
    major = gradle_offline.java_major()
    oldest = java_level.oldest_accepted(major)
    levels = (
        [
            f"gradle: :{task} compiles at Java 1.6, which the JDK's javac ({major}) no longer accepts: compiled at "
            f"1.{oldest}"
            for task in ("compileJava", "compileTestJava")
        ]
        if oldest > 6
        else []
    )
    assert said[0].startswith(
        f"gradle: ./gradlew's gradle-4.10.2-bin is not in Gradle's user home and an offline "
        f"build cannot download it ({WRAPPER_URL}): built with the installed gradle "
    )
    assert said[1:] == [*levels, "gradle: junit:junit:4.12 served by the installed 4.13.2"]
    (module,) = built.modules
    assert module.src_dirs == (built.root / "src/main/java",)
    # Debian's junit, as the real file (the sandbox binds real paths), with hamcrest by Debian's relocation
    junit = (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2/junit-4.13.2.jar").resolve()
    assert junit in module.classpath
    assert any(p.name.startswith("hamcrest") for p in module.classpath)
    failed = run_test(module, "org.tiny.HalfTest::roundsOddNumbersUp", SandboxSpec())
    assert failed.failed and failed.trace.startswith("java.lang.AssertionError: expected:<3> but was:<2>")
    assert not run_test(module, "org.tiny.HalfTest::halvesEvenNumbers", SandboxSpec()).failed
    assert _files(tiny) == before  # the project as it was: the init scripts did it all
    # said again from the cache
    again: list[str] = []
    assert build_project(tiny, BuildOptions(maven_repo="debian"), say=again.append) == built
    assert again == [f"{text} (cached build)" for text in said]


def _edit(project: Path, old: str, new: str) -> None:
    script = project / "build.gradle"
    assert old in script.read_text()
    script.write_text(script.read_text().replace(old, new))


@pytest.mark.slow
@_needs_debian_gradle()
def test_offline_gradle_build_names_plugins_from_the_portal(tiny):
    _edit(tiny, "    id 'java'\n", "    id 'java'\n    id 'org.example.nl2fix.absent' version '1.0'\n")
    with pytest.raises(Nl2FixError) as raised:
        build_project(tiny, BuildOptions(maven_repo="debian"))
    assert raised.value.message == (
        "the offline Gradle build applies plugins by id from the Gradle plugin portal, which it cannot reach and "
        "Debian does not package: org.example.nl2fix.absent 1.0 (build.gradle)"
    )
    assert raised.value.hint.startswith("build once online so that Gradle's cache holds them; the whole log: ")


@pytest.mark.slow
@_needs_debian_gradle()
def test_offline_gradle_build_names_what_debian_lacks(tiny):
    junit = "    testImplementation 'junit:junit:4.12'\n"
    _edit(tiny, junit, f"{junit}    testImplementation 'org.example.nl2fix:zzqx-nothing-like-it:1'\n")
    with pytest.raises(Nl2FixError) as raised:
        build_project(tiny, BuildOptions(maven_repo="debian"))
    assert raised.value.message.splitlines() == [
        "the offline Gradle build needs what Debian's Maven repository does not hold:",
        "  org.example.nl2fix:zzqx-nothing-like-it:1: not in /usr/share/maven-repo; no Debian package found for it",
    ]
    assert raised.value.hint.startswith("install the packages named (apt-get install ...), or build once online")


@pytest.mark.slow
@_needs_debian_gradle()
def test_a_repository_folder_replaces_the_declared_ones_and_serves_nothing(tiny):
    folder = BuildOptions(maven_repo=str(debian_maven.DEBIAN_MAVEN_REPO))
    with pytest.raises(Nl2FixError) as raised:  # junit 4.12 is not in it, and nothing stands in
        build_project(tiny, folder)
    assert "> Could not find junit:junit:4.12." in raised.value.message.splitlines()
    assert f"file:{debian_maven.DEBIAN_MAVEN_REPO}/junit/junit/4.12/junit-4.12.pom" in raised.value.message
    _edit(tiny, "junit:junit:4.12", "junit:junit:4.13.2")
    said: list[str] = []
    (module,) = build_project(tiny, folder, say=said.append).modules
    assert not any("served" in line for line in said)
    assert (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2/junit-4.13.2.jar").resolve() in module.classpath
