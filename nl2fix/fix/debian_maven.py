"""Maven's local repository made of Debian's packaged one (``/usr/share/maven-repo``), for offline
builds of projects as they are: their POMs are never edited.

Debian packages one version of most artifacts (and a ``debian`` alias); a project names the versions
it was written against. These bridge the two, all in a writable repository of links made for each
build (so each build makes, and says, every substitution it needs):

- **Metadata.** Each artifact folder gets ``maven-metadata-local.xml`` listing its installed versions,
  and each plugin group its prefixes, so a plugin without a version (and ``dependency:...``)
  resolves offline, to the newest installed version.
- **Substitution.** A version a build asks for that is not installed, of an artifact that is, is
  served by the installed one: a POM-packaged artifact (a parent, a BOM) as a copy of the installed
  POM whose own version reads as the one asked for (a parent cannot be relocated); anything else by a
  relocation POM to the installed version, as Debian itself serves older plugin versions. Each
  substitution is said; the build is retried until it needs nothing new.
- **A version property no POM defines** (the real parent did; Debian's edited one, serving it, does
  not) is set on Maven's command line to the installed version of its artifact.
- **A plugin Debian lacks, declared without a version** (in the project or in Debian's edited
  parent) needs a version for Maven to read the project at all, though the build never runs it
  when no execution is bound before ``test-compile``: it gets an empty placeholder version,
  ``PLACEHOLDER``, said as such. Should the build run it, Maven finds no goal in it and fails; the
  build then stops naming the plugin as lacking (:func:`placeholders_run`).
- **What Debian lacks** is named, with the Debian packages whose names match it (``apt-file`` when
  installed, which knows the files of every package, else ``apt-cache search``).
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command, which

DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")
METADATA = "maven-metadata-local.xml"
_MISSING = (
    re.compile(
        r"artifact (?P<g>[\w.-]+):(?P<a>[\w.-]+):(?P<t>[\w-]+):(?:[\w.-]+:)?(?P<v>[\w.${}-]+) has not been "
        r"downloaded"
    ),
    re.compile(
        r"(?:Failure to find|Could not find artifact) (?P<g>[\w.-]+):(?P<a>[\w.-]+):(?P<t>[\w-]+):"
        r"(?:[\w.-]+:)?(?P<v>[\w.${}-]+)"
    ),
)
_UNVERSIONED = re.compile(r"Error resolving version for plugin '(?P<g>[\w.-]+):(?P<a>[\w.-]+)'")
_UNDEFINED = re.compile(
    r"'[\w.]+\.version' for (?P<g>[\w.-]+):(?P<a>[\w.-]+)(?::[\w-]+)? must be a valid version "
    r"but is '\$\{(?P<p>[\w.-]+)\}'"
)
_PREFIX = re.compile(r"No plugin found for prefix '(?P<p>[\w.-]+)'")
PLACEHOLDER = "0-nl2fix-absent"
_RUN_PLACEHOLDER = re.compile(rf"(?P<g>[\w.-]+):(?P<a>[\w.-]+):{re.escape(PLACEHOLDER)}\b")
_NUMBER = re.compile(r"\d+|[A-Za-z]+")


@dataclass(frozen=True, order=True)
class Coordinate:
    group: str
    artifact: str
    version: str = ""
    type: str = "jar"

    def __str__(self) -> str:
        return f"{self.group}:{self.artifact}" + (f":{self.version}" if self.version else "")

    def folder(self, repo: Path) -> Path:
        return repo.joinpath(*self.group.split("."), self.artifact)


@dataclass(frozen=True)
class Substitution:
    wanted: Coordinate
    installed: str
    """The installed version that serves it."""

    def __str__(self) -> str:
        return f"{self.wanted} served by the installed {self.installed}"


def version_key(version: str) -> tuple:
    """Orders versions numerically part by part (``3.10.1`` after ``3.6.2``); ``debian`` last."""
    if version == "debian":
        return ((-2, 0, ""),)
    return tuple((0, int(p), "") if p.isdigit() else (-1, 0, p) for p in _NUMBER.findall(version))


def _installed_versions(folder: Path) -> list[str]:
    """Versions of an artifact folder that hold a POM (relocations and substitutions included), newest first."""
    if not folder.is_dir():
        return []
    found = [d.name for d in folder.iterdir() if d.is_dir() and any(d.glob("*.pom"))]
    return sorted(found, key=version_key, reverse=True)


def _real_version(folder: Path) -> str | None:
    """The newest version with a real (non-relocating) POM: the one that serves the others; else
    the newest relocation (Debian relocates ``hamcrest-all`` to ``hamcrest``), which Maven follows."""
    versions = [v for v in _installed_versions(folder) if v != PLACEHOLDER]
    for version in versions:
        pom = folder / version / f"{folder.name}-{version}.pom"
        if pom.is_file() and "<relocation>" not in pom.read_text(encoding="utf-8", errors="replace"):
            return version
    return versions[0] if versions else None


def debian_repo(dest: Path) -> Path:
    """A writable local repository of links into Debian's, with metadata, at ``dest``: one per
    build, so each build makes, and says, every substitution it needs (one made for another
    project would otherwise serve silently)."""
    if not DEBIAN_MAVEN_REPO.is_dir():
        raise Nl2FixError(
            f"{DEBIAN_MAVEN_REPO} does not exist",
            "apt-get install maven libmaven-compiler-plugin-java libmaven-resources-plugin-java "
            "libmaven-dependency-plugin-java junit5 (see scripts/setup.sh)",
        )
    dest.mkdir(parents=True)
    result = run_command(["cp", "-rs", f"{DEBIAN_MAVEN_REPO}/.", str(dest)], timeout=300)
    if not result.ok:
        raise Nl2FixError(f"cannot link {DEBIAN_MAVEN_REPO}: {result.stderr.strip()[:300]}")
    write_metadata(dest)
    return dest


def _artifact_metadata(group: str, artifact: str, versions: list[str]) -> str:
    numbered = [v for v in versions if v != "debian"] or versions
    newest = max(numbered, key=version_key)
    items = "".join(f"<version>{v}</version>" for v in sorted(versions, key=version_key))
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<metadata><groupId>{group}</groupId><artifactId>{artifact}'
        f"</artifactId><versioning><latest>{newest}</latest><release>{newest}</release><versions>{items}"
        "</versions></versioning></metadata>\n"
    )


def _plugin_prefix(artifact: str) -> str:
    """Maven's default prefix: ``maven-dependency-plugin`` and ``dependency-maven-plugin`` give ``dependency``."""
    for pattern in (r"^maven-(.+)-plugin$", r"^(.+)-maven-plugin$"):
        m = re.match(pattern, artifact)
        if m:
            return m.group(1)
    return artifact


def _artifacts(repo: Path) -> Iterator[tuple[Path, str, list[str]]]:
    """Every artifact folder of a repository, with its group and the versions that hold a POM."""
    for dirpath, dirnames, _ in os.walk(repo):
        folder = Path(dirpath)
        versions = [d for d in dirnames if any((folder / d).glob("*.pom"))]
        if versions and folder != repo:
            yield folder, ".".join(folder.parent.relative_to(repo).parts), versions


def installed(repo: Path) -> dict[str, tuple[str, list[str]]]:
    """Every artifact of a repository, by ``group:artifact``: the version that serves a version it
    lacks (as :func:`substitute` chooses it), and the versions it has."""
    out = {}
    for folder, group, versions in _artifacts(repo):
        serving = _real_version(folder)
        if serving is not None:
            out[f"{group}:{folder.name}"] = (serving, sorted(versions, key=version_key))
    return out


def write_metadata(repo: Path) -> None:
    """``maven-metadata-local.xml`` for every artifact (its versions) and plugin group (its prefixes)."""
    plugins: dict[Path, list[str]] = {}
    for folder, group, versions in _artifacts(repo):
        (folder / METADATA).unlink(missing_ok=True)
        (folder / METADATA).write_text(_artifact_metadata(group, folder.name, versions), encoding="utf-8")
        if folder.name.endswith("-plugin") or folder.name.endswith("-maven-plugin"):
            plugins.setdefault(folder.parent, []).append(folder.name)
    for group_dir, artifacts in plugins.items():
        entries = "".join(
            f"<plugin><name>{a}</name><prefix>{_plugin_prefix(a)}</prefix><artifactId>{a}</artifactId></plugin>"
            for a in sorted(artifacts)
        )
        (group_dir / METADATA).unlink(missing_ok=True)
        (group_dir / METADATA).write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<metadata><plugins>{entries}</plugins></metadata>\n',
            encoding="utf-8",
        )


def missing_artifacts(output: str) -> tuple[list[Coordinate], list[Coordinate]]:
    """What an offline build could not find: versions (``g:a:v``), and plugins it could not give a
    version (``g:a``: none installed)."""
    wanted = {
        Coordinate(m["g"], m["a"], m["v"], m["t"]) for p in _MISSING for m in p.finditer(output) if "${" not in m["v"]
    }
    unversioned = {Coordinate(m["g"], m["a"]) for m in _UNVERSIONED.finditer(output)}
    return sorted(wanted), sorted(unversioned)


def undefined_versions(output: str) -> dict[str, Coordinate]:
    """Version properties no POM Maven read defines (a real parent did; Debian's installed one, which
    serves it, does not), with the artifact each is the version of."""
    return {m["p"]: Coordinate(m["g"], m["a"]) for m in _UNDEFINED.finditer(output)}


def version_for(repo: Path, c: Coordinate) -> str | None:
    """The installed version that serves an artifact asked for by an undefined property, or None."""
    return _real_version(c.folder(repo))


def _with_version(pom: str, artifact: str, version: str) -> str:
    """The POM's text with its own version (not its parent's) reading ``version``."""
    parent = re.search(r"<parent>.*?</parent>", pom, re.DOTALL)
    skip = parent.span() if parent else (0, 0)
    for m in re.finditer(rf"<artifactId>\s*{re.escape(artifact)}\s*</artifactId>", pom):
        if skip[0] <= m.start() < skip[1]:
            continue
        after = pom[m.end() :]
        own = re.match(r"(\s*(?:<!--.*?-->\s*)*)<version>[^<]*</version>", after, re.DOTALL)
        if own:
            return pom[: m.end()] + own.group(1) + f"<version>{version}</version>" + after[own.end() :]
        return pom[: m.end()] + f"<version>{version}</version>" + after
    raise ValueError(f"no <artifactId>{artifact}</artifactId> of its own")


def _relocation(c: Coordinate, installed: str) -> str:
    return (
        f"<project><modelVersion>4.0.0</modelVersion><groupId>{c.group}</groupId><artifactId>{c.artifact}"
        f"</artifactId><version>{c.version}</version><distributionManagement><relocation><groupId>{c.group}"
        f"</groupId><artifactId>{c.artifact}</artifactId><version>{installed}</version></relocation>"
        "</distributionManagement></project>\n"
    )


def substitute(repo: Path, wanted: Iterable[Coordinate]) -> tuple[list[Substitution], list[Coordinate]]:
    """Serve each wanted version by the installed one where the artifact is installed; the
    substitutions made now, and what is not installed at all."""
    made, lacking = [], []
    for c in wanted:
        folder = c.folder(repo)
        installed = _real_version(folder)
        if installed is None:
            lacking.append(c)
            continue
        target = folder / c.version / f"{c.artifact}-{c.version}.pom"
        if target.is_file():
            continue  # made by an earlier attempt: Maven failed on something it depends on
        source = (folder / installed / f"{c.artifact}-{installed}.pom").read_text(encoding="utf-8", errors="replace")
        packaging = re.search(
            r"<packaging>\s*(\w+)\s*</packaging>", re.sub(r"<parent>.*?</parent>", "", source, flags=re.DOTALL)
        )
        text = (
            _with_version(source, c.artifact, c.version)
            if packaging and packaging.group(1) == "pom"
            else _relocation(c, installed)
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        versions = [d.name for d in folder.iterdir() if d.is_dir() and any(d.glob("*.pom"))]
        (folder / METADATA).unlink(missing_ok=True)
        (folder / METADATA).write_text(_artifact_metadata(c.group, c.artifact, versions), encoding="utf-8")
        made.append(Substitution(c, installed))
    return made, lacking


def placeholders(repo: Path, plugins: Iterable[Coordinate]) -> list[Coordinate]:
    """Each plugin that has no installed version at all gets the placeholder version (a POM, and a
    jar whose descriptor has no goals); those given one now."""
    made = []
    for c in plugins:
        folder = c.folder(repo)
        if _installed_versions(folder) and not (folder / PLACEHOLDER).is_dir():
            continue
        if (folder / PLACEHOLDER / f"{c.artifact}-{PLACEHOLDER}.jar").is_file():
            continue
        made.append(empty_plugin(repo, Coordinate(c.group, c.artifact, PLACEHOLDER)))
        (folder / METADATA).write_text(_artifact_metadata(c.group, c.artifact, [PLACEHOLDER]), encoding="utf-8")
    return made


def empty_plugin(repo: Path, c: Coordinate) -> Coordinate:
    """A plugin at ``c``'s version with no goals: a POM, and a jar whose descriptor (which Maven
    reads to check the version) lists none."""
    target = c.folder(repo) / c.version / f"{c.artifact}-{c.version}.pom"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        f"<project><modelVersion>4.0.0</modelVersion><groupId>{c.group}</groupId><artifactId>"
        f"{c.artifact}</artifactId><version>{c.version}</version><packaging>maven-plugin"
        "</packaging></project>\n",
        encoding="utf-8",
    )
    with zipfile.ZipFile(target.with_suffix(".jar"), "w") as jar:
        jar.writestr(
            "META-INF/maven/plugin.xml",
            f"<plugin><groupId>{c.group}</groupId><artifactId>"
            f"{c.artifact}</artifactId><version>{c.version}</version><goalPrefix>"
            f"{_plugin_prefix(c.artifact)}</goalPrefix><mojos/><dependencies/></plugin>",
        )
    return c


def placeholders_run(output: str) -> list[Coordinate]:
    """Plugins a failed build tried to run that are placeholders (no goal to run)."""
    return sorted({Coordinate(m["g"], m["a"]) for m in _RUN_PLACEHOLDER.finditer(output)})


def debian_packages(c: Coordinate) -> list[str]:
    """Debian packages that may provide an artifact: by their files (``apt-file``), else by name."""
    apt_file = which("apt-file")
    if apt_file is not None:
        path = f"/usr/share/maven-repo/{c.group.replace('.', '/')}/{c.artifact}/"
        result = run_command([str(apt_file), "search", path], timeout=60)
        return sorted({line.split(":", 1)[0] for line in result.stdout.splitlines() if ":" in line})
    apt_cache = which("apt-cache")
    if apt_cache is None:
        return []
    # the artifact's name less Maven's affixes in a package's name (libmaven-javadoc-plugin-java,
    # libanimal-sniffer-java); one of its words alone names unrelated packages (the `oss` of
    # oss-parent: libjide-oss-java)
    stem = re.sub(r"^maven-|-maven-plugin$|-plugin$|-maven$", "", c.artifact)
    names = _package_names(apt_cache, f"^lib.*{re.escape(stem)}.*-java$")
    project = c.group.rsplit(".", 1)[-1]
    if not names and len(project) > 3 and c.artifact.startswith(f"{project}-"):
        # a module of a project packaged whole, named after the group (org.jmock:jmock-junit4 in
        # libjmock2-java): the project's own package names only
        names = _package_names(apt_cache, f"^lib{re.escape(project)}[0-9]*-java$")
    # the artifact's whole name in the package's first (libmaven-bundle-plugin-java), then the shortest
    return sorted(names, key=lambda n: (c.artifact not in n, len(n)))[:3]


def _package_names(apt_cache: Path, pattern: str) -> list[str]:
    result = run_command([str(apt_cache), "search", "--names-only", pattern], timeout=60)
    return [line.split(" - ", 1)[0] for line in result.stdout.splitlines() if " - " in line]


def lacking_message(lacking: Iterable[Coordinate]) -> str:
    """One line per artifact Debian's repository does not hold, with the packages that may."""
    lines = []
    for c in lacking:
        packages = debian_packages(c)
        where = (
            f"Debian package(s) whose name matches: {', '.join(packages)}"
            if packages
            else "no Debian package found for it"
        )
        lines.append(f"  {c}: not in {DEBIAN_MAVEN_REPO}; {where}")
    return "\n".join(lines)


def lacking_error(build: str, lacking: Iterable[Coordinate], hint: str) -> Nl2FixError:
    """An offline build (``Maven``, ``Gradle``) stopped for what Debian's repository does not hold."""
    return Nl2FixError(
        f"the offline {build} build needs what Debian's Maven repository does not hold:\n" + lacking_message(lacking),
        hint,
    )
