"""Validation that follows Defects4J's semantics on its Java, on a small project of old Apache style
(``fixtures/legacybench``, Java level 7) compiled and run for real, and on real Defects4J bugs
where Defects4J is installed.

- Legacy-1 (like Collections-26): the ground truth changes only ``private`` to ``protected``, which
  no other class can be hurt by: it is validated on the fast path.
- Legacy-2: ``Ordering.java`` holds generic code Java 7 accepts and javac at level 8 rejects (like
  commons-collections' ``IteratorUtils``), so the project, and any rebuild, compiles at level 7.
- ``ReflectionTest`` reflects deeply into ``java.util``: it passes on Defects4J's Java (11, or a
  newer JDK with every package opened), as it did for Jackson's and Csv's tests.
- A project whose own Hamcrest differs from the runner's: the project's wins.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineSettings
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.engines.rebuild import RebuildEngine
from defects4j_adapter.jvm import java_level, reference_java, runner
from defects4j_adapter.workspaces.local import ProjectLayout, prepare_project
from nl2fix.core.domain import Verdict
from nl2fix.core.processes import run_command
from nl2fix.dataset.load import load_dataset
from nl2fix.store.run_store import RunStore
from nl2fix.validation.options import ValidationOptions
from nl2fix.validation.verdicts import record_of
from tests.helpers.minibench import engine_options, make_run
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.sandbox
LEGACY = FIXTURES / "legacybench"
REFLECTION = "org.legacy.ReflectionTest::testDeepReflectionIntoJavaUtil"
REBUILT = "everything was recompiled"


@pytest.fixture(scope="module")
def legacy():
    return load_dataset(LEGACY / "nl2fix_dataset.json")


@pytest.fixture(scope="module")
def fast(nl2fix_cache, confined):
    engine = FastEngine(engine_options(nl2fix_cache, projects_dir=LEGACY / "projects"))
    yield engine
    engine.close()


def verdict(engine, ws, code, known=frozenset()):
    outcome = engine.run(ws, code, known_failures=known, stop_at_first_failure=False)
    return outcome, record_of(outcome, bug_id=ws.bug.id, hash="h", engine="fast", fails_on_fix=known)


def test_the_project_compiles_at_its_own_java_level(fast, legacy):
    ws = fast.prepare(legacy.bugs["Legacy-2"])  # Ordering.java does not compile at level 8
    jdk = reference_java.current().jdk
    assert ws.java_release == str(java_level.compile_level(7, jdk.major))
    assert java_level.class_file_level(ws.classes_dir) == java_level.compile_level(7, jdk.major)


def test_a_modifier_widening_is_validated_on_the_fast_path(fast, legacy):
    bug = legacy.bugs["Legacy-1"]
    ws = fast.prepare(bug)
    fixed_outcome, fixed = verdict(fast, ws, bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE, fixed
    assert REBUILT not in fixed_outcome.detail and fixed.tests_run == 4
    _, buggy = verdict(fast, ws, bug.buggy_method)
    assert buggy.verdict is Verdict.WRONG and buggy.failing_tests == list(bug.trigger_tests)


def test_a_signature_change_is_rebuilt_at_the_project_s_level(fast, legacy, nl2fix_cache):
    bug = legacy.bugs["Legacy-2"]
    ws = fast.prepare(bug)
    narrower = bug.fixed_method.replace("Comparator<? super E> comparator", "Comparator<E> comparator")
    outcome, judged = verdict(fast, ws, narrower)
    assert REBUILT in outcome.detail and judged.verdict is Verdict.PLAUSIBLE, judged
    _, wrong = verdict(fast, ws, narrower.replace(">= 0", "< 0"))
    assert wrong.verdict is Verdict.WRONG
    rebuild = RebuildEngine(engine_options(nl2fix_cache, projects_dir=LEGACY / "projects"))
    assert (
        record_of(
            rebuild.run(ws, bug.fixed_method, stop_at_first_failure=False), bug_id=bug.id, hash="f", engine="rebuild"
        ).verdict
        is Verdict.PLAUSIBLE
    )


def _test_jdks() -> list:
    """A JDK 11 (what Defects4J 3 runs on) and a JDK 16+ (emulating it with --add-opens), as found."""
    found = {}
    for jdk in reference_java.installed(os.environ):
        if jdk.full and jdk.major == 11:
            found.setdefault("java11", jdk)
        elif jdk.full and jdk.major >= reference_java.STRONG_ENCAPSULATION_MAJOR:
            found.setdefault("emulated", jdk)
    return [pytest.param(found.get(k), id=k) for k in ("java11", "emulated")]


@pytest.mark.parametrize("jdk", _test_jdks())
def test_deep_reflection_into_java_util_passes_as_on_defects4j_s_java(jdk, legacy, nl2fix_cache, confined, monkeypatch):
    if jdk is None:
        pytest.skip("no such JDK installed here (scripts/setup.sh installs JDK 11 and 17)")
    monkeypatch.setenv(reference_java.TEST_JAVA_HOME_ENV, str(jdk.home))
    engine = FastEngine(engine_options(nl2fix_cache, projects_dir=LEGACY / "projects"))
    try:
        bug = legacy.bugs["Legacy-1"]
        outcome, fixed = verdict(engine, engine.prepare(bug), bug.fixed_method)
    finally:
        engine.close()
    assert fixed.verdict is Verdict.PLAUSIBLE and not fixed.ignored_failures, (fixed, outcome.detail)
    assert REFLECTION not in outcome.failing_tests and fixed.tests_run == 4
    assert bool(reference_java.current().flags) == (jdk.major >= reference_java.STRONG_ENCAPSULATION_MAJOR)


def _compile_jar(tmp: Path, name: str, sources: dict[str, str]) -> Path:
    src, out = tmp / f"{name}-src", tmp / f"{name}-classes"
    for rel, text in sources.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    jdk = reference_java.current().jdk
    done = run_command([str(jdk.javac), "-d", str(out), *map(str, src.rglob("*.java"))], timeout=120)
    assert done.ok, done.stderr
    jar = tmp / f"{name}.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for f in out.rglob("*.class"):
            z.write(f, f.relative_to(out).as_posix())
    return jar


def _junit_without_class_path(tmp: Path) -> Path:
    """Debian's JUnit as projects ship it: without a manifest that pulls in Debian's Hamcrest."""
    jar = tmp / "junit-4.13.2.jar"
    with zipfile.ZipFile(runner.JUNIT_JARS[0]) as debian, zipfile.ZipFile(jar, "w") as out:
        for item in debian.infolist():
            if item.filename != "META-INF/MANIFEST.MF":
                out.writestr(item, debian.read(item))
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nImplementation-Version: 4.13.2\n")
    return jar


def test_the_project_s_own_hamcrest_is_not_shadowed_by_the_runner_s(fast, legacy, tmp_path, nl2fix_cache):
    # Csv's tests were compiled against Hamcrest 1.3; Debian's Hamcrest 2.2 lacks methods they call
    hamcrest = _compile_jar(
        tmp_path,
        "hamcrest-core-1.3",
        {
            "org/hamcrest/core/AllOf.java": (
                'package org.hamcrest.core;\npublic class AllOf { public static String origin() { return "project"; } }\n'  # noqa: E501
            )
        },
    )
    user = tmp_path / "project"
    shutil.copytree(fast.prepare(legacy.bugs["Legacy-1"]).root, user)
    (user / "src/test/java/org/legacy/HamcrestTest.java").write_text(
        "package org.legacy;\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n"
        "public class HamcrestTest {\n    @Test\n    public void testProjectHamcrest() {\n"
        '        assertEquals("project", org.hamcrest.core.AllOf.origin());\n    }\n}\n'
    )
    bug = dataclasses.replace(legacy.bugs["Legacy-1"], relevant_tests=("org.legacy.HamcrestTest",))
    layout = ProjectLayout(user, classpath=(_junit_without_class_path(tmp_path), hamcrest))
    ws = prepare_project(bug, layout, nl2fix_cache)
    outcome, fixed = verdict(fast, ws, bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE, (fixed, outcome.detail)
    assert "org.legacy.HamcrestTest::testProjectHamcrest" not in outcome.failing_tests


def test_the_run_records_and_reports_which_java_ran_the_tests(legacy, tmp_path, nl2fix_cache, confined):
    from nl2fix.report.data import collect
    from nl2fix.report.render import render
    from nl2fix.validation.stage import validate

    bug = legacy.bugs["Legacy-1"]
    make_run(tmp_path / "run", LEGACY / "nl2fix_dataset.json", {bug.id: [bug.fixed_method]}).close()
    one_worker = ValidationOptions(settings=EngineSettings(workers=1))
    assert validate(tmp_path / "run", one_worker, progress=False).by_verdict == {Verdict.PLAUSIBLE: 1}
    with RunStore(tmp_path / "run") as store:
        recorded = store.get_meta_json(reference_java.environment_key("fast"))
    java = reference_java.current()
    assert recorded["java_version"] == java.jdk.version and recorded["java_home"] == str(java.jdk.home)
    assert recorded["reference_java"] == java.reference.major and recorded["flags"] == java.emulation
    text = render(collect(tmp_path / "run", codebleu=False), "text")
    assert f"validation environment: tests on Java {java.jdk.version}" in text


# --- The real thing (needs Defects4J and the dataset) -------------------------------------------

needs_defects4j = pytest.mark.skipif(
    d4j_cli.locate() is None,
    reason="Defects4J is not installed (no `defects4j` "
    "on PATH or under $D4J_HOME); build docker/Dockerfile to run these",
)


@pytest.fixture(scope="module")
def real(shared_data, tmp_path_factory, confined):
    dataset = load_dataset(shared_data / "nl2fix_dataset.json")
    engine = FastEngine(
        engine_options(
            tmp_path_factory.mktemp("d4j-cache"),
            test_timeout=60.0,
            candidate_timeout=600.0,
            memory_mb=1024,
            projects_dir=None,
        )
    )
    yield dataset, engine
    engine.close()


@pytest.mark.defects4j
@pytest.mark.dataset
@needs_defects4j
@pytest.mark.parametrize("bug_id", ["Collections-26", "JacksonXml-5", "Csv-14"])
def test_real_ground_truths_validate_as_on_defects4j(real, bug_id):
    dataset, engine = real
    bug = dataset.bugs[bug_id]
    ws = engine.prepare(bug)
    outcome, fixed = verdict(engine, ws, bug.fixed_method)
    assert fixed.verdict is Verdict.PLAUSIBLE, (fixed, outcome.detail)
    assert REBUILT not in outcome.detail and "environment fault" not in outcome.detail


@pytest.mark.defects4j
@pytest.mark.dataset
@needs_defects4j
def test_a_real_signature_change_is_compiled_by_defects4j(real):
    dataset, engine = real
    bug = dataset.bugs["Collections-26"]
    ws = engine.prepare(bug)
    renamed = bug.fixed_method.replace("readResolve()", "readResolveAgain()", 1)
    outcome, judged = verdict(engine, ws, renamed)
    assert "Defects4J compiled the whole project again" in outcome.detail
    assert judged.verdict is Verdict.WRONG and judged.failing_tests, (judged, outcome.detail)
    # the copy Defects4J compiled in went with its candidate: the next one gets a fresh copy
    assert all(list(slot.iterdir()) == [] for slot in (ws.root.parent / f"{ws.root.name}.slots").glob("[0-9]"))


def test_a_level_7_project_s_candidate_may_call_the_jdk_s_newer_api(fast, legacy, nl2fix_cache):
    # javac at -source 7 compiles against the running JDK's classes (as the project's own build
    # did), so a call of a Java 9 method compiles; --release 7 would have made it uncompilable
    bug = legacy.bugs["Legacy-2"]
    ws = fast.prepare(bug)
    newer = bug.fixed_method.replace("return Ordering", "java.util.Objects.requireNonNullElse(a, b); return Ordering")
    rebuilt = newer.replace("Comparator<? super E> comparator", "Comparator<E> comparator")
    for code in (newer, rebuilt):
        _, judged = verdict(fast, ws, code)
        assert judged.verdict is Verdict.PLAUSIBLE, judged


def test_the_system_loader_gives_each_candidate_its_own_classes(fast, legacy):
    # the JVM remembers what the system loader once handed out: a warm JVM that went on after
    # giving out a candidate's class would give the next candidate a stale one (as Jackson's StAX
    # lookups got the first candidate's Woodstox), and fail tests Defects4J passes
    bug = legacy.bugs["Legacy-1"]
    ws = fast.prepare(bug)
    for _ in range(3):
        outcome, judged = verdict(fast, ws, bug.fixed_method)
        assert judged.verdict is Verdict.PLAUSIBLE, judged
        assert "org.legacy.SystemLoaderTest::testTheSystemLoaderGivesThisRunsClasses" in outcome.passed_tests
