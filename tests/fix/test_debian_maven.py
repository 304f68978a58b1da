"""Debian's Maven repository made to serve POMs as they are: metadata, substitutions, placeholders
and naming what Debian lacks, on a small synthetic repository; then real offline Maven builds of a
tiny project that needs a substitution and a placeholder."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.fix import debian_maven
from nl2fix.fix.debian_maven import PLACEHOLDER, Coordinate, Substitution
from nl2fix.fix.project_build import BuildOptions, build_project
from tests.helpers.paths import FIXTURES

PARENT_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.example</groupId>
    <artifactId>root</artifactId>
    <version>29</version>
  </parent>
  <groupId>org.example</groupId>
  <artifactId>parent</artifactId>
  <!-- Debian's version -->
  <version>56</version>
  <packaging>pom</packaging>
  <properties><compiler.level>8</compiler.level></properties>
</project>
"""


def _artifact(repo: Path, group: str, artifact: str, version: str, pom: str | None = None, jar: bool = True) -> Path:
    folder = repo.joinpath(*group.split("."), artifact, version)
    folder.mkdir(parents=True)
    (folder / f"{artifact}-{version}.pom").write_text(
        pom
        or (
            f"<project><modelVersion>4.0.0</modelVersion><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
            f"<version>{version}</version></project>\n"
        )
    )
    if jar:
        (folder / f"{artifact}-{version}.jar").write_bytes(b"PK\x05\x06" + bytes(18))
    return folder


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository laid out as Debian's: one real version per artifact plus Debian's ``debian``
    alias, a parent POM, two plugins and a relocation-only artifact (as hamcrest-all is)."""
    repo = tmp_path / "repo"
    _artifact(repo, "org.example", "lib", "1.2")
    _artifact(repo, "org.example", "lib", "debian")
    _artifact(repo, "org.example", "parent", "56", PARENT_POM, jar=False)
    _artifact(repo, "org.example.plugins", "maven-shiny-plugin", "3.10.1")
    _artifact(repo, "org.example.plugins", "maven-shiny-plugin", "3.6.2")
    _artifact(repo, "org.example.plugins", "dull-maven-plugin", "1.0")
    _artifact(
        repo,
        "org.example",
        "moved",
        "debian",
        pom=(
            "<project><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId><artifactId>moved</artifactId>"
            "<version>debian</version><distributionManagement><relocation><artifactId>lib</artifactId></relocation>"
            "</distributionManagement></project>\n"
        ),
        jar=False,
    )
    debian_maven.write_metadata(repo)
    return repo


def _metadata(folder: Path) -> str:
    return (folder / debian_maven.METADATA).read_text()


def test_versions_order_by_number_and_debian_last():
    ordered = sorted(["3.6.2", "debian", "3.10.1", "3.10", "1.0-beta-1"], key=debian_maven.version_key)
    assert ordered == ["debian", "1.0-beta-1", "3.6.2", "3.10", "3.10.1"]


def test_metadata_lists_versions_and_plugin_prefixes(repo):
    lib = _metadata(repo / "org/example/lib")
    assert "<versions><version>debian</version><version>1.2</version></versions>" in lib
    assert "<latest>1.2</latest><release>1.2</release>" in lib  # never the `debian` alias
    assert "<release>3.10.1</release>" in _metadata(repo / "org/example/plugins/maven-shiny-plugin")
    plugins = _metadata(repo / "org/example/plugins")
    # Maven's default prefixes, so `shiny:goal` and `dull:goal` resolve
    assert "<name>maven-shiny-plugin</name><prefix>shiny</prefix>" in plugins
    assert "<name>dull-maven-plugin</name><prefix>dull</prefix>" in plugins
    assert not (repo / "org/example" / debian_maven.METADATA).exists()  # a group of no plugins


def test_what_is_installed_names_the_version_that_serves_the_others(repo):
    held = debian_maven.installed(repo)
    # the newest real version, never the `debian` alias or a relocation while a real one is there
    assert held["org.example:lib"] == ("1.2", ["debian", "1.2"])
    assert held["org.example.plugins:maven-shiny-plugin"] == ("3.10.1", ["3.6.2", "3.10.1"])
    assert held["org.example:parent"] == ("56", ["56"])
    assert held["org.example:moved"] == ("debian", ["debian"])  # a relocation only: served through it
    debian_maven.substitute(repo, [Coordinate("org.example", "lib", "0.9")])
    assert debian_maven.installed(repo)["org.example:lib"] == ("1.2", ["debian", "0.9", "1.2"])


def test_what_maven_could_not_find_is_read_from_its_messages():
    # lines as Maven 3.8.7 prints them offline
    output = (
        "[ERROR] Non-resolvable parent POM for g:p:1: Cannot access central (https://repo.maven.apache.org/maven2) "
        "in offline mode and the artifact org.apache.commons:commons-parent:pom:38 has not been downloaded from it "
        "before. and 'parent.relativePath' points at wrong local POM @ line 22, column 11\n"
        "[ERROR] Failed to execute goal on project commons-cli: Could not resolve dependencies for project "
        "commons-cli:commons-cli:jar:1.3-SNAPSHOT: The following artifacts could not be resolved: "
        "junit:junit:jar:3.8.2, junit-addons:junit-addons:jar:1.4: Cannot access central "
        "(https://repo.maven.apache.org/maven2) in offline mode and the artifact junit:junit:jar:3.8.2 has not been "
        "downloaded from it before.\n"
        "[ERROR] Plugin org.codehaus.mojo:animal-sniffer-maven-plugin:1.15 or one of its dependencies could not be "
        "resolved: Cannot access central in offline mode and the artifact "
        "org.codehaus.mojo:animal-sniffer-maven-plugin:jar:1.15 has not been downloaded from it before.\n"
        "[ERROR] Error resolving version for plugin 'org.apache.maven.plugins:maven-javadoc-plugin' from the "
        "repositories [local (/r), central (https://repo.maven.apache.org/maven2)]: Plugin not found in any plugin "
        "repository -> [Help 1]\n"
        "[ERROR] the artifact g:a:jar:${project.version} has not been downloaded from it before.\n"
    )
    wanted, unversioned = debian_maven.missing_artifacts(output)
    assert [str(c) for c in wanted] == [
        "junit:junit:3.8.2",
        "org.apache.commons:commons-parent:38",
        "org.codehaus.mojo:animal-sniffer-maven-plugin:1.15",
    ]
    assert [c.type for c in wanted] == ["jar", "pom", "jar"]
    assert unversioned == [Coordinate("org.apache.maven.plugins", "maven-javadoc-plugin")]


def test_version_properties_no_pom_defines_are_read_and_served(repo):
    # commons-math 3.2 names ${commons.clirr.version}, which commons-parent 28 defined and Debian's 56 does not
    output = (
        "[ERROR]     'build.plugins.plugin.version' for org.codehaus.mojo:clirr-maven-plugin must be a valid "
        "version but is '${commons.clirr.version}'. @ line 366, column 20\n"
        "[ERROR]     'dependencies.dependency.version' for org.example:lib:jar must be a valid version but is "
        "'${lib.version}'. @ line 80, column 16\n"
    )
    assert debian_maven.undefined_versions(output) == {
        "commons.clirr.version": Coordinate("org.codehaus.mojo", "clirr-maven-plugin"),
        "lib.version": Coordinate("org.example", "lib"),
    }
    assert debian_maven.version_for(repo, Coordinate("org.example", "lib")) == "1.2"
    assert debian_maven.version_for(repo, Coordinate("org.codehaus.mojo", "clirr-maven-plugin")) is None


def test_a_missing_parent_version_is_a_copy_of_the_installed_parent(repo):
    made, lacking = debian_maven.substitute(repo, [Coordinate("org.example", "parent", "38", "pom")])
    assert made == [Substitution(Coordinate("org.example", "parent", "38", "pom"), "56")] and lacking == []
    assert str(made[0]) == "org.example:parent:38 served by the installed 56"
    copy = (repo / "org/example/parent/38/parent-38.pom").read_text()
    # its own version reads 38 (after the comment), its parent's is left alone, the rest is Debian's
    assert copy == PARENT_POM.replace("<version>56</version>", "<version>38</version>")
    assert "<relocation>" not in copy
    assert "<version>38</version>" in _metadata(repo / "org/example/parent")


def test_a_missing_version_of_anything_else_relocates_to_the_installed_one(repo):
    wanted = [Coordinate("org.example", "lib", "1.0"), Coordinate("org.example.plugins", "maven-shiny-plugin", "2.0")]
    made, lacking = debian_maven.substitute(repo, wanted)
    assert [(str(s.wanted), s.installed) for s in made] == [
        ("org.example:lib:1.0", "1.2"),
        ("org.example.plugins:maven-shiny-plugin:2.0", "3.10.1"),
    ]
    relocation = (repo / "org/example/lib/1.0/lib-1.0.pom").read_text()
    assert re.search(
        r"<relocation><groupId>org.example</groupId><artifactId>lib</artifactId>"
        r"<version>1.2</version></relocation>",
        relocation,
    )
    assert not (repo / "org/example/lib/1.0/lib-1.0.jar").exists()
    assert "<version>1.0</version><version>1.2</version>" in _metadata(repo / "org/example/lib")
    # asked again (Maven failed on something else the first time): nothing new is made or said
    assert debian_maven.substitute(repo, wanted) == ([], [])
    # a later substitution is served by the real version, never by an earlier relocation
    made, _ = debian_maven.substitute(repo, [Coordinate("org.example", "lib", "0.9")])
    assert made[0].installed == "1.2"


def test_a_relocation_only_artifact_serves_through_its_relocation(repo):
    made, _ = debian_maven.substitute(repo, [Coordinate("org.example", "moved", "1.3")])
    assert made[0].installed == "debian"  # Maven follows debian's relocation on to lib


def test_an_artifact_debian_lacks_is_not_substituted(repo):
    made, lacking = debian_maven.substitute(repo, [Coordinate("org.example", "absent", "7", "pom")])
    assert made == [] and lacking == [Coordinate("org.example", "absent", "7", "pom")]
    assert not (repo / "org/example/absent").exists()


def test_an_unversioned_plugin_debian_lacks_gets_an_empty_placeholder(repo):
    absent = Coordinate("org.example.plugins", "maven-absent-plugin")
    made = debian_maven.placeholders(repo, [absent, Coordinate("org.example.plugins", "dull-maven-plugin")])
    assert made == [Coordinate("org.example.plugins", "maven-absent-plugin", PLACEHOLDER)]  # dull is installed
    folder = repo / "org/example/plugins/maven-absent-plugin"
    assert (
        "<packaging>maven-plugin</packaging>"
        in (folder / PLACEHOLDER / f"maven-absent-plugin-{PLACEHOLDER}.pom").read_text()
    )
    with zipfile.ZipFile(folder / PLACEHOLDER / f"maven-absent-plugin-{PLACEHOLDER}.jar") as jar:
        descriptor = jar.read("META-INF/maven/plugin.xml").decode()
    assert "<goalPrefix>absent</goalPrefix><mojos/>" in descriptor  # no goal: it can run nothing
    assert f"<release>{PLACEHOLDER}</release>" in _metadata(folder)
    assert debian_maven.placeholders(repo, [absent]) == []  # made once
    # a placeholder never serves a substitution of a real version
    made, lacking = debian_maven.substitute(repo, [Coordinate("org.example.plugins", "maven-absent-plugin", "2.1")])
    assert made == [] and lacking == [Coordinate("org.example.plugins", "maven-absent-plugin", "2.1")]


def test_placeholders_a_failed_build_ran_are_named():
    output = (
        "[ERROR] Could not find goal 'check' in plugin org.example.absent:absent-maven-plugin:"
        f"{PLACEHOLDER} among available goals -> [Help 1]\n"
    )
    assert debian_maven.placeholders_run(output) == [Coordinate("org.example.absent", "absent-maven-plugin")]
    assert debian_maven.placeholders_run("[ERROR] COMPILATION ERROR") == []


@pytest.mark.skipif(shutil.which("apt-cache") is None, reason="needs apt-cache")
@pytest.mark.skipif(
    not (debian_maven.DEBIAN_MAVEN_REPO / "org/codehaus/mojo/animal-sniffer-maven-plugin").is_dir(),
    reason="needs Debian's package lists (scripts/setup.sh installs libanimal-sniffer-java)",
)
def test_what_debian_lacks_is_named_with_the_packages_that_may_hold_it():
    # a package setup.sh installs, so apt's lists know it wherever the tests run
    plugin = Coordinate("org.codehaus.mojo", "animal-sniffer-maven-plugin", "1.15")
    assert "libanimal-sniffer-java" in debian_maven.debian_packages(plugin)
    # a word of the name alone is not enough (`oss` is in libjide-oss-java's)
    assert debian_maven.debian_packages(Coordinate("org.sonatype.oss", "oss-parent", "7", "pom")) == []
    # a module of a project Debian packages whole, by the project's name (its group's last word)
    assert "libjmock2-java" in debian_maven.debian_packages(Coordinate("org.jmock", "jmock-junit4", "2.5.1"))
    message = debian_maven.lacking_message([plugin, Coordinate("org.example.nl2fix", "zzqx-nothing-like-it", "1")])
    assert message.splitlines() == [
        "  org.codehaus.mojo:animal-sniffer-maven-plugin:1.15: not in /usr/share/maven-repo; Debian package(s) "
        "whose name matches: " + ", ".join(debian_maven.debian_packages(plugin)),
        "  org.example.nl2fix:zzqx-nothing-like-it:1: not in /usr/share/maven-repo; no Debian package found for it",
    ]


# -- real offline builds --

TINY = FIXTURES / "fix_maven_tiny"


def _needs_debian_maven():
    return pytest.mark.skipif(
        shutil.which("mvn") is None or not (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2").is_dir(),
        reason="needs Debian's maven, its plugins and junit4 (scripts/setup.sh installs them)",
    )


@pytest.fixture
def tiny(tmp_path, monkeypatch) -> Path:
    """A copy of the tiny project, with a cache of its own (Debian's repository made for its builds)."""
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copytree(TINY, tmp_path / "tiny")
    return tmp_path / "tiny"


def _edit_pom(project: Path, old: str, new: str) -> None:
    pom = project / "pom.xml"
    assert old in pom.read_text()
    pom.write_text(pom.read_text().replace(old, new))


@pytest.mark.slow
@_needs_debian_maven()
def test_offline_build_with_a_substitution_and_a_placeholder(tiny):
    """junit 4.12 (Debian has 4.13.2), version properties no POM defines, and plugins Debian lacks that the
    build never runs."""
    project = tiny
    said: list[str] = []
    built = build_project(project, BuildOptions(maven_repo="debian"), say=said.append)
    # Maven reads the POMs (the plugin's version) before it resolves dependencies
    assert said == [
        "maven: ${hamcrest.version}, the version of org.hamcrest:hamcrest-core, is defined by no POM Maven read: set "
        "to the installed debian",
        "maven: ${other.plugin.version}, the version of org.example.absent:other-maven-plugin, is defined by no POM "
        f"Maven read and Debian lacks it: set to an empty placeholder {PLACEHOLDER} (a build that runs the plugin "
        "fails)",
        f"maven: org.example.absent:absent-maven-plugin is not in Debian's repository and has no version in the "
        f"POMs: an empty placeholder {PLACEHOLDER} lets Maven read them (a build that runs the plugin fails)",
        "maven: junit:junit:4.12 served by the installed 4.13.2",
    ]
    (module,) = built.modules
    assert (module.test_classes / "org/tiny/HalfTest.class").is_file()
    # the installed junit, as the real file (the sandbox binds real paths)
    installed = (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2/junit-4.13.2.jar").resolve()
    assert installed in module.classpath
    # said again from the cache
    again: list[str] = []
    assert build_project(project, BuildOptions(maven_repo="debian"), say=again.append) == built
    assert again == [f"{text} (cached build)" for text in said]


@pytest.mark.slow
@_needs_debian_maven()
def test_offline_build_that_runs_a_placeholder_fails_naming_the_plugin(tiny):
    # bound to a phase test-compile runs
    _edit_pom(
        tiny,
        "<artifactId>absent-maven-plugin</artifactId>",
        (
            "<artifactId>absent-maven-plugin</artifactId><executions><execution><phase>generate-sources</phase>"
            "<goals><goal>check</goal></goals></execution></executions>"
        ),
    )
    with pytest.raises(Nl2FixError) as raised:
        build_project(tiny, BuildOptions(maven_repo="debian"))
    assert raised.value.message.splitlines() == [
        "the offline Maven build runs org.example.absent:absent-maven-plugin, which Debian's repository does not "
        "hold: the empty placeholder that let Maven read the POMs has no goal to run",
        "  org.example.absent:absent-maven-plugin: not in /usr/share/maven-repo; no Debian package found for it",
    ]


HAMCREST_ALL = (
    "    <dependency><groupId>org.hamcrest</groupId><artifactId>hamcrest-all</artifactId>"
    "<version>1.3</version><scope>SCOPE</scope></dependency>\n  </dependencies>"
)
SUGAR = (
    "package org.tiny;\n\nimport org.hamcrest.generator.SugarGenerator;\n\n"
    "public class Sugar {\n    SugarGenerator generator;\n}\n"
)


@pytest.mark.slow
@_needs_debian_maven()
def test_test_files_that_do_not_compile_against_a_substitute_are_left_out_and_named(tiny):
    # hamcrest-all 1.3 held hamcrest's generator; Debian serves it by hamcrest 2.2, which does not
    _edit_pom(tiny, "  </dependencies>", HAMCREST_ALL.replace("SCOPE", "test"))
    (tiny / "src/test/java/org/tiny/SugarTest.java").write_text(SUGAR.replace("Sugar ", "SugarTest "))
    said: list[str] = []
    built = build_project(tiny, BuildOptions(maven_repo="debian"), say=said.append)
    assert "maven: org.hamcrest:hamcrest-all:1.3 served by the installed debian" in said
    assert said[-1] == (
        "maven: 1 test file(s) left out, they do not compile against the substitutes (as Defects4J "
        "leaves out tests that do not compile): src/test/java/org/tiny/SugarTest.java"
    )
    (module,) = built.modules
    assert (module.test_classes / "org/tiny/HalfTest.class").is_file()
    assert not (module.test_classes / "org/tiny/SugarTest.class").exists()
    assert list(built.test_sources) == ["src/test/java/org/tiny/HalfTest.java"]


@pytest.mark.slow
@_needs_debian_maven()
def test_main_code_that_does_not_compile_against_a_substitute_names_it(tiny):
    _edit_pom(tiny, "  </dependencies>", HAMCREST_ALL.replace("SCOPE", "compile"))
    (tiny / "src/main/java/org/tiny/Sugar.java").write_text(SUGAR)
    with pytest.raises(Nl2FixError) as raised:
        build_project(tiny, BuildOptions(maven_repo="debian"))
    first, *rest = raised.value.message.splitlines()
    assert first.startswith("the offline Maven build failed to compile, against 2 substitute(s): ")
    assert "org.hamcrest:hamcrest-all:1.3 served by the installed debian" in first
    assert any("package org.hamcrest.generator does not exist" in line for line in rest)
    assert "a substitute's API may differ from the version the project was written for" in raised.value.hint
