"""Markdown rendering of a document: pipe tables, warnings as block quotes (figures: HTML only)."""

from __future__ import annotations

from nl2fix.report.document import Document, Figure, Paragraph, Table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or " "


def _table(table: Table) -> list[str]:
    out = [
        f"## {table.title}",
        "",
        "| " + " | ".join(_cell(c) for c in table.columns) + " |",
        "|" + "|".join("---" for _ in table.columns) + "|",
    ]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    if not table.rows:
        out.append("| " + " | ".join(["(none)"] + [" "] * (len(table.columns) - 1)) + " |")
    if table.note:
        out += ["", table.note]
    return out


def render(doc: Document) -> str:
    lines = [f"# {doc.title}", ""] + [f"- {fact}" for fact in doc.facts] + [""]
    for warning in doc.warnings:
        lines += [f"> **Warning:** {warning}", ""]
    for block in doc.blocks:
        if isinstance(block, Table):
            lines += _table(block) + [""]
        elif isinstance(block, Paragraph):
            lines += [f"## {block.title}", "", block.text, ""]
        elif not isinstance(block, Figure):
            raise TypeError(f"cannot render {type(block).__name__}")
    return "\n".join(lines).rstrip() + "\n"
