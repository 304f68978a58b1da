"""The pure parts of `nl2fix fix`: build detection and layouts, the cache key, method and test
specs, the issue text, covering tests, and patches of the working tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.patches import patched, reindent, unified_diff
from nl2fix.fix.pipeline import fix_run_dir
from nl2fix.fix.project_build import BuildOptions, BuildSystem, detect, fingerprint, javac_layout, maven_modules
from nl2fix.fix.user_bug import (
    bug_id_parts,
    find_method,
    make_bug,
    module_test_classes,
    parse_bug_id,
    parse_method_spec,
    parse_test_spec,
    read_issue,
)
from nl2fix.store.records import RunConfig
from nl2fix.store.run_store import STORE_FILE
from tests.helpers.paths import FIXTURES

CART = FIXTURES / "stack_traces/src/main/java/org/shop/Cart.java"


@pytest.mark.parametrize(
    "files, system",
    [
        (["pom.xml", "build.xml"], BuildSystem.MAVEN),
        (["settings.gradle.kts"], BuildSystem.GRADLE),
        (["build.gradle", "build.xml"], BuildSystem.GRADLE),
        (["build.xml"], BuildSystem.ANT),
        (["README"], BuildSystem.PLAIN),
    ],
)
def test_build_system_is_detected_from_the_build_files(tmp_path, files, system):
    for name in files:
        (tmp_path / name).write_text("")
    assert detect(tmp_path) is system


def test_maven_reactor_modules_and_their_source_folders():
    modules = maven_modules(FIXTURES / "fix_maven")
    assert [(m.dir.name, m.src, m.test, m.classes) for m in modules] == [
        ("core", "src/main/java", "src/test/java", "target/classes"),
        ("app", "src/main/java", "src/test/java", "target/classes"),
    ]


def test_maven_build_folders_set_in_the_pom(tmp_path):
    (tmp_path / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><build><sourceDirectory>src/java</sourceDirectory>'
        "<outputDirectory>${project.build.directory}/main</outputDirectory>"
        "<testOutputDirectory>out/tests</testOutputDirectory></build></project>"
    )
    (module,) = maven_modules(tmp_path)
    assert (module.src, module.test, module.classes, module.test_classes) == (
        "src/java",
        "src/test/java",
        "target/classes",
        "out/tests",
    )


def test_ant_layout_comes_from_build_xml_properties(tmp_path):
    (tmp_path / "lib" / "sub").mkdir(parents=True)
    (tmp_path / "lib" / "sub" / "dep.jar").write_bytes(b"")
    (tmp_path / "build.xml").write_text("""<project name="p" default="compile">
      <property name="source.home" value="java"/>
      <property name="src.dir" location="${source.home}/main"/>
      <property name="test.src.dir" value="${basedir}/java/test"/>
    </project>""")
    layout = javac_layout(tmp_path, BuildOptions(), BuildSystem.ANT)
    assert (layout.src_dir, layout.test_dir) == ("java/main", "java/test")
    assert layout.classpath == ((tmp_path / "lib/sub/dep.jar").resolve(),)
    # options win over the build file
    given = javac_layout(tmp_path, BuildOptions(src_dir="s", test_dir="t", classpath=(Path("x.jar"),)), BuildSystem.ANT)
    assert (given.src_dir, given.test_dir, given.classpath) == ("s", "t", (Path("x.jar").resolve(),))


def test_plain_layout_defaults(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    layout = javac_layout(tmp_path, BuildOptions(), BuildSystem.PLAIN)
    assert (layout.src_dir, layout.test_dir) == ("src", "tests")


def test_the_cache_key_follows_content_not_build_output(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "A.java").write_text("class A {}")
    key = fingerprint(tmp_path, BuildOptions(), BuildSystem.PLAIN)
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "A.class").write_bytes(b"\xca\xfe")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    assert fingerprint(tmp_path, BuildOptions(), BuildSystem.PLAIN) == key
    assert fingerprint(tmp_path, BuildOptions(maven_repo="debian"), BuildSystem.PLAIN) != key
    run = tmp_path / "runs" / "fix-A-1"  # a --run inside the project is not its content
    run.mkdir(parents=True)
    (run / STORE_FILE).write_bytes(b"SQLite")
    assert fingerprint(tmp_path, BuildOptions(), BuildSystem.PLAIN) == key
    (tmp_path / "src" / "A.java").write_text("class A { }")
    assert fingerprint(tmp_path, BuildOptions(), BuildSystem.PLAIN) != key


def test_a_fix_run_goes_outside_the_project(tmp_path, monkeypatch):
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "acme"
    (project / "sub").mkdir(parents=True)
    bug = Bug(
        project="Acme",
        number=7,
        path="A.java",
        start_line=1,
        end_line=1,
        buggy_method="",
        fixed_method="",
        title="t",
        description="",
    )
    config = RunConfig(
        dataset="project:acme", backend="mutation", model="mutation", strategy="zero-shot", temperature=0.8, n=1
    )
    monkeypatch.chdir(project / "sub")
    assert fix_run_dir(bug, config, project) == tmp_path / "cache/runs/fix-Acme-7-zero-shot-mutation-0.8"
    monkeypatch.chdir(tmp_path)
    assert fix_run_dir(bug, config, project) == Path("runs/fix-Acme-7-zero-shot-mutation-0.8").resolve()


def test_method_specs_find_inner_classes_and_overloads():
    text = CART.read_text()
    apply = find_method(parse_method_spec("src/main/java/org/shop/Cart.java:Cart.Discount#apply"), text)
    assert (apply.name, apply.start_line, apply.end_line) == ("apply", 56, 61)
    with pytest.raises(Nl2FixError, match="no method Cart#apply"):
        find_method(parse_method_spec("src/main/java/org/shop/Cart.java:Cart#apply"), text)
    overloaded = "class K {\n  int f(int a) {\n    return a;\n  }\n  int f(String s) {\n    return 1;\n  }\n}\n"
    with pytest.raises(Nl2FixError, match="overloaded") as info:
        find_method(parse_method_spec("K.java:K#f"), overloaded)
    assert "K.java:K#f:2 (int a)" in info.value.hint and "K.java:K#f:5 (String s)" in info.value.hint
    assert find_method(parse_method_spec("K.java:K#f:6"), overloaded).params == "String s"
    # a line outside every overload (an annotation's, a comment's) says which lines would do
    with pytest.raises(Nl2FixError, match="no method K#f in K.java spans line 8") as info:
        find_method(parse_method_spec("K.java:K#f:8"), overloaded)
    assert info.value.hint == (
        "give a line from its header to its closing brace: K.java:K#f:2 (int a; lines 2-4), "
        "K.java:K#f:5 (String s; lines 5-7)"
    )
    with pytest.raises(Nl2FixError, match="is not path/File.java:Class#method"):
        parse_method_spec("Cart#apply")


def test_words_of_comments_and_strings_are_not_class_declarations():
    # as commons-cli's TypeHandler: a Javadoc line "... for the given class failed" above an overload
    text = (
        "public class TypeHandler {\n"
        "    /** @throws ParseException if the value creation for the given class failed */\n"
        "    public static Object createValue(String str, Object obj) {\n        return null;\n    }\n"
        "    // a class of its own { not code\n"
        "    public static <T> T createValue(String str, Class<T> clazz) {\n"
        '        String s = "class Fake {";\n        return null;\n    }\n}\n'
    )
    found = find_method(parse_method_spec("TypeHandler.java:TypeHandler#createValue:8"), text)
    assert (found.start_line, found.end_line, found.params) == (7, 10, "String str , Class < T > clazz")


def test_test_specs_are_qualified_from_the_test_classes():
    classes = ["org.shop.CartTest", "org.other.CartTest", "org.shop.PagerTest"]
    assert parse_test_spec("PagerTest::pages", classes) == "org.shop.PagerTest::pages"
    assert parse_test_spec("org.shop.CartTest#total", classes) == "org.shop.CartTest::total"
    with pytest.raises(Nl2FixError, match="several test classes are named CartTest") as info:
        parse_test_spec("CartTest::total", classes)
    assert "org.other.CartTest" in info.value.hint


def test_issue_from_a_file_or_text(tmp_path):
    issue = tmp_path / "issue-42.md"
    issue.write_text("## Totals are wrong\n\nSteps:\n1. add two lines\n")
    assert read_issue(str(issue)) == ("Totals are wrong", "Steps:\n1. add two lines")
    assert read_issue("one line") == ("one line", "")
    with pytest.raises(Nl2FixError, match="empty"):
        read_issue("  \n")
    assert bug_id_parts(FIXTURES / "fix_maven", str(issue)) == ("FixMaven", 42)
    assert bug_id_parts(FIXTURES / "fix_maven", "text without a file") == ("FixMaven", 1)
    assert parse_bug_id("Acme-Web-12") == ("Acme-Web", 12)
    with pytest.raises(Nl2FixError, match="is not NAME-NUMBER"):
        parse_bug_id("Acme")


def test_every_concrete_test_class_of_the_module_is_relevant_the_failing_test_s_first():
    sources = {
        "t/org/shop/CartTest.java": "package org.shop;\nimport org.junit.Test;\n"
        "class CartTest { @Test public void a() { new Cart(); } }",
        "t/org/x/UsesShop.java": "package org.x;\nclass UsesShop { @Test public void a() { Shop.checkout(); } }",
        "t/org/shop/CartFixtures.java": "package org.shop;\nclass CartFixtures { Cart make() { return new Cart(); } }",
        "t/org/shop/BaseTest.java": "package org.shop;\npublic abstract class BaseTest { @Test public void a() { } }",
        "t/org/shop/PagerTest.java": "package org.shop;\nclass PagerTest { @Test public void a() { } }",
    }
    assert module_test_classes(sources, ("org.shop.PagerTest::a",)) == (
        "org.shop.PagerTest",
        "org.shop.CartTest",
        "org.x.UsesShop",
    )


def test_reindent_moves_a_column_zero_answer_to_the_method_place():
    answer = "public int f() {\n    if (x) {\n        return 1;\n    }\n\n    return 2;\n}"
    assert reindent(answer, "    ") == (
        "    public int f() {\n        if (x) {\n            return 1;\n        }\n\n        return 2;\n    }"
    )
    block = 'String f() {\n    return """\n  a\n""";\n}'
    assert reindent(block, "    ") == block


def test_a_patch_of_the_working_tree_applies_with_git(tmp_path):
    text = CART.read_text()
    ref = find_method(parse_method_spec("src/main/java/org/shop/Cart.java:Cart#prices"), text)
    bug = make_bug(
        project="Shop",
        number=1,
        ref=ref,
        file_text=text,
        title="t",
        description="",
        triggers=(),
        relevant=(),
        source_dir="src/main/java",
        test_dir="src/test/java",
    )
    assert bug.buggy_method.startswith("    public List<Integer> prices() {")
    fix = (
        "public List<Integer> prices() {\n    return lines.stream()\n"
        "            .map(line -> Integer.parseInt(line.substring(line.indexOf(':') + 1)))\n"
        "            .collect(Collectors.toList());\n}"
    )
    after = patched(text, bug, fix)
    assert after.count("\n") == text.count("\n") and "indexOf(':') + 1)))" in after
    diff = unified_diff(bug.path, text, after)
    assert diff.startswith("--- a/src/main/java/org/shop/Cart.java\n+++ b/src/main/java/org/shop/Cart.java\n")
    assert diff.count("\n-") == 1 and diff.count("\n+") == 2  # one line changed, the +++ header
    (tmp_path / "src/main/java/org/shop").mkdir(parents=True)
    (tmp_path / bug.path).write_text(text)
    (tmp_path / "fix.diff").write_text(diff)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True)
    assert (tmp_path / bug.path).read_text() == after
    no_newline = unified_diff("A.java", "a\nb", "a\nc")
    assert no_newline.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")
