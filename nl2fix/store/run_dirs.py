"""Where a run lives when no ``--run`` is given, as evaluation harnesses name their log folders.

A new run goes to ``runs/<dataset>-<strategy>-<model>-<temperature>`` (relative to the working
directory), so the same configuration resumes the same run; a command that reads a run takes the
most recently written one under ``runs/`` and says which it took and which others exist.
"""

from __future__ import annotations

import re
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.store.run_store import STORE_FILE

RUNS_DIR = Path("runs")
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def _part(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("._") or "x"


def dataset_label(dataset: str | None) -> str:
    """``example``, the pulled dataset's ``nl2fix``, or the stem of a dataset JSON path."""
    if dataset in (None, "example"):
        return dataset or "nl2fix"
    return Path(dataset).stem


def default_run_dir(dataset: str, strategy: str, model: str, temperature: float, base: Path = RUNS_DIR) -> Path:
    """``runs/<dataset>-<strategy>-<model>-<temperature>``; a model given as a path is named by
    its last part."""
    name = "-".join(_part(p) for p in (dataset, strategy, Path(model).name or model, f"{temperature:g}"))
    return base / name


def existing_runs(base: Path = RUNS_DIR) -> list[Path]:
    """Run directories under ``base``, the most recently written first."""
    if not base.is_dir():
        return []
    runs = [p for p in base.iterdir() if (p / STORE_FILE).is_file()]
    return sorted(runs, key=lambda p: (p / STORE_FILE).stat().st_mtime, reverse=True)


def latest_run(base: Path = RUNS_DIR) -> tuple[Path, list[Path]]:
    """The most recently written run under ``base`` and the others there."""
    runs = existing_runs(base)
    if not runs:
        raise Nl2FixError(
            f"no --run given and no run under {base}/",
            "start one with `nl2fix sample ...` or `nl2fix run ...`, or pass --run DIR",
        )
    return runs[0], runs[1:]
