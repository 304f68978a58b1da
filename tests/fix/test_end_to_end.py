"""`nl2fix fix` end to end on a user's project: a two-module Maven project built offline with
Debian's Maven and a local repository of Debian-packaged plugins and JUnit only, a Gradle project
built offline with Debian's gradle and Maven repository, the same resolving its dependencies online
once from a real repository on 127.0.0.1, and a plain javac project. A real
OpenAI-compatible server on 127.0.0.1 answers with one real fix among wrong ones; validation is
real (javac, JUnit, bubblewrap), and the top plausible diff must apply with `git apply` and make
the failing test pass when run for real."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.fix import failing_test_run as failing_test
from nl2fix.fix.debian_maven import DEBIAN_MAVEN_REPO, debian_repo
from nl2fix.fix.project_build import BuildOptions, build_project
from nl2fix.store.run_store import RunStore
from tests.helpers.maven_repository_server import MavenRepositoryServer, gradle_project
from tests.helpers.paths import FIXTURES

MAVEN_PLUGINS = DEBIAN_MAVEN_REPO / "org/apache/maven/plugins"

pytestmark = pytest.mark.slow

PAGER_FIX = """public int pageCount(int items) {
    if (items == 0) {
        return 0;
    }
    return (items + pageSize - 1) / pageSize;
}"""
PAGER_WRONG = [
    """public int pageCount(int items) {
    return items / pageSize + 1;
}""",
    """public int pageCount(int items) {
    return items / pageSize
}""",
    """public int pageCount(int items) {
    if (items == 0) {
        return 0;
    }
    return Math.round(items / (float) pageSize - 0.5f);
}""",
]
INITIALS_FIX = """public static String initials(String sentence) {
    StringBuilder out = new StringBuilder();
    for (String word : sentence.trim().split("\\\\s+")) {
        if (!word.isEmpty()) {
            out.append(Character.toUpperCase(word.charAt(0)));
        }
    }
    return out.toString();
}"""
INITIALS_WRONG = [
    """public static String initials(String sentence) {
    StringBuilder out = new StringBuilder();
    for (String word : sentence.split(" ")) {
        out.append(Character.toUpperCase(word.charAt(0)));
    }
    return out.toString();
}""",
    """public static String initials(String sentence) {
    return sentence.substring(0, 1).toUpperCase();
}""",
]


def _model(answers: list[str]):
    """One real fix among wrong ones, handed out in turn across the n choices."""
    cycle = itertools.cycle(answers)

    def model(messages, n):
        return [f"Here is the fixed method:\n```java\n{next(cycle)}\n```" for _ in range(n)]

    return model


def _git_project(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "initial"],
    ):
        subprocess.run(argv, cwd=dest, check=True, timeout=60)
    return dest


def _fix(invoke_cli, server, *args):
    result = invoke_cli(
        "fix",
        *args,
        "--backend",
        "openai",
        "--model",
        "test-model",
        "--base-url",
        server.url,
        "--quiet",
        env={"OPENAI_API_KEY": "test"},
    )
    assert result.exit_code == 0, result.output
    return result.output


def _test_passes(project: Path, test: str, options: BuildOptions, cache: Path) -> bool:
    built = build_project(project, options, cache_base=cache)
    module = next(
        m for m in built.modules if (m.test_classes / (test.split("::")[0].replace(".", "/") + ".class")).is_file()
    )
    result = failing_test.run_test(module, test, SandboxSpec())
    return not result.failed and "OK (" in result.output


@pytest.mark.skipif(
    shutil.which("mvn") is None or not (MAVEN_PLUGINS / "maven-dependency-plugin").is_dir(),
    reason="needs Debian's maven and its packaged plugins (scripts/setup.sh installs them)",
)
def test_fix_in_a_multi_module_maven_project(tmp_path, openai_server_factory, invoke_cli):
    project = _git_project(FIXTURES / "fix_maven", tmp_path / "acme")
    issue = tmp_path / "issue-7.md"
    issue.write_text(
        "# Pager.pageCount drops the last partial page\n\n"
        "With 25 items and 10 items per page, pageCount(25) returns 2 instead of 3.\n"
    )
    server = openai_server_factory(model=_model([*PAGER_WRONG, PAGER_FIX]))
    patch, run = tmp_path / "fix.diff", tmp_path / "run"
    out = _fix(
        invoke_cli,
        server,
        "--project",
        project,
        "--issue",
        issue,
        "--test",
        "PagerTest::partialLastPage",
        "--maven-repo",
        "debian",
        "-n",
        "8",
        "--top",
        "4",
        "--out",
        patch,
        "--run",
        run,
    )

    # localised from the failing test (an assertion: the method it calls), with why
    assert "-> 1. app/src/main/java/org/acme/app/Pager.java:Pager#pageCount (lines 14-19)" in out
    assert "org.acme.app.PagerTest::partialLastPage calls pageCount" in out
    assert "1 plausible of 4 unique candidate(s)" in out
    first = out.split("\n#1  ", 1)[1].split("\n#2  ", 1)[0]
    assert first.startswith("plausible") and "+        return (items + pageSize - 1) / pageSize;" in first
    assert "uncompilable" in out and "wrong" in out

    with RunStore(run, read_only=True) as store:
        bug = store.bug("Acme-7")
        assert bug.trigger_tests == ("org.acme.app.PagerTest::partialLastPage",)
        assert bug.relevant_tests == ("org.acme.app.PagerTest",)
        assert bug.title == "Pager.pageCount drops the last partial page"
        verdicts = sorted(v.verdict.value for v in store.validations("Acme-7", "fast") if v.hash != "buggy")
        assert verdicts == ["plausible", "uncompilable", "wrong", "wrong"]
        prompt = store.prompt("Acme-7").messages[-1]["content"]
        assert "pageCount(25) returns 2 instead of 3" in prompt

    check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=project, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    options = BuildOptions(maven_repo="debian")
    assert not _test_passes(project, "org.acme.app.PagerTest::partialLastPage", options, tmp_path / "cache")
    subprocess.run(["git", "apply", str(patch)], cwd=project, check=True, timeout=60)
    assert _test_passes(project, "org.acme.app.PagerTest::partialLastPage", options, tmp_path / "cache")

    # the run is a run like any other: show and report read it
    shown = invoke_cli("show", "--run", run, "--bug", "Acme-7", "--ranker", "paper:tfidf:median:pruned", "-k", "4")
    assert shown.exit_code == 0 and "plausible" in shown.output
    report = invoke_cli("report", "--run", run, "--format", "json", "--no-codebleu")
    assert report.exit_code == 0, report.output
    data = json.loads(report.output[report.output.index("{") :])
    assert json.dumps(data).count("Acme-7") >= 1


HALF_FIX = """public static int halfUp(int n) {
    return (n + 1) / 2;
}"""
HALF_WRONG = """public static int halfUp(int n) {
    return n / 2 + 1;
}"""


@pytest.mark.skipif(
    shutil.which("gradle") is None or not (DEBIAN_MAVEN_REPO / "junit/junit/4.13.2").is_dir(),
    reason="needs Debian's gradle and junit4 (scripts/setup.sh installs them)",
)
def test_fix_in_a_gradle_project_built_offline_with_debians_artifacts(tmp_path, openai_server_factory, invoke_cli):
    project = _git_project(FIXTURES / "fix_gradle_tiny", tmp_path / "tiny")
    server = openai_server_factory(model=_model([HALF_WRONG, HALF_FIX]))
    patch = tmp_path / "fix.diff"
    out = _fix(
        invoke_cli,
        server,
        "--project",
        project,
        "--issue",
        "Half.halfUp(5) gives 2, not 3",
        "--test",
        "HalfTest::roundsOddNumbersUp",
        "--maven-repo",
        "debian",
        "-n",
        "2",
        "--out",
        patch,
        "--run",
        tmp_path / "run",
        "--id",
        "Tiny-1",
    )
    # the build scripts as they are: Maven Central's junit 4.12 served by Debian's, each substitution said
    assert "gradle: junit:junit:4.12 served by the installed 4.13.2" in out
    assert "-> 1. src/main/java/org/tiny/Half.java:Half#halfUp" in out
    assert "1 plausible of 2 unique candidate(s)" in out
    first = out.split("\n#1  ", 1)[1].split("\n#2  ", 1)[0]
    assert first.startswith("plausible") and "+        return (n + 1) / 2;" in first
    assert (
        subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True, check=True).stdout
        == ""
    )  # nothing of the project was edited to build it
    subprocess.run(["git", "apply", str(patch)], cwd=project, check=True, timeout=60)
    assert _test_passes(
        project, "org.tiny.HalfTest::roundsOddNumbersUp", BuildOptions(maven_repo="debian"), tmp_path / "cache"
    )


@pytest.mark.skipif(
    shutil.which("gradle") is None or not (DEBIAN_MAVEN_REPO / "junit/junit/4.13.2").is_dir(),
    reason="needs Debian's gradle and Maven repository (scripts/setup.sh installs them)",
)
def test_fix_in_a_gradle_project_resolving_its_dependencies_online_once(tmp_path, openai_server_factory, invoke_cli):
    """The project's repository is a real one on 127.0.0.1 and Gradle's cache starts empty: the build
    resolves online once, says so, and validation runs as ever."""
    repository = MavenRepositoryServer(debian_repo(tmp_path / "served"))
    try:
        tree = gradle_project(tmp_path / "tree", repository.url)
        project = _git_project(tree, tmp_path / "tiny")
        home = tmp_path / "gradle-home"
        server = openai_server_factory(model=_model([HALF_WRONG, HALF_FIX]))
        result = invoke_cli(
            "fix",
            "--project",
            project,
            "--issue",
            "Half.halfUp(5) gives 2, not 3",
            "--test",
            "HalfTest::roundsOddNumbersUp",
            "-n",
            "2",
            "--run",
            tmp_path / "run",
            "--id",
            "Tiny-1",
            "--backend",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            server.url,
            "--quiet",
            env={"OPENAI_API_KEY": "test", "GRADLE_USER_HOME": str(home), "NL2FIX_CACHE_DIR": str(tmp_path / "cache")},
        )
    finally:
        repository.stop()
    assert result.exit_code == 0, result.output
    assert (
        f"gradle: Gradle's cache ({home}/caches) lacks junit:junit:4.13.2: building once online to fill it, the "
        "project's own way (gradle without --offline)"
    ) in result.output
    assert "GET /junit/junit/4.13.2/junit-4.13.2.jar" in repository.requests
    assert "1 plausible of 2 unique candidate(s)" in result.output
    assert (
        subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True, check=True).stdout
        == ""
    )


def test_fix_in_a_plain_javac_project_localises_and_applies(tmp_path, openai_server_factory, invoke_cli):
    project = _git_project(FIXTURES / "fix_plain", tmp_path / "words")
    server = openai_server_factory(model=_model([INITIALS_WRONG[0], INITIALS_FIX, INITIALS_WRONG[1]]))
    run = tmp_path / "run"
    common = [
        "--project",
        project,
        "--issue",
        "initials() crashes on two spaces\nStringIndexOutOfBoundsException",
        "--test",
        "org.words.WordsTest::initialsSkipDoubleSpaces",
        "--build",
        "plain",
        "--src",
        "src",
        "--test-src",
        "test",
        "-n",
        "3",
        "--run",
        run,
        "--id",
        "Words-1",
    ]
    out = _fix(invoke_cli, server, *common)
    # localised from the stack trace: the frame of Words.initials where charAt threw
    chosen = out.split("-> 1. ", 1)[1].split("\n", 1)[0]
    assert chosen.startswith("src/org/words/Words.java:Words#initials (lines 9-15) (score 1.05): ")
    assert "1st project frame of the failure (java.lang.StringIndexOutOfBoundsException" in chosen
    assert "1 plausible of 3 unique candidate(s)" in out
    assert out.split("\n#1  ", 1)[1].startswith("plausible")

    # again, resumed from the run store (no new request), writing the first into the working tree
    requests = len(server.requests)
    out = _fix(invoke_cli, server, *common, "--apply", "1")
    assert len(server.requests) == requests
    backup = project / "src/org/words/Words.java.nl2fix-backup"
    assert backup.read_text() == (FIXTURES / "fix_plain/src/org/words/Words.java").read_text()
    assert f"applied #1 to {project / 'src/org/words/Words.java'}" in out
    diff = subprocess.run(["git", "diff"], cwd=project, capture_output=True, text=True, check=True).stdout
    assert '+        for (String word : sentence.trim().split("\\\\s+")) {' in diff
    backup.unlink()
    assert _test_passes(
        project,
        "org.words.WordsTest::initialsSkipDoubleSpaces",
        BuildOptions(src_dir="src", test_dir="test"),
        tmp_path / "cache",
    )


INITIALS_NULL_SAFE = INITIALS_FIX.replace(
    "    StringBuilder out", '    if (sentence == null) {\n        return "";\n    }\n    StringBuilder out', 1
)


def test_fix_shows_behaviour_clusters_of_plausible_fixes(tmp_path, openai_server_factory, invoke_cli):
    # two plausible fixes: one throws on null as the method did, one answers "" (a derived input: null)
    project = _git_project(FIXTURES / "fix_plain", tmp_path / "words")
    server = openai_server_factory(model=_model([INITIALS_FIX, INITIALS_NULL_SAFE, INITIALS_WRONG[1]]))
    out = _fix(
        invoke_cli,
        server,
        "--project",
        project,
        "--issue",
        "initials() crashes on two spaces",
        "--test",
        "org.words.WordsTest::initialsSkipDoubleSpaces",
        "--build",
        "plain",
        "--src",
        "src",
        "--test-src",
        "test",
        "-n",
        "3",
        "--run",
        tmp_path / "run",
        "--id",
        "Words-2",
    )
    assert "2 plausible of 3 unique candidate(s)" in out
    assert "2 behaviourally distinct plausible fixes" in out
    clusters = out.split("behaviourally distinct plausible fixes", 1)[1]
    assert "they disagree on arg0=null:" in clusters
    assert "throws java.lang.NullPointerException" in clusters and 'return=""' in clusters
