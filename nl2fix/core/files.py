"""Where the project's bundled files are, and whole-file writes that never leave half a file."""

from __future__ import annotations

import os
from pathlib import Path

from nl2fix.core.errors import Nl2FixError

REPO_ROOT = Path(__file__).resolve().parents[2]
_INSTALLED_EXAMPLES = Path(__file__).resolve().parents[1] / "example_benchmark"
"""Where a wheel carries the example benchmark (setup.py copies it there); absent in a source checkout."""
EXAMPLE_BENCHMARK = _INSTALLED_EXAMPLES if _INSTALLED_EXAMPLES.is_dir() else REPO_ROOT / "examples" / "benchmark"
"""The bundled example benchmark: its dataset file, Defects4J-style metadata and Java projects."""


def write_text(path: Path, content: str) -> Path:
    """Write a whole file or nothing: a half-written report never replaces a good one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(content, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise Nl2FixError(f"cannot write {path}: {exc.strerror or exc}", "write it elsewhere with --out FILE") from exc
    return path
