"""Prompt templates (jinja2), one per strategy and model style, and the one function that renders them.

Templates receive plain strings: ``title``, ``description`` (empty for ``title-only``), ``method``
(the comment-free buggy method), ``header`` (its declaration up to ``{``) and, for one-shot,
``example`` with ``buggy`` and ``fixed``. Rendering is strict: a missing variable is an error.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


def _line_comment(text: str) -> str:
    """Text as Java ``//`` comment lines (for prompts that must read as a source file)."""
    return "\n".join("// " + line if line.strip() else "//" for line in text.splitlines())


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )
    env.filters["line_comment"] = _line_comment
    return env


def names() -> list[str]:
    return sorted(n[:-3] for n in environment().list_templates() if n.endswith(".j2") and not n.startswith("_"))


def render(name: str, **context) -> str:
    """Render ``templates/<name>.j2`` with ``context``; surrounding blank lines are dropped."""
    return environment().get_template(f"{name}.j2").render(**context).strip("\n")
