"""One run's report rendered as text, Markdown, self-contained HTML, or the JSON of ``ReportData``."""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import write_text
from nl2fix.core.visible_text import json_visible, visible
from nl2fix.report import html, markdown, text
from nl2fix.report.data import ReportData, collect
from nl2fix.report.document import Document
from nl2fix.report.layout import report_document


class ReportFormat(str, enum.Enum):
    TEXT = "text"
    MARKDOWN = "md"
    HTML = "html"
    JSON = "json"


DEFAULT_HTML_NAME = "report.html"


def render_document(doc: Document, fmt: ReportFormat | str) -> str:
    """A document as text, Markdown or HTML, hidden characters shown as escapes (in HTML, each quoted
    text escapes its own)."""
    fmt = parse_format(fmt)
    if fmt is ReportFormat.JSON:
        raise ValueError("JSON is rendered from the data model, not from a document")
    if fmt is ReportFormat.HTML:
        return html.render(doc)
    return visible({ReportFormat.TEXT: text, ReportFormat.MARKDOWN: markdown}[fmt].render(doc))


def render_model(model: BaseModel, document: Callable[[], Document], fmt: ReportFormat | str) -> str:
    """The model itself as JSON (hidden characters as ``\\u`` escapes), or the document laid out from it
    in another format."""
    if parse_format(fmt) is ReportFormat.JSON:
        return json_visible(model.model_dump_json(indent=2)) + "\n"
    return render_document(document(), fmt)


def render(data: ReportData, fmt: ReportFormat | str) -> str:
    return render_model(data, lambda: report_document(data), fmt)


def write_report(
    run_dir: Path,
    fmt: str = "text",
    out: Path | None = None,
    *,
    codebleu: bool = True,
    progress: bool = False,
    cutoff=None,
) -> Path | str:
    """The run's report in ``fmt``: written to ``out`` (returns its path) or returned as text.

    HTML always goes to a file: ``out``, or ``RUN/report.html``."""
    fmt = parse_format(fmt)
    content = render(collect(run_dir, codebleu=codebleu, progress=progress, cutoff=cutoff), fmt)
    if out is None and fmt is ReportFormat.HTML:
        out = Path(run_dir) / DEFAULT_HTML_NAME
    return emit(content, out)


def emit(content: str, out: Path | None) -> Path | str:
    """``content`` written to ``out`` (its path returned), or ``content`` itself without ``out``."""
    return content if out is None else write_text(Path(out), content)


def parse_format(fmt: ReportFormat | str) -> ReportFormat:
    try:
        return ReportFormat(fmt)
    except ValueError:
        raise Nl2FixError(
            f"unknown report format {fmt!r}", "choose one of " + ", ".join(f.value for f in ReportFormat)
        ) from None
