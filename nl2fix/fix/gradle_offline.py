"""Gradle's side of an offline build of a project as it is: which Gradle runs it, the init scripts
that read its layout and choose its repository, and what a failed build lacked.

Nothing of the project is edited; everything goes through init scripts (``-I``):

- **Layout.** A task ``nl2fixLayout`` in each Java project compiles the tests and writes the source
  sets, output folders and test runtime class path. A ``JavaCompile`` task at a source level the
  JDK's javac no longer accepts (JDK 17 refuses ``1.6``) is raised to the oldest it accepts, as
  :mod:`defects4j_adapter.jvm.java_level` does for the builds nl2fix compiles itself, and said.
- **Repository** (``--maven-repo``). Every Maven repository the build scripts declare, for their
  own class path (``buildscript``) and for the projects', is pointed at one local Maven repository,
  and one is added to a project that declares none. With ``debian`` that is the per-build
  repository of links over Debian's (:func:`debian_maven.debian_repo`), and a version it lacks of an
  artifact it holds is served by the installed one (``resolutionStrategy.eachDependency``, the
  version :func:`debian_maven.installed` names), each substitution said. The build's own projects
  are never substituted. Gradle follows Debian's relocation POMs (``hamcrest-core`` to
  ``hamcrest``) itself.
- **The wrapper.** ``./gradlew`` runs its own Gradle, which it downloads on first use: offline, it
  runs only when that distribution is already unpacked in Gradle's user home; otherwise the
  installed ``gradle`` builds, and that is said.
- **Plugins by id** (``plugins { id 'x' version 'v' }``) come from the Gradle plugin portal, which an
  offline build cannot reach and Debian does not mirror; unless Gradle's cache holds them, the build
  stops naming every one the build scripts request.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.jvm import reference_java
from nl2fix.core.processes import which
from nl2fix.fix import debian_maven
from nl2fix.fix.debian_maven import Coordinate, Substitution

LAYOUT_FILE = "nl2fix-layout.json"
NOTES_PROPERTY = "nl2fix.notes"
OLDEST_LEVEL_PROPERTY = "nl2fix.oldestLevel"
REPOSITORY_PROPERTY = "nl2fix.repository"

LAYOUT_INIT = """
def nl2fixArgs = gradle.startParameter.systemPropertiesArgs
def nl2fixNotes = new File(nl2fixArgs['%(notes)s'])
allprojects { p ->
    p.afterEvaluate {
        if (p.plugins.hasPlugin('java')) {
            p.task('nl2fixLayout') {
                dependsOn 'testClasses'
                doLast {
                    def ss = p.sourceSets
                    def data = [
                        src: ss.main.java.srcDirs.collect { it.path },
                        test: ss.test.java.srcDirs.collect { it.path },
                        classes: ss.main.output.classesDirs.files.collect { it.path },
                        testClasses: ss.test.output.classesDirs.files.collect { it.path },
                        classpath: ss.test.runtimeClasspath.files.collect { it.path },
                    ]
                    new File(p.buildDir, '%(layout)s').text = groovy.json.JsonOutput.toJson(data)
                }
            }
        }
    }
}
// after every build script: a level set late (in a task's own block) is seen
gradle.taskGraph.whenReady { graph ->
    def oldest = nl2fixArgs['%(oldest)s']
    if (!oldest) return
    def least = JavaVersion.toVersion(oldest)
    graph.allTasks.findAll { it instanceof JavaCompile }.each { t ->
        if (JavaVersion.toVersion(t.sourceCompatibility) < least) {
            nl2fixNotes << "level\\t${t.path}\\t${t.sourceCompatibility}\\t${least}\\n"
            t.sourceCompatibility = least.toString()
        }
        if (JavaVersion.toVersion(t.targetCompatibility) < least) {
            t.targetCompatibility = least.toString()
        }
    }
}
""" % {"notes": NOTES_PROPERTY, "layout": LAYOUT_FILE, "oldest": OLDEST_LEVEL_PROPERTY}  # noqa: UP031 - Groovy's braces

REPOSITORY_INIT = """
import groovy.json.JsonSlurper

def nl2fixArgs = gradle.startParameter.systemPropertiesArgs
def nl2fixNotes = new File(nl2fixArgs['%(notes)s'])
def nl2fixConfig = new JsonSlurper().parse(new File(nl2fixArgs['%(repository)s']))
def nl2fixRepo = new File(nl2fixConfig.repository).toURI()
def nl2fixInstalled = nl2fixConfig.installed
def nl2fixOwn = null
def nl2fixServe = { details ->
    def r = details.requested
    // the build's own projects are built, never served
    if (nl2fixOwn == null) {
        nl2fixOwn = gradle.rootProject.allprojects.collect { "${it.group}:${it.name}".toString() } as Set
    }
    def key = "${r.group}:${r.name}".toString()
    def found = nl2fixInstalled[key]
    if (found == null || !r.version || r.version in found[1] || key in nl2fixOwn) return
    details.useVersion(found[0])
    synchronized (nl2fixNotes) { nl2fixNotes << "served\\t${key}:${r.version}\\t${found[0]}\\n" }
}
allprojects { p ->
    [p.buildscript, p].each { scope ->
        // every Maven repository, declared before or after this runs, is the one chosen
        scope.repositories.all { repo ->
            if (repo instanceof MavenArtifactRepository) repo.url = nl2fixRepo
        }
        scope.configurations.all { it.resolutionStrategy.eachDependency(nl2fixServe) }
    }
    p.afterEvaluate {
        if (p.repositories.isEmpty()) p.repositories.maven { url nl2fixRepo }
    }
}
""" % {"notes": NOTES_PROPERTY, "repository": REPOSITORY_PROPERTY}  # noqa: UP031 - Groovy's braces

_NOT_FOUND = re.compile(r"Could not find (?P<g>[\w.-]+):(?P<a>[\w.-]+):(?P<v>[^\s:]+?)\.?$", re.MULTILINE)
_PLUGIN_NOT_FOUND = re.compile(r"Plugin \[id: '(?P<id>[^']+)'(?:, version: '(?P<v>[^']+)')?\] was not found")
_PLUGIN_REQUEST = re.compile(r"""\bid\s*\(?\s*["'](?P<id>[\w.-]+)["']\s*\)?\s*version\s*\(?\s*["'](?P<v>[^"']+)["']""")
_BUILD_SCRIPT = re.compile(r".*\.gradle(\.kts)?$")
_WENT_WRONG = re.compile(r"^\* What went wrong:\n(?P<what>.*?)(?=^\* Try:|\Z)", re.MULTILINE | re.DOTALL)
_JAVAC_ERROR = re.compile(r"^\S+\.java:\d+: error: .*$", re.MULTILINE)


@dataclass(frozen=True)
class Wrapper:
    """``./gradlew``'s distribution, from ``gradle/wrapper/gradle-wrapper.properties``."""

    url: str
    unpacked: bool
    """Already in Gradle's user home: the wrapper can run offline."""

    @property
    def name(self) -> str:
        """``gradle-4.10.2-bin``."""
        return self.url.rsplit("/", 1)[-1].removesuffix(".zip")


def _properties(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip().replace("\\:", ":").replace("\\=", "=")
    return out


def wrapper(project: Path, env: dict[str, str] | None = None) -> Wrapper | None:
    """The wrapper's distribution and whether it is unpacked (as the wrapper leaves it: a
    ``<zip>.ok`` marker beside the zip under ``dists/<name>/<hash>/``), or None without one."""
    props_file = project / "gradle/wrapper/gradle-wrapper.properties"
    if not props_file.is_file():
        return None
    props = _properties(props_file)
    url = props.get("distributionUrl", "")
    if not url:
        return None
    base = project if props.get("zipStoreBase") == "PROJECT" else user_home(env)
    zip_name = url.rsplit("/", 1)[-1]
    stored = base / props.get("zipStorePath", "wrapper/dists") / zip_name.removesuffix(".zip")
    return Wrapper(url, any(stored.glob(f"*/{zip_name}.ok")))


def user_home(env: dict[str, str] | None = None) -> Path:
    """Gradle's user home, where its cache and the wrappers' distributions are: ``$GRADLE_USER_HOME``,
    else ``~/.gradle``."""
    env = dict(os.environ) if env is None else env
    return Path(env.get("GRADLE_USER_HOME") or Path.home() / ".gradle")


def java_major() -> int | None:
    """The major version of the Java Gradle runs on, and compiles with unless a build script names
    another javac: ``$JAVA_HOME``'s, else ``java``'s (as the ``gradle`` script chooses)."""
    home = os.environ.get("JAVA_HOME")
    java = Path(home) / "bin" / "java" if home else which("java")
    jdk = reference_java.probe(Path(os.path.realpath(java)).parent.parent) if java is not None else None
    return jdk.major if jdk is not None else None


def write_repository_config(dest: Path, repo: Path, substitute: bool) -> Path:
    """The repository init script's input: the repository and, when it serves missing versions,
    what it holds."""
    dest.write_text(
        json.dumps({"repository": str(repo), "installed": debian_maven.installed(repo) if substitute else {}}),
        encoding="utf-8",
    )
    return dest


@dataclass(frozen=True)
class Notes:
    """What the init scripts did that the user should know, in the order done."""

    served: tuple[Substitution, ...]
    levels: tuple[tuple[str, str, str], ...]
    """(task, level asked, level compiled at)."""


def read_notes(path: Path) -> Notes:
    """Each substitution and level change once (Gradle resolves a configuration many times)."""
    served: dict[Substitution, None] = {}
    levels: dict[tuple[str, str, str], None] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    for line in lines:
        kind, *fields = line.split("\t")
        if kind == "served" and len(fields) == 2:
            group, artifact, version = fields[0].split(":", 2)
            served[Substitution(Coordinate(group, artifact, version), fields[1])] = None
        elif kind == "level" and len(fields) == 3:
            levels[(fields[0], fields[1], fields[2])] = None
    return Notes(tuple(served), tuple(levels))


def not_found(output: str) -> list[Coordinate]:
    """The modules a failed build found in no repository."""
    return sorted({Coordinate(m["g"], m["a"], m["v"]) for m in _NOT_FOUND.finditer(output)})


def portal_plugins(output: str, project: Path) -> list[str]:
    """When the build failed for a plugin requested by id that no source holds: every plugin the
    build scripts request with a version (``id 'x' version 'v'``, Gradle stops at the first), with
    the script that asks; else none."""
    failed = _PLUGIN_NOT_FOUND.search(output)
    if failed is None:
        return []
    requested: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(project):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("build", "buildSrc"))
        for name in sorted(f for f in filenames if _BUILD_SCRIPT.match(f)):
            path = Path(dirpath) / name
            for m in _PLUGIN_REQUEST.finditer(path.read_text(encoding="utf-8", errors="replace")):
                requested.setdefault(f"{m['id']} {m['v']}", path.relative_to(project))
    first = f"{failed['id']} {failed['v']}" if failed["v"] else failed["id"]
    named = [f"{plugin} ({script})" for plugin, script in requested.items()]
    return named if first in requested else [first, *named]


def what_went_wrong(output: str) -> list[str]:
    """Gradle's own account of a failure (its ``What went wrong`` section) and javac's errors."""
    lines = [line for m in _WENT_WRONG.finditer(output) for line in m["what"].strip().splitlines() if line.strip()]
    return [*_JAVAC_ERROR.findall(output)[:8], *lines[:12]] or output.strip().splitlines()[-12:]
