"""Building a user's project for real: Gradle (offline, Debian's gradle) and Ant (javac over the
folders build.xml names); then running its failing test for its stack trace, and the cache."""

from __future__ import annotations

import shutil

import pytest

from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.failing_test_run import run_test
from nl2fix.fix.project_build import BuildOptions, BuildSystem, build_project
from tests.helpers.paths import FIXTURES

PLAIN = FIXTURES / "fix_plain"
FAILING = "org.words.WordsTest::initialsSkipDoubleSpaces"


def _assert_fails_in_initials(module) -> None:
    result = run_test(module, FAILING, SandboxSpec())
    assert result.failed
    assert result.trace.startswith("java.lang.StringIndexOutOfBoundsException")
    assert "at org.words.Words.initials(Words.java:12)" in result.trace
    assert not run_test(module, "org.words.WordsTest::countsWords", SandboxSpec()).failed


def test_ant_project_is_compiled_from_the_folders_build_xml_names(tmp_path):
    project = tmp_path / "words"
    shutil.copytree(PLAIN, project)
    (project / "build.xml").write_text(
        '<project name="words" default="compile">\n'
        '  <property name="src.dir" value="src"/>\n'
        '  <property name="test.dir" location="test"/>\n</project>\n'
    )
    built = []
    first = build_project(project, cache_base=tmp_path / "cache", on_build=lambda s, p: built.append(s))
    assert built == [BuildSystem.ANT] and first.system is BuildSystem.ANT
    (module,) = first.modules
    assert module.src_dirs == (first.root / "src",) and (module.classes / "org/words/Words.class").is_file()
    _assert_fails_in_initials(module)
    # the same content is not built again; a changed file is
    assert build_project(project, cache_base=tmp_path / "cache", on_build=lambda s, p: built.append(s)) == first
    assert built == [BuildSystem.ANT]
    (project / "test/org/words/WordsTest.java").write_text(
        (project / "test/org/words/WordsTest.java").read_text().replace("grace  hopper", "grace hopper")
    )
    again = build_project(project, cache_base=tmp_path / "cache", on_build=lambda s, p: built.append(s))
    assert built == [BuildSystem.ANT, BuildSystem.ANT] and again.root != first.root
    assert not run_test(again.modules[0], FAILING, SandboxSpec()).failed


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gradle") is None, reason="needs Debian's gradle (scripts/setup.sh installs it)")
def test_gradle_project_builds_offline(tmp_path):
    project = tmp_path / "words"
    shutil.copytree(PLAIN / "src", project / "src/main/java")
    shutil.copytree(PLAIN / "test", project / "src/test/java")
    # JUnit from the machine's jars: an offline build cannot fetch it
    (project / "build.gradle").write_text(
        "apply plugin: 'java'\nsourceCompatibility = 1.8\ntargetCompatibility = 1.8\n"
        "dependencies {\n"
        "    testImplementation files('/usr/share/java/junit4.jar', '/usr/share/java/hamcrest-core.jar')\n}\n"
    )
    built = build_project(project, BuildOptions(), cache_base=tmp_path / "cache")
    assert built.system is BuildSystem.GRADLE
    (module,) = built.modules
    assert module.src_dirs == (built.root / "src/main/java",)
    assert (module.test_classes / "org/words/WordsTest.class").is_file()
    assert any(p.name == "junit4.jar" for p in module.classpath)
    _assert_fails_in_initials(module)


def test_fix_explains_what_it_cannot_use(tmp_path, invoke_cli, monkeypatch):
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "words"
    shutil.copytree(PLAIN, project)
    common = [
        "fix",
        "--project",
        project,
        "--issue",
        "initials crash",
        "--build",
        "plain",
        "--src",
        "src",
        "--test-src",
        "test",
        "--backend",
        "mutation",
        "--run",
        tmp_path / "run",
    ]
    neither = invoke_cli(*common)
    assert neither.exit_code == 2 and "say which test fails (--test Class::method)" in neither.output
    passing = invoke_cli(*common, "--test", "WordsTest::countsWords")
    assert passing.exit_code == 2
    assert "error: org.words.WordsTest::countsWords passes on the project as it is" in passing.stderr
    unknown = invoke_cli(*common, "--method", "src/org/words/Words.java:Words#capitalise")
    assert unknown.exit_code == 2 and "error: no method Words#capitalise in src/org/words/Words.java" in unknown.stderr
    assert not (tmp_path / "run").exists()  # nothing was sampled


def test_a_project_that_is_hamcrest_itself_is_refused_rather_than_judged_by_the_runners_copy(tmp_path):
    # Debian's junit4.jar puts hamcrest-core.jar on the class path through its manifest: in the
    # runner's JVM, loaded first, it hid JavaHamcrest's own classes, and every candidate passed
    project = tmp_path / "hamcrest"
    (project / "src/org/hamcrest").mkdir(parents=True)
    (project / "src/org/hamcrest/Matchers.java").write_text(
        "package org.hamcrest;\npublic class Matchers {\n    public static int one() {\n        return 1;\n    }\n}\n"
    )
    (project / "test/org/hamcrest").mkdir(parents=True)
    (project / "test/org/hamcrest/MatchersTest.java").write_text(
        "package org.hamcrest;\npublic class MatchersTest {\n    @org.junit.Test\n    public void one() {\n"
        "        org.junit.Assert.assertEquals(1, Matchers.one());\n    }\n}\n"
    )
    built = build_project(
        project, BuildOptions(system=BuildSystem.PLAIN, src_dir="src", test_dir="test"), cache_base=tmp_path / "cache"
    )
    bug = Bug(
        project="hamcrest",
        number=1,
        path="src/org/hamcrest/Matchers.java",
        start_line=3,
        end_line=5,
        buggy_method="",
        fixed_method="",
        title="",
    )
    with pytest.raises(Nl2FixError, match=r"packages the test runner's JUnit and Hamcrest also hold \(org\.hamcrest\)"):
        built.workspace(bug)
    # a project of its own packages is not refused
    words = build_project(
        PLAIN, BuildOptions(system=BuildSystem.PLAIN, src_dir="src", test_dir="test"), cache_base=tmp_path / "cache"
    )
    assert words.workspace(
        Bug(
            project="words",
            number=1,
            path="src/org/words/Words.java",
            start_line=1,
            end_line=2,
            buggy_method="",
            fixed_method="",
            title="",
        )
    ).classes_dir.is_dir()
