"""Resolving a project's dependencies online once, the project's own way, when its offline build
lacks them: the classifiers on real Maven and Gradle output captured without network
(``tests/fixtures/online_resolution``), the direct connection that names a failure Maven does not,
then real builds against a real Maven repository served over HTTP on 127.0.0.1
(``tests/helpers/maven_repository_server.py``), named the way projects name theirs: a mirror in
``.mvn/settings.xml`` that ``.mvn/maven.config`` passes to Maven, a ``maven { url }`` in
``build.gradle``."""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest

from defects4j_adapter.sandbox.base import SandboxSpec
from nl2fix.core.errors import Nl2FixError
from nl2fix.fix import debian_maven, gradle_offline, online_resolution
from nl2fix.fix.failing_test_run import run_test
from nl2fix.fix.online_resolution import Failed, Reach, Unreached
from nl2fix.fix.project_build import BuildOptions, BuildSystem, build_project, fingerprint
from tests.helpers.maven_repository_server import MavenRepositoryServer, gradle_project, maven_project
from tests.helpers.paths import FIXTURES

CAPTURED = FIXTURES / "online_resolution"


def _captured(name: str) -> str:
    return (CAPTURED / f"{name}.txt").read_text()


# -- what a failed build lacked, and what it could not reach --


def test_what_an_offline_maven_build_lacks_is_read_from_its_messages():
    assert online_resolution.maven_lacking(_captured("mvn_offline_empty")) == ["the plugin of prefix 'dependency'"]
    # what go-offline misses: the compiler's annotation processor path, in the legacy resolver's list
    assert online_resolution.maven_lacking(_captured("mvn_offline_annotation_path")) == [
        "commons-io:commons-io:jar:2.11.0"
    ]
    # a compile error lacks nothing: no reason to go online
    assert online_resolution.maven_lacking(_captured("mvn_offline_compile_error")) == []


def test_what_an_offline_gradle_build_lacks_is_read_from_its_messages():
    assert online_resolution.gradle_lacking(_captured("gradle_offline_empty")) == ["junit:junit:4.12"]
    assert online_resolution.gradle_lacking(_captured("gradle_online_refused")) == []
    assert online_resolution.gradle_lacking("", ["org.example.absent 1.0 (build.gradle)"]) == [
        "org.example.absent 1.0 (build.gradle)"
    ]


def test_the_repositories_an_online_build_failed_on_are_read_with_the_reason_it_gives():
    # Gradle says why
    assert online_resolution.repositories_failed(_captured("gradle_online_refused")) == [
        Failed("http://127.0.0.1:35891", "http://127.0.0.1:35891/junit/junit/4.12/junit-4.12.pom", Reach.REFUSED)
    ]
    assert online_resolution.repositories_failed(_captured("gradle_online_unknown_host")) == [
        Failed(
            "https://repo.maven.apache.org",
            "https://repo.maven.apache.org/maven2/junit/junit/4.12/junit-4.12.pom",
            Reach.UNKNOWN_HOST,
        )
    ]
    # Maven 3.8 says "transfer failed for URL", not why
    assert online_resolution.repositories_failed(_captured("mvn_go_offline_refused")) == [
        Failed("local-mirror (http://127.0.0.1:35563/)", "http://127.0.0.1:35563/", None)
    ]
    assert online_resolution.repositories_failed(_captured("mvn_go_offline_unknown_host")) == [
        Failed("central (https://repo.maven.apache.org/maven2)", "https://repo.maven.apache.org/maven2", None)
    ]


@pytest.mark.parametrize(
    ("words", "reach"),
    [
        ("> repo.maven.apache.org: Name or service not known", Reach.UNKNOWN_HOST),
        ("java.net.UnknownHostException: repo.maven.apache.org", Reach.UNKNOWN_HOST),
        ("Unknown host repo.maven.apache.org", Reach.UNKNOWN_HOST),
        ("Temporary failure in name resolution", Reach.UNKNOWN_HOST),
        ("> Connect to 127.0.0.1:35891 [/127.0.0.1] failed: Connection refused", Reach.REFUSED),
        ("Connect to repo1.maven.org:443 failed: Network is unreachable (connect failed)", Reach.UNREACHABLE),
        ("No route to host", Reach.UNREACHABLE),
        ("connect timed out", Reach.TIMED_OUT),
        ("transfer failed for http://127.0.0.1:35563/org/apache/maven/plugins/maven-metadata.xml", None),
        ("Received status code 404 from server: Not Found", None),
    ],
)
def test_network_failures_are_named_from_the_tools_words(words, reach):
    assert online_resolution.reason_in(words) is reach


def test_a_direct_connection_names_what_the_build_did_not():
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    assert online_resolution.probe(f"http://127.0.0.1:{port}/") is None
    listening.close()
    assert online_resolution.probe(f"http://127.0.0.1:{port}/") is Reach.REFUSED
    # .invalid never resolves (RFC 6761); a resolver that does not answer is bounded instead
    assert online_resolution.probe("https://repo.nl2fix.invalid/maven2", timeout=5) in (
        Reach.UNKNOWN_HOST,
        Reach.TIMED_OUT,
    )
    # Maven's words without a reason, for a port nothing listens on: the connection says it
    output = _captured("mvn_go_offline_refused").replace("127.0.0.1:35563", f"127.0.0.1:{port}")
    assert online_resolution.unreached(output) == [
        Unreached(f"local-mirror (http://127.0.0.1:{port}/)", Reach.REFUSED, probed=True)
    ]
    assert str(online_resolution.unreached(output)[0]) == (
        f"local-mirror (http://127.0.0.1:{port}/): connection refused (a direct connection finds)"
    )


def test_offline_is_not_part_of_the_build_key(tmp_path):
    (tmp_path / "A.java").write_text("class A {}\n")
    assert fingerprint(tmp_path, BuildOptions(offline=True), BuildSystem.PLAIN) == fingerprint(
        tmp_path, BuildOptions(), BuildSystem.PLAIN
    )


# -- real builds against a repository on 127.0.0.1 --


def _needs(tool: str):
    return pytest.mark.skipif(
        shutil.which(tool) is None or not (debian_maven.DEBIAN_MAVEN_REPO / "junit/junit/4.13.2").is_dir(),
        reason=f"needs Debian's {tool} and its Maven repository (scripts/setup.sh installs them)",
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    """What the server serves: links into Debian's repository (made once; the server adds the
    versions builds ask for)."""
    if not debian_maven.DEBIAN_MAVEN_REPO.is_dir():
        pytest.skip(f"needs {debian_maven.DEBIAN_MAVEN_REPO}")
    return debian_maven.debian_repo(tmp_path_factory.mktemp("served") / "repo")


@pytest.fixture
def server(served):
    with MavenRepositoryServer(served) as running:
        yield running


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
@_needs("mvn")
def test_maven_resolves_what_the_local_repository_lacks_online_once(tmp_path, server):
    project = maven_project(tmp_path / "tiny", server.url)
    before = _files(project)
    repo = tmp_path / "m2"
    repo.mkdir()
    options = BuildOptions(maven_repo=str(repo))
    cache = tmp_path / "cache"
    # offline alone, it lacks everything, and never contacts the repository
    with pytest.raises(Nl2FixError) as offline:
        build_project(project, BuildOptions(maven_repo=str(repo), offline=True), cache_base=cache)
    assert "No plugin found for prefix 'dependency'" in offline.value.message
    assert offline.value.hint.startswith(
        "--offline: everything must already be there; without it nl2fix resolves what is lacking online once"
    )
    assert server.requests == []

    said: list[str] = []
    built = build_project(project, options, cache_base=cache, say=said.append)
    assert said[0] == (
        f"maven: the local repository {repo} lacks the plugin of prefix 'dependency': resolving the "
        "project's dependencies online once, the project's own way (mvn dependency:go-offline)"
    )
    assert re.fullmatch(r"maven: mvn dependency:go-offline done in [\d.]+ s, \d+ file\(s\) downloaded", said[1])
    assert said[2] == (
        "maven: the offline build still lacks commons-io:commons-io:jar:2.11.0 (dependency:go-offline "
        "misses what is resolved only when a goal runs): the build's own goals online once (mvn "
        "test-compile dependency:build-classpath)"
    )
    assert re.fullmatch(
        r"maven: mvn test-compile dependency:build-classpath done in [\d.]+ s, \d+ file\(s\) "
        r"downloaded",
        said[3],
    )
    assert len(said) == 4
    assert "GET /commons-io/commons-io/2.11.0/commons-io-2.11.0.jar" in server.requests
    # the jars are in the repository given, downloaded (not links), and the tests compiled against them
    junit = repo / "junit/junit/4.13.2/junit-4.13.2.jar"  # 4.12 relocated by the server, as Debian does
    assert junit.is_file() and not junit.is_symlink() and (repo / "commons-io/commons-io/2.11.0").is_dir()
    (module,) = built.modules
    assert junit in module.classpath
    assert not run_test(module, "org.tiny.HalfTest::halvesEvenNumbers", SandboxSpec()).failed
    assert _files(project) == before

    # cached: nothing asked again, and what the build did is said again
    asked = len(server.requests)
    again: list[str] = []
    assert build_project(project, options, cache_base=cache, say=again.append) == built
    assert again == [f"{text} (cached build)" for text in said]
    assert len(server.requests) == asked


@pytest.mark.slow
@_needs("mvn")
def test_maven_without_network_names_the_repository_it_could_not_reach(tmp_path, server):
    project = maven_project(tmp_path / "tiny", server.url)
    server.stop()
    repo = tmp_path / "m2"
    repo.mkdir()
    with pytest.raises(Nl2FixError) as raised:
        build_project(project, BuildOptions(maven_repo=str(repo)), cache_base=tmp_path / "cache")
    assert raised.value.message.splitlines() == [
        "the offline Maven build lacks the plugin of prefix 'dependency', and resolving it online (mvn "
        "dependency:go-offline) could not reach the repositories:",
        f"  local-mirror ({server.url}): connection refused (a direct connection finds)",
    ]
    assert raised.value.hint.startswith(
        "build once where the network is (nl2fix resolves what is lacking online by "
        "itself then), or pass --maven-repo debian for Debian's packaged artifacts"
    )


@pytest.mark.slow
@_needs("gradle")
def test_gradle_fills_its_cache_online_once(tmp_path, server, monkeypatch):
    home = tmp_path / "gradle-home"
    monkeypatch.setenv("GRADLE_USER_HOME", str(home))
    project = gradle_project(tmp_path / "tiny", server.url)
    before = _files(project)
    cache = tmp_path / "cache"
    with pytest.raises(Nl2FixError) as offline:
        build_project(project, BuildOptions(offline=True), cache_base=cache)
    assert "No cached version of junit:junit:4.13.2 available for offline mode." in offline.value.message
    assert "drop --offline" in offline.value.hint
    assert server.requests == []

    said: list[str] = []
    built = build_project(project, BuildOptions(), cache_base=cache, say=said.append)
    assert said[0].startswith("gradle: ./gradlew's gradle-4.10.2-bin is not in Gradle's user home")
    assert said[1] == (
        f"gradle: Gradle's cache ({home}/caches) lacks junit:junit:4.13.2: building once online to "
        "fill it, the project's own way (gradle without --offline)"
    )
    assert re.fullmatch(r"gradle: gradle without --offline done in [\d.]+ s", said[2])
    assert all("Java 1.6" in line for line in said[3:])  # the levels raised, as offline
    assert "GET /junit/junit/4.13.2/junit-4.13.2.jar" in server.requests
    (module,) = built.modules
    junit = next(p for p in module.classpath if p.name == "junit-4.13.2.jar")
    assert junit.is_relative_to(home / "caches") and not junit.is_symlink()
    failed = run_test(module, "org.tiny.HalfTest::roundsOddNumbersUp", SandboxSpec())
    assert failed.failed and failed.trace.startswith("java.lang.AssertionError: expected:<3> but was:<2>")
    assert _files(project) == before

    asked = len(server.requests)
    again: list[str] = []
    assert build_project(project, BuildOptions(), cache_base=cache, say=again.append) == built
    assert again == [f"{text} (cached build)" for text in said]
    assert len(server.requests) == asked


@pytest.mark.slow
@_needs("gradle")
def test_gradle_without_network_names_the_repository_it_could_not_reach(tmp_path, server, monkeypatch):
    monkeypatch.setenv("GRADLE_USER_HOME", str(tmp_path / "gradle-home"))
    project = gradle_project(tmp_path / "tiny", server.url)
    server.stop()
    with pytest.raises(Nl2FixError) as raised:
        build_project(project, BuildOptions(), cache_base=tmp_path / "cache")
    assert raised.value.message.splitlines() == [
        "the offline Gradle build lacks junit:junit:4.13.2, and resolving it online (gradle without --offline) could "
        "not reach the repositories:",
        f"  http://127.0.0.1:{server.port}: connection refused",
    ]
    assert "--maven-repo debian" in raised.value.hint
    assert gradle_offline.user_home() == tmp_path / "gradle-home"
