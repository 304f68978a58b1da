"""Workspaces built with javac alone: the bundled benchmark's bugs and a user's own project.

A bundled-style benchmark keeps, per project, the fixed tree and one patch per bug that turns it
into the buggy tree (as Defects4J does): ``projects/<Project>/fixed/`` and
``projects/<Project>/patches/<N>.src.patch``. Preparing a bug copies the fixed tree, applies the
patch with ``patch -p1`` and compiles main and test sources once with javac, at the Java level the
project's build files declare (8 when they declare none; see :mod:`java_level`).
A user's project (source dir, test dir, class path) is copied the same way, so validation never
writes in the user's tree. Workspaces are cached by content under
``$NL2FIX_CACHE_DIR/workspaces/<bug-id>/`` and reused by every run.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.contract import Workspace
from defects4j_adapter.jvm import java_level, reference_java
from defects4j_adapter.jvm.runner import junit_jars
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.core.processes import ExecResult, run_command, which

DEFAULT_SRC_DIR = "src/main/java"
DEFAULT_TEST_DIR = "src/test/java"
RESOURCE_DIRS = ("src/main/resources", "src/test/resources")
BUILD_TIMEOUT = 900.0
PATCH_TIMEOUT = 60.0
WORKSPACE_FILE = "workspace.json"
FORMAT = 2


@dataclass(frozen=True)
class ProjectLayout:
    """A Java project javac can build on its own."""

    root: Path
    src_dir: str = DEFAULT_SRC_DIR
    test_dir: str = DEFAULT_TEST_DIR
    classpath: tuple[Path, ...] = ()
    """Dependency jars or class folders (JUnit is added)."""


def detect_encoding(blobs: Iterable[bytes]) -> str:
    """UTF-8 when every file decodes as UTF-8, else ISO-8859-1 (old Apache sources)."""
    for data in blobs:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return "ISO-8859-1"
    return "UTF-8"


def java_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.java")) if folder.is_dir() else []


def javac(
    sources: Sequence[Path],
    out: Path,
    classpath: Sequence[Path],
    encoding: str,
    *,
    release: str = str(java_level.DEFAULT_LEVEL),
    timeout: float = BUILD_TIMEOUT,
    runner=None,
    jdk: reference_java.Jdk | None = None,
    jvm_options: Sequence[str] = (),
) -> ExecResult:
    """Compile ``sources`` into ``out`` with the test Java's javac at the Java level ``release``
    (e.g. ``7``). ``runner(argv, timeout)`` runs the command (a sandbox for candidate code); by
    default it runs directly. ``jdk``: the sandbox's, when not the test Java of the host.
    ``jvm_options``: for javac's launcher (``-J...``)."""
    out.mkdir(parents=True, exist_ok=True)
    argfile = out.parent / f"{out.name}.sources"
    argfile.write_text("\n".join(f'"{s}"' for s in sources) + "\n", encoding="utf-8")
    jdk = jdk or reference_java.current().jdk
    argv = [
        str(jdk.javac),
        *jvm_options,
        "-d",
        str(out),
        "-encoding",
        encoding,
        *java_level.javac_options(int(release), jdk.major),
        "-nowarn",
        "-proc:none",
        "-g",
        "-Xmaxerrs",
        "20",
        "-cp",
        ":".join(str(p) for p in classpath) or ".",
        f"@{argfile}",
    ]
    if runner is not None:
        return runner(argv, timeout)
    return run_command(argv, timeout=timeout)


def first_errors(output: str, limit: int = 20, relative_to: Path | None = None) -> str:
    """The compiler's first error lines (and their context), for the verdict record; paths are
    shown relative to ``relative_to``."""
    if relative_to is not None:
        output = output.replace(f"{relative_to}/", "")
    return "\n".join(output.strip().splitlines()[:limit])


def _fingerprint(paths: Iterable[Path], extra: str = "") -> str:
    h = hashlib.sha256(f"{FORMAT}\n{extra}".encode())
    for p in paths:
        h.update(str(p).encode())
        h.update(p.read_bytes() if p.is_file() else b"")
    return h.hexdigest()[:16]


def _tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def compile_tree(project: Path, layout: ProjectLayout, dest: Path, level: int) -> dict:
    """Compile main then test sources of ``project`` into ``dest`` at Java ``level``; the workspace
    description."""
    main_sources = java_files(project / layout.src_dir)
    test_sources = java_files(project / layout.test_dir)
    if not main_sources:
        raise Nl2FixError(f"no Java sources under {project / layout.src_dir}")
    encoding = detect_encoding(p.read_bytes() for p in [*main_sources, *test_sources])
    deps = [*layout.classpath, *junit_jars()]
    for name, sources, out, cp in (
        ("main", main_sources, dest / "classes", deps),
        ("test", test_sources, dest / "test-classes", [dest / "classes", *deps]),
    ):
        result = javac(sources, out, cp, encoding, release=str(level))
        (dest / f"compile-{name}.log").write_text(result.stdout + result.stderr, encoding="utf-8")
        if not result.ok:
            raise Nl2FixError(
                f"the {name} sources of {project} do not compile at Java level {level}:\n"
                + first_errors(result.stdout + result.stderr, 8),
                f"see {dest / f'compile-{name}.log'}",
            )
    resources = [str(project / r) for r in RESOURCE_DIRS if (project / r).is_dir()]
    return {
        "format": FORMAT,
        "src_dir": layout.src_dir,
        "test_dir": layout.test_dir,
        "encoding": encoding,
        "level": level,
        "classpath": [*resources, *(str(p) for p in deps)],
    }


def _workspace(bug: Bug, dest: Path) -> Workspace:
    meta = json.loads((dest / WORKSPACE_FILE).read_text(encoding="utf-8"))
    root = dest / "project"
    if not bug.trigger_tests:
        raise Nl2FixError(f"{bug.id} lists no trigger test, so no verdict could be trusted", "check the bug's metadata")
    return Workspace(
        bug=bug,
        root=root,
        src_dir=root / meta["src_dir"],
        test_dir=root / meta["test_dir"],
        classes_dir=dest / "classes",
        test_classes_dir=dest / "test-classes",
        classpath=tuple(Path(p) for p in meta["classpath"]),
        trigger_tests=bug.trigger_tests,
        relevant_tests=bug.relevant_tests,
        encoding=meta["encoding"],
        java_release=java_level.in_memory_release(meta["level"]),
        target_file=root / bug.path,
    )


def _builder(populate, layout: ProjectLayout):
    """A :func:`cache.build_once` builder: ``populate(project_dir)`` lays out the buggy tree,
    which is then compiled beside it."""

    def build(tmp: Path) -> None:
        project = tmp / "project"
        populate(project)
        meta = compile_tree(
            project,
            ProjectLayout(project, layout.src_dir, layout.test_dir, layout.classpath),
            tmp,
            java_level.project_level(layout.root),
        )
        (tmp / WORKSPACE_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")

    return build


def benchmark_project(bug: Bug, projects_dir: Path | None = None) -> Path | None:
    """The bundled-style project folder of ``bug``: under ``projects_dir`` when it has one, else
    the example benchmark's for example bugs; None for Defects4J bugs."""
    for base in (projects_dir, EXAMPLE_BENCHMARK / "projects" if bug.benchmark == "example" else None):
        if base is not None and (base / bug.project / "fixed").is_dir():
            return base / bug.project
    return None


def prepare_benchmark_bug(bug: Bug, project_dir: Path, cache_base: Path | None = None) -> Workspace:
    """The buggy tree of ``bug`` (fixed tree + ``patches/<N>.src.patch``), compiled once and cached."""
    if which("patch") is None:
        raise Nl2FixError("the `patch` command is not installed", "apt-get install patch")
    project_dir = project_dir.resolve()
    fixed = project_dir / "fixed"
    patch = project_dir / "patches" / f"{bug.number}.src.patch"
    if not patch.is_file():
        raise Nl2FixError(f"no patch for {bug.id} at {patch}", "every bundled bug needs patches/<N>.src.patch")
    layout = ProjectLayout(fixed, bug.source_dir or DEFAULT_SRC_DIR, bug.test_dir or DEFAULT_TEST_DIR)
    key = _fingerprint([*_tree_files(fixed), patch], f"{layout.src_dir}\n{layout.test_dir}")
    final = cache.workspace_root(cache_base) / bug.id / f"local-{key}"

    def populate(project: Path) -> None:
        shutil.copytree(fixed, project, symlinks=True)
        result = run_command(
            ["patch", "-p1", "-s", "--no-backup-if-mismatch", "-i", str(patch)], timeout=PATCH_TIMEOUT, cwd=project
        )
        if not result.ok:
            raise Nl2FixError(
                f"{patch} does not apply to {fixed}: {(result.stdout + result.stderr).strip()[:500]}",
                "the benchmark's fixed tree and patch disagree; restore them from the repository",
            )

    cache.build_once(final, _builder(populate, layout))
    return _workspace(bug, final)


def prepare_project(bug: Bug, layout: ProjectLayout, cache_base: Path | None = None) -> Workspace:
    """A user's own project (its tree holds the buggy method), copied, compiled once and cached."""
    layout = ProjectLayout(
        layout.root.resolve(), layout.src_dir, layout.test_dir, tuple(p.resolve() for p in layout.classpath)
    )
    if not (layout.root / layout.src_dir).is_dir():
        raise Nl2FixError(f"source folder {layout.root / layout.src_dir} does not exist")
    missing = [p for p in layout.classpath if not p.exists()]
    if missing:
        raise Nl2FixError(f"class path entries not found: {', '.join(map(str, missing))}")
    files = [
        *_tree_files(layout.root / layout.src_dir),
        *_tree_files(layout.root / layout.test_dir),
        *(layout.root / name for name in java_level.BUILD_FILES),
    ]
    key = _fingerprint(files, f"{layout.src_dir}\n{layout.test_dir}\n{layout.classpath}")
    final = cache.workspace_root(cache_base) / bug.id / f"project-{key}"

    def populate(project: Path) -> None:
        for sub in (layout.src_dir, layout.test_dir, *RESOURCE_DIRS):
            if (layout.root / sub).is_dir():
                shutil.copytree(layout.root / sub, project / sub, symlinks=True)

    cache.build_once(final, _builder(populate, layout))
    return _workspace(bug, final)
