"""Progress bars for long work: on stderr, and only on a terminal (logs and CI stay clean)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from tqdm import tqdm


def progress_bar(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str | None = None,
    unit: str = "it",
    enabled: bool = True,
) -> tqdm[Any]:
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        leave=False,
        disable=not enabled or not sys.stderr.isatty(),
    )
