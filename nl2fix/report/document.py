"""A report as format-neutral blocks: the text, Markdown and HTML writers render the same document."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


@dataclass
class Figure:
    """A plot; ``render`` returns inline SVG and is only called by writers that embed figures."""

    title: str
    render: Callable[[], str]
    caption: str = ""


@dataclass
class Paragraph:
    title: str
    text: str


Block = Table | Figure | Paragraph


@dataclass
class Document:
    title: str
    facts: list[str]
    """Short ``name: value`` lines under the title."""
    warnings: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)


def pct(fraction: float | None, digits: int = 1) -> str:
    return "-" if fraction is None else f"{100 * fraction:.{digits}f}%"


NOT_PROBED = "not probed"
"""Said in place of a likely-correct figure when a run's behaviour was not probed (its engine never
probes): 0.0% would claim that no candidate is correct."""


def likely(probed: bool, fraction: float | None) -> str:
    """A likely-correct figure, or ``not probed``."""
    return pct(fraction) if probed else NOT_PROBED


def interval(bounds: tuple[float, float] | None) -> str:
    return "-" if bounds is None else f"{pct(bounds[0])} – {pct(bounds[1])}"


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({pct(part / whole if whole else None)})"
