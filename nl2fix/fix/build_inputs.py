"""Which files of a user's project are the build's inputs: the only ones copied to where it is built,
hashed into its cache key, and readable by the candidates validated there.

A candidate's code runs with the built copy in reach, and what it prints reaches the run store and
the terminal; the rest of the user's checkout (``.env``, credentials, notes, untracked files) is
not the build's and never goes there.

- A git work tree (``git ls-files`` answers and tracks some file under the folder): the files git
  tracks, as they are in the working tree (uncommitted changes included; submodules' too). An
  untracked file is left out whatever it is; one that looks like a source or build file is named,
  so the user can ``git add`` it.
- Any other folder: the files that match :data:`BUILD_FILES`, :data:`SOURCE_SUFFIXES` or lie under
  one of :data:`INPUT_DIRS` (or the ``--src``/``--test-src`` folders given).

Never inputs, tracked or not: a file or folder whose name starts with a dot (``.env``, ``.aws/``,
``.netrc``; a build needs none but ``.mvn``, Maven's own settings), build output, version control
and nl2fix's own run folders (:func:`skipped`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nl2fix.core.processes import run_command, which
from nl2fix.store.run_store import STORE_FILE

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "target", "build", ".gradle", "out", ".idea", "node_modules"})
BUILD_FILES = frozenset(
    {
        "pom.xml",
        "build.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.properties",
        "gradlew",
        "gradlew.bat",
        "mvnw",
        "mvnw.cmd",
    }
)
"""Build files, wherever they are (a module's own)."""
SOURCE_SUFFIXES = frozenset({".java", ".jar"})
"""Sources and dependency jars (Ant's and plain projects' ``lib/``), wherever they are."""
INPUT_DIRS = frozenset({"src", "test", "tests", "resources", "lib", "libs", "gradle", ".mvn"})
"""Folders whose every file is an input (resources, test data, the Gradle wrapper, Maven's settings)."""
ALLOWED_DOT_DIRS = frozenset({".mvn"})
GIT_TIMEOUT = 120.0
GIT_OUTPUT_LIMIT = 256_000_000


@dataclass(frozen=True)
class BuildInputs:
    files: tuple[Path, ...]
    """The inputs, relative to the project, sorted."""
    tracked: bool
    """Chosen by git (else by the allow-list)."""
    left_out: tuple[str, ...] = ()
    """Untracked files of a git work tree that look like sources or build files."""


def skipped(folder: Path, name: str) -> bool:
    """Build output, version control, and nl2fix's own run folders (a ``--run`` inside the project
    must not change its key): never inputs."""
    return name in SKIPPED_DIRS or (folder / name / STORE_FILE).is_file()


def _dotted(rel: PurePosixPath) -> bool:
    return any(p.startswith(".") and p not in ALLOWED_DOT_DIRS for p in rel.parts)


def _looks_like_input(rel: PurePosixPath, extra_dirs: frozenset[str]) -> bool:
    parts = rel.parts
    if _dotted(rel):
        return False
    if rel.name in BUILD_FILES or rel.suffix in SOURCE_SUFFIXES:
        return True
    folders = parts[:-1]
    return any(p in INPUT_DIRS for p in folders) or any(
        "/".join(folders[:i]) in extra_dirs for i in range(1, len(folders) + 1)
    )


def _walk(root: Path) -> Iterator[PurePosixPath]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not skipped(Path(dirpath), d))
        for name in sorted(filenames):
            yield PurePosixPath(Path(dirpath, name).relative_to(root).as_posix())


def _git_files(root: Path, *flags: str) -> list[PurePosixPath] | None:
    """``git ls-files`` of the folder, relative to it; None outside a git work tree."""
    git = which("git")
    if git is None:
        return None
    result = run_command(
        [git, "-C", root, "ls-files", "-z", *flags], timeout=GIT_TIMEOUT, output_limit=GIT_OUTPUT_LIMIT
    )
    if not result.ok or result.truncated:
        return None
    return [PurePosixPath(p) for p in result.stdout.split("\0") if p]


def _kept(root: Path, rel: PurePosixPath) -> bool:
    path = root / rel
    return (path.is_file() or path.is_symlink()) and not any(
        skipped(root.joinpath(*rel.parts[:i]), part) for i, part in enumerate(rel.parts[:-1])
    )


def build_inputs(root: Path, extra_dirs: Iterable[str | None] = ()) -> BuildInputs:
    """The build's inputs under ``root`` (see the module's docstring); ``extra_dirs``: source or test
    folders given relative to it, inputs too in a folder git does not track."""
    tracked = _git_files(root, "--cached", "--recurse-submodules")
    if tracked:
        untracked = _git_files(root, "--others", "--exclude-standard") or []
        files = sorted({r for r in tracked if not _dotted(r) and _kept(root, r)})
        return BuildInputs(
            tuple(Path(r) for r in files), True, tuple(str(r) for r in untracked if _looks_like_input(r, frozenset()))
        )
    extra = frozenset(PurePosixPath(d).as_posix().strip("/") for d in extra_dirs if d)
    return BuildInputs(tuple(Path(r) for r in _walk(root) if _looks_like_input(r, extra)), False)


def copy_inputs(root: Path, inputs: BuildInputs, dest: Path) -> None:
    """The inputs copied to ``dest`` in the same layout (symbolic links as links)."""
    for rel in inputs.files:
        source, target = root / rel, dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode & 0o777)
