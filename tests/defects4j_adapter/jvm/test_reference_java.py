"""The Java the tests run on (like Defects4J's), the Java level projects compile at, which JUnit
the runner loads, and which failures are the environment's: pure parts, plus real JDKs and javac
where the machine has them."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from defects4j_adapter.engines import linkage
from defects4j_adapter.jvm import java_level, junit_classpath, reference_java
from defects4j_adapter.jvm.reference_java import Jdk, Reference, choose
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command

# --- Defects4J's flavour ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ('openjdk version "11.0.24" 2024-07-16\nOpenJDK Runtime Environment', (11, "11.0.24")),
        ('java version "1.8.0_412"', (8, "1.8.0_412")),
        ('openjdk version "17" 2021-09-14', (17, "17")),
        ('openjdk version "21-ea" 2023-09-19', (21, "21-ea")),
        ("no java here", None),
    ],
)
def test_java_versions_are_read_from_java_version_output(text, expected):
    assert reference_java.parse_java_version(text) == expected


CONSTANTS_3 = """
my $java_version_output = `java -version 2>&1`;
if ($java_version_output =~ 'version "?(?:1\\.)?(\\K\\d+)') {
    if ($1 != 11) {
        die ("Java 11 is required!\\n\\n");
    }
}
"""


def _defects4j(root: Path, version: str, constants: str) -> Path:
    exe = root / "framework" / "bin" / "defects4j"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (root / "README.md").write_text(f"Defects4J -- version {version} [![ci]](x)\n=====\n")
    (root / "framework" / "core").mkdir(parents=True)
    (root / "framework" / "core" / "Constants.pm").write_text(constants)
    return exe


def test_defects4j_3_requires_java_11_and_2_requires_java_8(tmp_path):
    _defects4j(tmp_path / "d4j3", "3.0.1", CONSTANTS_3)
    _defects4j(tmp_path / "d4j2", "2.0.0", "our $TAG_FIXED = 'FIXED_VERSION';\n")
    three = reference_java.reference({"PATH": "", "D4J_HOME": str(tmp_path / "d4j3")})
    two = reference_java.reference({"PATH": str(tmp_path / "d4j2" / "framework" / "bin")})
    assert three == Reference(11, "3.0.1", str(tmp_path / "d4j3"))
    assert (two.major, two.defects4j_version) == (8, "2.0.0")
    assert "Defects4J 2.0.0 (Java 8)" in two.describe()
    nothing = reference_java.reference({"PATH": ""})
    assert nothing.major == 11 and not nothing.defects4j_version and "no Defects4J" in nothing.describe()


def _jdk(tmp_path: Path, name: str, major: int, full: bool = True) -> Jdk:
    home = tmp_path / name
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("")
    if full:
        (home / "bin" / "javac").write_text("")
    return Jdk(home, major, f"{major}.0.1")


def test_the_test_java_is_defects4j_s_own_version_when_installed(tmp_path):
    jdk11, jdk17 = _jdk(tmp_path, "jdk11", 11), _jdk(tmp_path, "jdk17", 17)
    runtime11 = _jdk(tmp_path, "jre11", 11, full=False)
    ref = Reference(11, "3.0.1")
    assert choose(ref, explicit=None, defects4j_java=runtime11, candidates=[jdk17, jdk11], on_path=jdk17) == (
        jdk11,
        "an installed JDK 11",
    )
    assert (
        choose(ref, explicit=None, defects4j_java=jdk11, candidates=[], on_path=jdk17)[1]
        == "the Java Defects4J runs on"
    )
    jdk, why = choose(ref, explicit=None, defects4j_java=runtime11, candidates=[jdk17], on_path=jdk17)
    assert jdk == jdk17 and "no full JDK 11" in why
    jdk, why = choose(Reference(8, "2.0.0"), explicit=None, defects4j_java=None, candidates=[jdk11], on_path=jdk17)
    assert jdk == jdk11 and "nearest to Java 8" in why
    assert choose(ref, explicit=jdk17, defects4j_java=jdk11, candidates=[jdk11], on_path=jdk11)[0] == jdk17


def test_tests_off_defects4j_s_java_say_so_loudly_in_the_summary_reports_show(tmp_path):
    jdk11, jdk17 = _jdk(tmp_path, "jdk11", 11), _jdk(tmp_path, "jdk17", 17)
    off = reference_java.TestJava(jdk17, Reference(11, "3.0.1"), "java on PATH")
    assert "NOT Defects4J's Java 11" in off.describe() and off.describe() == off.record()["summary"]
    assert reference_java.TestJava(jdk11, Reference(11, "3.0.1"), "an installed JDK 11").mismatch == ""
    assert reference_java.TestJava(jdk11, Reference(8, "2.0.0"), "nearest").mismatch == ""  # 11 serves 8
    assert "NOT Defects4J's Java 8" in reference_java.TestJava(jdk17, Reference(8, "2.0.0"), "x").mismatch


def test_no_usable_jdk_is_an_error_that_says_what_to_install(tmp_path):
    jdk8 = _jdk(tmp_path, "jdk8", 8)
    with pytest.raises(Nl2FixError, match="no JDK 11 or newer") as err:
        choose(Reference(11), explicit=None, defects4j_java=None, candidates=[jdk8], on_path=jdk8)
    assert "openjdk-11-jdk-headless" in err.value.hint
    with pytest.raises(Nl2FixError, match="without javac"):
        choose(
            Reference(11),
            explicit=_jdk(tmp_path, "jre17", 17, full=False),
            defects4j_java=None,
            candidates=[],
            on_path=None,
        )
    with pytest.raises(Nl2FixError, match="has no working bin/java"):
        choose(
            Reference(11), explicit=Jdk(tmp_path / "nothing", 0, ""), defects4j_java=None, candidates=[], on_path=None
        )


def _real_jdks(newer_than: int) -> list[Jdk]:
    return [j for j in reference_java.installed(os.environ) if j.full and j.major > newer_than]


def test_a_strongly_encapsulating_jdk_gets_every_package_opened_as_java_11_did(tmp_path):
    jdks = _real_jdks(reference_java.STRONG_ENCAPSULATION_MAJOR - 1)
    if not jdks:
        pytest.skip("no JDK 16 or newer installed")
    flags = reference_java.emulation_flags(jdks[0], Reference(11), tmp_path)
    assert "--add-opens=java.base/java.util=ALL-UNNAMED" in flags
    assert "--add-opens=java.base/java.io=ALL-UNNAMED" in flags and len(flags) > 300
    assert reference_java.emulation_flags(jdks[0], Reference(17), tmp_path) == ()
    described = reference_java.TestJava(jdks[0], Reference(11), "x", flags).describe()
    assert f"--add-opens for all {len(flags)} packages" in described
    java11 = [j for j in reference_java.installed(os.environ) if j.major == 11]
    if java11:
        assert reference_java.emulation_flags(java11[0], Reference(11), tmp_path) == ()


# --- Java levels --------------------------------------------------------------------------------


def test_levels_declared_by_maven_and_ant_builds():
    assert java_level.declared_level({"pom.xml": "<maven.compiler.source>1.7</maven.compiler.source>"}) == 7
    assert java_level.declared_level({"pom.xml": "<plugin><configuration><source>1.5</source>"}) == 5
    assert java_level.declared_level({"pom.xml": "<maven.compiler.release>11</maven.compiler.release>"}) == 11
    assert java_level.declared_level({"build.properties": "compile.source = 1.6\ncompile.target=1.6\n"}) == 6
    assert java_level.declared_level({"pom.xml": "<project/>"}) is None


def test_old_levels_move_up_to_what_javac_still_accepts():
    assert java_level.compile_level(5, 11) == 6
    assert java_level.compile_level(5, 17) == 7
    assert java_level.compile_level(7, 21) == 8
    assert java_level.compile_level(11, 17) == 11
    assert java_level.javac_options(6, 17) == ["-source", "7", "-target", "7", "-Xlint:-options"]


def test_class_file_level_is_what_the_build_produced(tmp_path):
    jdk = reference_java.current(tmp_path).jdk
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "A.java").write_text("class A {}\n")
    done = run_command(
        [
            str(jdk.javac),
            *java_level.javac_options(7, jdk.major),
            "-d",
            str(tmp_path / "out"),
            str(tmp_path / "src" / "A.java"),
        ],
        timeout=120,
    )
    assert done.ok, done.stderr
    assert java_level.class_file_level(tmp_path / "out") == 7
    assert java_level.class_file_level(tmp_path / "src") is None


# --- the runner's JUnit ---------------------------------------------------------------------------


def _jar(path: Path, entries: list[str], manifest: str = "") -> Path:
    with zipfile.ZipFile(path, "w") as jar:
        if manifest:
            jar.writestr("META-INF/MANIFEST.MF", manifest)
        for name in entries:
            jar.writestr(name, b"\xca\xfe\xba\xbe")
    return path


def _junit(path: Path, version: str) -> Path:
    return _jar(
        path,
        ["junit/framework/TestCase.class", "org/junit/runner/Description.class", "org/junit/runner/Request.class"],
        f"Manifest-Version: 1.0\nImplementation-Version: {version}\n",
    )


def test_the_project_s_junit_and_hamcrest_come_first_in_its_own_order(tmp_path):
    classes = tmp_path / "classes"
    classes.mkdir()
    junit = _junit(tmp_path / "junit-4.11.jar", "4.11")
    hamcrest13 = _jar(tmp_path / "hamcrest-core-1.3.jar", ["org/hamcrest/core/AllOf.class"])
    io = _jar(tmp_path / "commons-io.jar", ["org/apache/commons/io/IOUtils.class"])
    mockito = _jar(tmp_path / "mockito-all.jar", ["org/mockito/Mockito.class", "org/hamcrest/Matcher.class"])
    hamcrest11 = _jar(tmp_path / "hamcrest-core-1.1.jar", ["org/hamcrest/core/AllOf.class"])
    cp = [classes, junit, hamcrest13, io, mockito, hamcrest11, tmp_path / "missing.jar"]
    assert junit_classpath.project_junit(cp) == (junit, hamcrest13, hamcrest11)


def test_the_runner_keeps_its_own_junit_when_the_project_s_cannot_serve_it(tmp_path):
    old = _junit(tmp_path / "junit-4.5.jar", "4.5")
    hamcrest = _jar(tmp_path / "hamcrest-core-1.1.jar", ["org/hamcrest/core/AllOf.class"])
    junit3 = _jar(tmp_path / "junit-3.8.1.jar", ["junit/framework/TestCase.class"])
    bundled = _jar(tmp_path / "all-in-one.jar", ["org/junit/runner/Description.class", "org/acme/X.class"])
    assert junit_classpath.project_junit([old, hamcrest]) == ()
    assert junit_classpath.project_junit([junit3, hamcrest]) == ()
    assert junit_classpath.project_junit([bundled, _junit(tmp_path / "junit-4.12.jar", "4.12")]) == ()
    unnamed = _jar(tmp_path / "junit.jar", ["org/junit/runner/Description.class"])
    assert junit_classpath.project_junit([unnamed]) == ()  # a JUnit 4 of unknown version
    assert junit_classpath.facts(_junit(tmp_path / "junit-dep-4.8.2.jar", "")).junit4 == (4, 8)


# --- environment faults ---------------------------------------------------------------------------


def test_linkage_errors_of_jdk_and_library_classes_are_environment_faults():
    project = lambda name: name.startswith("org.apache.commons.csv")  # noqa: E731
    messages = {
        "CSVLexerTest::testNextToken4": "java.lang.NoSuchMethodError: 'org.hamcrest.Matcher "
        "org.hamcrest.core.AllOf.allOf(org.hamcrest.Matcher, org.hamcrest.Matcher)'",
        "CSVLexerTest::testNextToken5": "java.lang.NoSuchMethodError: org.hamcrest.core.AllOf.allOf(Lorg/hamcrest/"
        "Matcher;Lorg/hamcrest/Matcher;)Lorg/hamcrest/Matcher;",
        "Pack200TestCase::testJar": "java.lang.NoClassDefFoundError: java/util/jar/Pack200",
        "LexerTest::testCR": "java.lang.LinkageError: loader constraint violation: loader java.net.URLClassLoader "
        "@5d624da6 wants to load interface org.hamcrest.Matcher. A different interface ...",
        "ListAsObjectTest::testCollection": "java.lang.reflect.InaccessibleObjectException: Unable to make field "
        "private java.util.Collection ... accessible",
        "CSVParserTest::testOwn": "java.lang.NoSuchMethodError: 'void org.apache.commons.csv.CSVParser.close(int)'",
        "CSVParserTest::testInit": "java.lang.NoClassDefFoundError: Could not initialize class org.h2.Driver",
        "CSVParserTest::testPlain": "java.lang.AssertionError: expected:<1> but was:<2>",
        "TestJdkTypes::testInetAddress": "java.net.UnknownHostException: google.com: Temporary failure in name "
        "resolution",
    }
    found = linkage.faults(messages, project, "Java 17.0.15")
    assert found == [
        "environment fault, not the code's: 2 test(s) fail with NoSuchMethodError of library class "
        "org.hamcrest.core.AllOf (e.g. CSVLexerTest::testNextToken4)",
        "environment fault, not the code's: 1 test(s) fail with LinkageError of library class org.hamcrest.Matcher "
        "(e.g. LexerTest::testCR)",
        "environment fault, not the code's: 1 test(s) fail with the JDK's encapsulation (InaccessibleObjectException "
        "on Java 17.0.15) (e.g. ListAsObjectTest::testCollection)",
        "environment fault, not the code's: 1 test(s) fail with NoClassDefFoundError of JDK class "
        "java.util.jar.Pack200 on Java 17.0.15 (e.g. Pack200TestCase::testJar)",
        "environment fault, not the code's: 1 test(s) fail with no network: a host name could not be resolved "
        "(UnknownHostException) (e.g. TestJdkTypes::testInetAddress)",
    ]
    assert linkage.faults({"T::t": "java.lang.AssertionError"}, project, "Java 11") == []
