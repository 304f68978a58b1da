"""What the javac-based engines share: a private folder per candidate, the spliced source
file, the sandbox view of a workspace, and the raw artifacts kept for the run."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from defects4j_adapter.engines import splice
from defects4j_adapter.engines.base import Outcome, Phase, Workspace
from defects4j_adapter.sandbox.base import Mounts

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
        location = splice.splice_file(ws.target_file, dest, ws.bug.buggy_method, ws.bug.start_line,
                                      ws.bug.end_line, method, ws.encoding)
    except splice.SpliceError as exc:
        return Outcome(phase=Phase.SPLICE, compiled=False, harness_error=f"{ws.bug.path}: {exc}")
    except splice.UnbalancedCandidate as exc:
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


def workspace_mounts(ws: Workspace, runner_dir: Path, *, read_only: Iterable[Path] = (),
                     writable: Iterable[Path] = (), scratch: Path | None = None) -> Mounts:
    """The sandbox view for a candidate of ``ws``: the workspace and its class path read-only,
    the working directory a scratch copy of the project root's entries (as symlinks)."""
    ro = _covering([ws.root, ws.classes_dir, ws.test_classes_dir, *ws.classpath, runner_dir, *read_only])
    return Mounts(read_only=ro, writable=tuple(writable), links_from=ws.root, host_scratch=scratch)


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


def with_note(outcome: Outcome, note: str) -> Outcome:
    if note:
        outcome.detail = f"{note}; {outcome.detail}" if outcome.detail else note
    return outcome
