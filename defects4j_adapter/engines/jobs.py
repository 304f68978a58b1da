"""What the javac-based engines share: a private folder per candidate, the spliced source
file, the sandbox view of a workspace, the runner's job for it, and the raw artifacts kept for
the run."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from defects4j_adapter.contract import Outcome, Phase, Workspace
from defects4j_adapter.jvm import aot
from defects4j_adapter.jvm.runner import Job
from defects4j_adapter.sandbox.base import Mounts
from nl2fix.java_source import splice

JOBS_DIR = "jobs"


@contextmanager
def job_dir(cache_base: Path, prefix: str) -> Iterator[Path]:
    """A fresh folder for one candidate (readable by confined code), removed afterwards."""
    root = cache_base / JOBS_DIR
    root.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class SplicedFile:
    path: Path
    note: str


def write_spliced(ws: Workspace, method: str, dest: Path) -> SplicedFile | Outcome:
    """The buggy file with ``method`` spliced in, written to ``dest``; or, when that cannot be
    done, the outcome that says why (a harness error, or an uncompilable candidate)."""
    try:
        location = splice.splice_file(
            ws.buggy_file(), dest, ws.bug.buggy_method, ws.bug.start_line, ws.bug.end_line, method, ws.encoding
        )
    except splice.SpliceError as exc:
        return Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"{ws.bug.path}: {exc}")
    except splice.RefusedCandidate as exc:
        return Outcome(phase=Phase.SPLICE, compiled=False, compile_errors=str(exc))
    dest.chmod(0o644)
    return SplicedFile(dest, location.note)


def _covering(paths: Iterable[Path]) -> tuple[Path, ...]:
    """The paths, less those inside another one (one bind covers them)."""
    unique = sorted({Path(p) for p in paths if Path(p).exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for p in unique:
        if not any(p == k or k in p.parents for k in kept):
            kept.append(p)
    return tuple(kept)


def workspace_mounts(
    ws: Workspace,
    runner_dir: Path,
    *,
    read_only: Iterable[Path] = (),
    writable: Iterable[Path] = (),
    scratch: Path | None = None,
    precompiled: aot.Library = aot.NONE,
) -> Mounts:
    """The sandbox view for a candidate of ``ws``: the workspace and its class path read-only,
    the working directory a scratch copy of the project root's entries (as symlinks), and the code compiled ahead of
    time that the JVM is given (``precompiled``: :meth:`Sandbox.precompiled`), mapped before any Java code runs."""
    libraries = [p.parent for p in precompiled.paths]
    ro = _covering([ws.root, ws.classes_dir, ws.test_classes_dir, *ws.classpath, runner_dir, *read_only, *libraries])
    return Mounts(read_only=ro, writable=tuple(writable), links_from=ws.root, host_scratch=scratch)


def package_of(ws: Workspace) -> list[str]:
    """The package of the workspace's target file, from where it sits under the main sources."""
    if ws.target_file is None or not ws.target_file.is_relative_to(ws.src_dir):
        return []
    return [".".join(ws.target_file.relative_to(ws.src_dir).parent.parts)]


def _candidate_classes(ws: Workspace) -> list[str]:
    """The top-level class the candidate's file is named for (``org.x.Text``)."""
    if ws.target_file is None:
        return []
    return [".".join(p for p in (*package_of(ws), ws.target_file.stem) if p)]


def runner_job(
    ws: Workspace,
    job_id: str,
    *,
    known: frozenset[str],
    stop_at_first_failure: bool,
    test_timeout: float,
    first_on_classpath: tuple[Path, ...] = (),
    source: Path | None = None,
    compiled: Path | None = None,
) -> Job:
    """The runner's job that runs ``ws``'s trigger then relevant tests (compiling ``source`` in
    memory first, or taking the classes in ``compiled``, when given), with ``first_on_classpath``
    before the workspace's own classes."""
    return Job(
        id=job_id,
        source=source,
        compiled=compiled,
        compile_classpath=[ws.classes_dir, *ws.classpath],
        release=ws.java_release,
        encoding=ws.encoding,
        classpath=[*first_on_classpath, ws.classes_dir, ws.test_classes_dir, *ws.classpath],
        triggers=list(ws.trigger_tests),
        relevant=list(ws.relevant_tests),
        known=sorted(known),
        test_classes=[*first_on_classpath, ws.test_classes_dir],
        packages=package_of(ws),
        candidate_classes=_candidate_classes(ws),
        stop_at_first_failure=stop_at_first_failure,
        test_timeout_ms=int(test_timeout * 1000),
    )


def write_classes(classes: dict[str, bytes], root: Path) -> Path:
    """``classes`` (binary names with dots) as class files under ``root``, readable by confined code."""
    for name, data in classes.items():
        path = root / (name.replace(".", "/") + ".class")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for folder in [root, *root.rglob("*")]:
        folder.chmod(0o755 if folder.is_dir() else 0o644)
    return root


def keep(log_dir: Path | None, files: dict[str, str | Path]) -> None:
    """Copy or write the artifacts (``name -> text or file``) into ``log_dir``."""
    if log_dir is None:
        return
    log_dir.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, Path):
            if content.is_file():
                shutil.copyfile(content, log_dir / name)
        else:
            (log_dir / name).write_text(content, encoding="utf-8")


def summary(outcome: Outcome) -> str:
    """What a job's outcome was, in a candidate's story."""
    if not outcome.compiled:
        return f"not compiled{': ' + outcome.harness_error if outcome.harness_error else ''}"
    failing = [*outcome.failing_tests, *outcome.timed_out_tests]
    parts = [f"{outcome.tests_run} test(s) ran", f"failing: {', '.join(failing[:5])}" if failing else "none failed"]
    if outcome.timed_out:
        parts.append("a time limit was hit")
    if outcome.jvm_died:
        parts.append("the JVM ended during the job")
    if outcome.harness_error:
        parts.append(f"harness: {outcome.harness_error[:300]}")
    return "; ".join(parts)
