"""The report's figures as inline SVG, drawn with matplotlib (Agg backend, never a window).

Figures are built on ``matplotlib.figure.Figure`` directly (no pyplot global state), with text kept as
text and a fixed hash salt and no date, so the same data gives the same bytes.
"""

from __future__ import annotations

import functools
import io
import itertools
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from nl2fix.report.data import Distribution

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@functools.cache
def _matplotlib() -> ModuleType:
    """matplotlib, loaded only when a figure is drawn (it costs every command a fifth of a second)."""
    import matplotlib

    matplotlib.use("Agg")  # never open a window, whatever the user's default backend is
    import matplotlib.figure
    import matplotlib.ticker

    return matplotlib


_RC = {"svg.fonttype": "none", "svg.hashsalt": "nl2fix", "font.size": 9}
_VERDICT_COLOURS = {
    "plausible": "#2e7d32",
    "wrong": "#c62828",
    "uncompilable": "#6d4c41",
    "rejected": "#6a1b9a",
    "timeout": "#ef6c00",
    "error": "#757575",
}


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    with _matplotlib().rc_context(_RC):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prologue and DOCTYPE: the SVG is inlined in HTML


def _figure(width: float, height: float) -> Figure:
    with _matplotlib().rc_context(_RC):
        return _matplotlib().figure.Figure(figsize=(width, height), layout="constrained")


def pass_at_k_curves(curves: Mapping[str, Sequence[float]]) -> str:
    """Figure 2: pass@k against k, one line per run (log-scaled k when it spans more than a decade)."""
    with _matplotlib().rc_context(_RC):
        fig = _figure(5.5, 3.4)
        ax = fig.add_subplot()
        longest = 0
        for label, values in curves.items():
            ks = range(1, len(values) + 1)
            ax.plot(ks, [100 * v for v in values], marker="o" if len(values) <= 20 else None, markersize=3, label=label)
            longest = max(longest, len(values))
        if longest > 10:
            ax.set_xscale("log")
        else:
            ax.xaxis.set_major_locator(_matplotlib().ticker.MaxNLocator(integer=True))
        ax.set_xlabel("k (samples)")
        ax.set_ylabel("pass@k (%)")
        ax.set_ylim(0, 100)
        ax.grid(True, alpha=0.3)
        if len(curves) > 1:
            ax.legend(fontsize=7)
        return _svg(fig)


def codebleu_boxes(by_reference: Mapping[str, Mapping[str, Distribution]]) -> str:
    """Figure 4: CodeBLEU of candidates against each reference, one box per verdict."""
    with _matplotlib().rc_context(_RC):
        fig = _figure(3.2 * max(1, len(by_reference)), 3.4)
        axes = fig.subplots(1, max(1, len(by_reference)), sharey=True, squeeze=False)[0]
        for ax, (reference, groups) in zip(axes, by_reference.items()):
            stats = [
                {
                    "label": f"{verdict}\n(n={d.count})",
                    "med": d.median,
                    "q1": d.q1,
                    "q3": d.q3,
                    "whislo": d.low,
                    "whishi": d.high,
                    "mean": d.mean,
                    "fliers": [],
                }
                for verdict, d in groups.items()
            ]
            if stats:
                boxes = ax.bxp(stats, showmeans=True, patch_artist=True)
                for patch, verdict in zip(boxes["boxes"], groups):
                    patch.set_facecolor(_VERDICT_COLOURS.get(verdict, "#90a4ae"))
                    patch.set_alpha(0.6)
            ax.set_title(f"vs {reference} method")
            ax.set_ylim(0, 1)
            ax.grid(True, axis="y", alpha=0.3)
        axes[0].set_ylabel("CodeBLEU")
        return _svg(fig)


def project_bars_figure(projects: Sequence[tuple[str, int, int]]) -> Figure:
    """Table 3 as bars: bugs with a plausible fix out of the bugs of each project. The legend sits
    above the axes: inside, the bars (all as tall when projects have as many bugs) leave it no room."""
    with _matplotlib().rc_context(_RC):
        fig = _figure(max(4.0, 0.55 * len(projects) + 1.5), 3.2)
        ax = fig.add_subplot()
        names = [p for p, _, _ in projects]
        ax.bar(names, [b for _, b, _ in projects], color="#cfd8dc", label="bugs")
        ax.bar(names, [f for _, _, f in projects], color="#2e7d32", label="with a plausible fix")
        ax.set_ylabel("bugs")
        ax.yaxis.set_major_locator(_matplotlib().ticker.MaxNLocator(integer=True))
        ax.tick_params(axis="x", rotation=45)
        fig.legend(loc="outside upper center", ncols=2, fontsize=7)
        return fig


def project_bars(projects: Sequence[tuple[str, int, int]]) -> str:
    return _svg(project_bars_figure(projects))


def overlap_upset(fixed: Mapping[str, set[str]]) -> str:
    """Figure 3 as an UpSet plot: bugs fixed by exactly each combination of runs."""
    labels = list(fixed)
    combos = []
    for size in range(len(labels), 0, -1):
        for combo in itertools.combinations(range(len(labels)), size):
            inside = set.intersection(*(fixed[labels[i]] for i in combo))
            outside = set().union(*(fixed[labels[i]] for i in range(len(labels)) if i not in combo))
            count = len(inside - outside)
            if count:
                combos.append((combo, count))
    combos.sort(key=lambda c: (-c[1], c[0]))
    with _matplotlib().rc_context(_RC):
        fig = _figure(max(4.0, 0.5 * len(combos) + 2.5), 1.6 + 0.35 * len(labels) + 1.8)
        bars, dots = fig.subplots(2, 1, sharex=True, height_ratios=[2, max(1, 0.35 * len(labels))])
        xs = range(len(combos))
        bars.bar(xs, [c for _, c in combos], color="#37474f")
        for x, (_, count) in zip(xs, combos):
            bars.annotate(str(count), (x, count), ha="center", va="bottom", fontsize=7)
        bars.set_ylabel("bugs fixed")
        bars.yaxis.set_major_locator(_matplotlib().ticker.MaxNLocator(integer=True))
        for x, (combo, _) in zip(xs, combos):
            dots.scatter([x] * len(labels), range(len(labels)), color="#cfd8dc", s=30)
            dots.scatter([x] * len(combo), combo, color="#37474f", s=30)
            if len(combo) > 1:
                dots.plot([x, x], [min(combo), max(combo)], color="#37474f")
        dots.set_yticks(range(len(labels)), labels)
        dots.set_ylim(-0.5, len(labels) - 0.5)
        dots.invert_yaxis()
        dots.set_xticks([])
        return _svg(fig)
