"""The machine-wide cache: prepared workspaces and the compiled test runner.

``$NL2FIX_CACHE_DIR`` (default ``$XDG_CACHE_HOME/nl2fix``, i.e. ``~/.cache/nl2fix``). Entries are
built once and reused by every run; two processes preparing the same entry at once are safe: a
lock file serialises them and the entry appears by an atomic rename, complete or not at all.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_dir() -> Path:
    if os.environ.get("NL2FIX_CACHE_DIR"):
        return Path(os.environ["NL2FIX_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nl2fix"


def workspace_root(base: Path | None = None) -> Path:
    """``<cache>/workspaces``: one folder per bug id below it."""
    return (base or cache_dir()) / "workspaces"


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between threads and processes (``flock`` on ``path``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def build_once(final: Path, build: Callable[[Path], None]) -> Path:
    """``final``, built by ``build(tmp_dir)`` the first time it is asked for.

    ``build`` fills an empty sibling folder that is renamed to ``final`` when it returns (made
    readable to confined code first); if it raises, nothing is left behind and the next caller
    tries again."""
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(final.with_name(final.name + ".lock")):
        if final.is_dir():
            return final
        tmp = Path(tempfile.mkdtemp(prefix=final.name + ".building-", dir=final.parent))
        try:
            build(tmp)
            make_readable(tmp)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return final


def make_readable(root: Path) -> None:
    """Let the unprivileged user that confined code runs as read (never write) a cached tree."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        wanted = mode | 0o444 | (0o111 if path.is_dir() else 0)
        if wanted != mode:
            path.chmod(wanted)
