"""A real remote Maven repository on 127.0.0.1 for tests: a folder served over HTTP, as Maven
Central serves its own, for builds that resolve their dependencies online.

The folder is one made by :func:`nl2fix.fix.debian_maven.debian_repo` (links into Debian's
``/usr/share/maven-repo``, with ``maven-metadata-local.xml`` files). The server answers:

- ``.../maven-metadata.xml`` (what a remote repository names it) from ``maven-metadata-local.xml``;
- a POM of a version the folder lacks, of an artifact it holds, by Debian's substitution
  (:func:`debian_maven.substitute`: a relocation to the installed version, or for a POM-packaged
  artifact a copy of it), so every version a build asks for is there, as online;
- ``X.sha1`` by the checksum of X, as Maven Central has (else Maven warns at every download);
- anything else from the folder, or 404.

Every request is logged (``requests``: method and path); ``stop()`` closes the port, after which a
build's connections are refused.

:func:`maven_project` and :func:`gradle_project` copy the tiny fixtures naming such a repository the
way projects name theirs: a mirror in ``.mvn/settings.xml`` that ``.mvn/maven.config`` passes to
Maven, a ``maven { url }`` in ``build.gradle``.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from nl2fix.fix import debian_maven
from nl2fix.fix.debian_maven import Coordinate
from tests.helpers.paths import FIXTURES


class MavenRepositoryServer:
    def __init__(self, root: Path):
        self.root = root
        self.requests: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def translate_path(self, path: str) -> str:
                with server._lock:
                    server.requests.append(f"{self.command} {path}")
                    return str(server._file(path.split("?", 1)[0].strip("/")))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _file(self, path: str) -> Path:
        file = self.root / path
        if file.name == "maven-metadata.xml":
            return file.with_name(debian_maven.METADATA)
        if file.suffix == ".sha1" and not file.exists():
            served = self._file(path.removesuffix(".sha1"))
            if served.is_file():  # a checksum, as Maven Central has beside every file
                file.with_name(served.name + ".sha1").write_text(hashlib.sha1(served.read_bytes()).hexdigest())
            return file.with_name(served.name + ".sha1")
        parts = path.split("/")
        if file.suffix in (".pom", ".jar") and not file.exists() and len(parts) >= 4:
            *group, artifact, version, _ = parts
            wanted = Coordinate(".".join(group), artifact, version)
            _, lacking = debian_maven.substitute(self.root, [wanted])
            if lacking and artifact.endswith("-plugin"):
                debian_maven.empty_plugin(self.root, wanted)
        return file

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> MavenRepositoryServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# -- projects that name such a repository, the way real ones do --

# fix_maven_tiny's sources with a POM as ordinary projects have: everything resolvable from the
# repository (none of the fixture's Debian oddities), and an annotation processor path, which the
# compiler resolves when it runs and dependency:go-offline misses
POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.tiny</groupId>
  <artifactId>tiny</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>8</maven.compiler.source>
    <maven.compiler.target>8</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.12</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.10.1</version>
        <configuration>
          <annotationProcessorPaths>
            <path><groupId>commons-io</groupId><artifactId>commons-io</artifactId><version>2.11.0</version></path>
          </annotationProcessorPaths>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""


def maven_project(dest: Path, url: str) -> Path:
    """fix_maven_tiny naming a mirror of every repository, in its own Maven settings."""
    shutil.copytree(FIXTURES / "fix_maven_tiny", dest)
    (dest / "pom.xml").write_text(POM)
    (dest / ".mvn").mkdir()
    (dest / ".mvn/maven.config").write_text("--settings .mvn/settings.xml\n")
    (dest / ".mvn/settings.xml").write_text(
        f"<settings><mirrors><mirror><id>local-mirror</id><mirrorOf>*</mirrorOf><url>{url}</url></mirror></mirrors>"
        "</settings>\n"
    )
    return dest


def gradle_project(dest: Path, url: str) -> Path:
    """fix_gradle_tiny resolving from the server in place of Maven Central, asking for a junit the
    server has as it is (Gradle 4.4 does not follow a relocation to another version)."""
    shutil.copytree(FIXTURES / "fix_gradle_tiny", dest)
    script = dest / "build.gradle"
    script.write_text(
        script.read_text()
        .replace("mavenCentral()", f"maven {{ url '{url}' }}")
        .replace("junit:junit:4.12", "junit:junit:4.13.2")
    )
    return dest
