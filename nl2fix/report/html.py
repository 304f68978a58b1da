"""One self-contained HTML page: inline CSS, tables, and figures as inline SVG."""

from __future__ import annotations

import re

from nl2fix.core.visible_text import HTML_CLASS
from nl2fix.core.visible_text import html_visible as escape
from nl2fix.report.document import Document, Figure, Paragraph, Table

_CSS = (
    """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 70rem;
       padding: 0 1rem; color: #212121; }
h1 { margin-bottom: .3rem; }
ul.facts { list-style: none; padding: 0; color: #455a64; }
.warning { background: #fff3e0; border-left: 4px solid #ef6c00; padding: .5rem .8rem; margin: .4rem 0; }
table { border-collapse: collapse; margin: .5rem 0 .3rem; font-size: .9rem; }
th, td { border: 1px solid #cfd8dc; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #eceff1; }
tr:nth-child(even) td { background: #fafafa; }
p.note, figcaption { color: #546e7a; font-size: .85rem; max-width: 60rem; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
code { background: #eceff1; padding: 0 .2rem; border-radius: 3px; }
section { margin-bottom: 1.6rem; }
"""
    + f".{HTML_CLASS} {{ background: #ffcdd2; color: #b71c1c; border: 1px solid #e57373; font-family: monospace; }}\n"
)


_CODE = re.compile(r"`([^`]+)`")


def _text(text: str) -> str:
    """Escaped (hidden characters as visible escapes: candidates' results are quoted here), with the
    documents' Markdown-style `code` spans set as code."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in table.rows)
    if not table.rows:
        body = f'<tr><td colspan="{len(table.columns)}">(none)</td></tr>'
    note = f'<p class="note">{_text(table.note)}</p>' if table.note else ""
    return (
        f"<section><h2>{escape(table.title)}</h2><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>{note}</section>"
    )


def _figure(figure: Figure) -> str:
    caption = f"<figcaption>{_text(figure.caption)}</figcaption>" if figure.caption else ""
    return f"<section><h2>{escape(figure.title)}</h2><figure>{figure.render()}{caption}</figure></section>"


def body(doc: Document) -> str:
    """The document's facts, warnings, tables and figures as an HTML fragment (no page around it)."""
    parts = ['<ul class="facts">' + "".join(f"<li>{_text(f)}</li>" for f in doc.facts) + "</ul>"]
    parts += [f'<div class="warning"><strong>Warning:</strong> {_text(w)}</div>' for w in doc.warnings]
    for block in doc.blocks:
        if isinstance(block, Table):
            parts.append(_table(block))
        elif isinstance(block, Figure):
            parts.append(_figure(block))
        elif isinstance(block, Paragraph):
            parts.append(f"<section><h2>{escape(block.title)}</h2><p>{_text(block.text)}</p></section>")
        else:
            raise TypeError(f"cannot render {type(block).__name__}")
    return "\n".join(parts)


def render(doc: Document) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(doc.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(doc.title)}</h1>",
        body(doc),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
