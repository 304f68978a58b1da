"""The raw logs validation kept (``RUN/artifacts/<bug>/<hash>/<name>``), read as the viewer may read them:
regular files at exactly that depth, every folder on the way opened without following a link. A name
is one path component (never ``.``, ``..`` or one with a slash, however the URL encoded it), and a
symbolic link anywhere under ``artifacts/`` (a candidate's test may leave one, pointing anywhere) is
never followed, so nothing outside the run's artifacts can be read through the viewer or copied by
its export."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from nl2fix.validation.stage import ARTIFACTS

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO does not hang the open


def _component(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name


def _open_folder(run_dir: Path, *parts: str) -> int | None:
    """A descriptor of ``run_dir/artifacts/<parts>``, None when a part is not a folder (or is a link)."""
    if not all(_component(p) for p in parts):
        return None
    try:
        fd = os.open(Path(run_dir).absolute() / ARTIFACTS, _DIRECTORY)
    except OSError:
        return None
    for part in parts:
        try:
            inner = os.open(part, _DIRECTORY, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = inner
    return fd


def _entries(fd: int, regular: bool) -> list[str]:
    """Names in the folder ``fd`` of regular files (``regular``) or of folders, links left out."""
    wanted = stat.S_ISREG if regular else stat.S_ISDIR
    with os.scandir(fd) as entries:
        return sorted(e.name for e in entries if wanted(e.stat(follow_symlinks=False).st_mode))


def _listed(run_dir: Path, *parts: str, regular: bool) -> list[str]:
    """The names of the regular files (``regular``) or folders in an artifact folder, opened without
    following links; none when it cannot be so opened."""
    folder = _open_folder(run_dir, *parts)
    if folder is None:
        return []
    try:
        return _entries(folder, regular=regular)
    finally:
        os.close(folder)


def log_names(run_dir: Path, bug_id: str, hash: str) -> list[str]:
    """The raw logs kept for a candidate: its regular files (links are not logs)."""
    return _listed(run_dir, bug_id, hash, regular=True)


def open_log(run_dir: Path, bug_id: str, hash: str, name: str) -> BinaryIO | None:
    """The raw log ``name`` of a candidate opened for reading, None unless it is a regular file there."""
    folder = _open_folder(run_dir, bug_id, hash)
    if folder is None or not _component(name):
        return None
    try:
        fd = os.open(name, _FILE, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def every_log(run_dir: Path) -> Iterator[tuple[str, str, str]]:
    """(bug, hash, name) of every raw log of a run."""
    for bug_id in _listed(run_dir, regular=False):
        for hash in _listed(run_dir, bug_id, regular=False):
            for name in log_names(run_dir, bug_id, hash):
                yield bug_id, hash, name
