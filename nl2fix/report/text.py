"""Plain-text rendering of a document (figures are left to the HTML report)."""

from __future__ import annotations

from nl2fix.report.document import Document, Figure, Paragraph, Table


def _table(table: Table) -> list[str]:
    rows = [[" ".join(cell.split("\n")) for cell in row] for row in table.rows]  # one line per row
    widths = [len(c) for c in table.columns]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    line = lambda cells: "  ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [table.title, "=" * len(table.title), line(table.columns), line(["-" * w for w in widths])]
    out += [line(row) for row in rows] or ["(none)"]
    if table.note:
        out.append(table.note)
    return out


def render(doc: Document) -> str:
    lines = [doc.title, *doc.facts, ""]
    for warning in doc.warnings:
        lines.append(f"WARNING: {warning}")
    if doc.warnings:
        lines.append("")
    for block in doc.blocks:
        if isinstance(block, Table):
            lines += _table(block) + [""]
        elif isinstance(block, Paragraph):
            lines += [block.title, "=" * len(block.title), block.text, ""]
        elif not isinstance(block, Figure):
            raise TypeError(f"cannot render {type(block).__name__}")
    return "\n".join(lines).rstrip() + "\n"
