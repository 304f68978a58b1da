"""Issue-tracker markup turned into plain text: Jira wiki markup, GitHub Markdown, and the HTML
that SourceForge and the Google Code archive carry. Pure functions.

Code stays verbatim (a stack trace or a snippet is what a model needs most); formatting marks,
link syntax and tags go; the text a reader would see is kept.
"""

from __future__ import annotations

import html
import re

_JIRA_BLOCK = re.compile(r"\{(code|noformat|quote|panel)(?::[^}]*)?\}(.*?)\{\1\}", re.S)
_JIRA_OPEN_BLOCK = re.compile(r"\{(?:code|noformat|quote|panel)(?::[^}]*)?\}")
_JIRA_COLOR = re.compile(r"\{color(?::[^}]*)?\}")
_JIRA_LINK = re.compile(r"\[(?:([^|\]\n]*)\|)?((?:https?|ftp|mailto|file):[^\]\s]+|#[^\]\s]+)\]")
_JIRA_MONO = re.compile(r"\{\{(.*?)\}\}", re.S)
_JIRA_HEADING = re.compile(r"^\s*(?:h[1-6]|bq)\.\s+", re.M)
_JIRA_EFFECT = re.compile(r"(?<![\w*_+\-^~?])([*_+\-^~]|\?\?)(?=\S)(.+?)(?<=\S)\1(?![\w*_+\-^~?])")
_JIRA_TABLE = re.compile(r"\|\|?")
_JIRA_IMAGE = re.compile(r"!([^!\s|]+)(?:\|[^!]*)?!")
_JIRA_USER = re.compile(r"\[~([^\]]+)\]")

_MD_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.S | re.M)
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_MD_CODE = re.compile(r"`([^`\n]+)`")
_MD_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_EM = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_MD_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.M)
_MD_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(
    r"</?(?:a|b|i|u|s|p|br|hr|em|tt|h[1-6]|ul|ol|li|dl|dt|dd|pre|code|kbd|sub|sup|div|span|font|img|"
    r"table|thead|tbody|tr|td|th|strong|details|summary|blockquote|strike|del|ins)(?:\s[^<>]*)?/?>",
    re.I,
)
_MD_INDENTED = re.compile(r"(?:(?<=\n\n)|\A)((?:(?: {4}|\t)[^\n]*(?:\n|\Z))+)")
_BREAK = re.compile(r"<br\s*/?>|</p>|</div>|</li>", re.I)
_BLANKS = re.compile(r"\n{3,}")
_PLACEHOLDER = "\x00{}\x00"
_RESTORE = re.compile("\x00(\\d+)\x00")


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


class _Verbatim:
    """Code blocks set aside while the markup around them is rewritten, then put back."""

    def __init__(self) -> None:
        self.blocks: list[str] = []

    def keep(self, code: str) -> str:
        self.blocks.append(code.strip("\n"))
        return "\n" + _PLACEHOLDER.format(len(self.blocks) - 1) + "\n"

    def restore(self, text: str) -> str:
        return _RESTORE.sub(lambda m: self.blocks[int(m.group(1))], text)


def jira_to_text(markup: str | None) -> str:
    """Jira wiki markup (REST API v2 ``description`` and comment ``body``) as plain text."""
    if not markup:
        return ""
    verbatim = _Verbatim()

    def block(m: re.Match) -> str:
        kind, body = m.group(1), m.group(2)
        return verbatim.keep(body) if kind in ("code", "noformat") else "\n" + body.strip("\n") + "\n"

    text = markup.replace("\r\n", "\n")
    text = _JIRA_BLOCK.sub(block, text)
    text = _JIRA_OPEN_BLOCK.sub("", text)
    text = _JIRA_COLOR.sub("", text)
    text = _JIRA_MONO.sub(lambda m: verbatim.keep(m.group(1)).strip("\n"), text)
    text = _JIRA_USER.sub(r"\1", text)
    text = _JIRA_IMAGE.sub(r"\1", text)
    text = _JIRA_LINK.sub(lambda m: m.group(1) if m.group(1) else m.group(2), text)
    text = _JIRA_HEADING.sub("", text)
    text = _JIRA_EFFECT.sub(r"\2", text)
    text = "\n".join(
        _JIRA_TABLE.sub(" | ", line).strip(" |") if line.lstrip().startswith("|") else line for line in text.split("\n")
    )
    return _tidy(verbatim.restore(text))


def markdown_to_text(markdown: str | None) -> str:
    """GitHub-flavoured Markdown (an issue ``body`` or comment) as plain text."""
    if not markdown:
        return ""
    verbatim = _Verbatim()
    text = markdown.replace("\r\n", "\n")
    text = _MD_COMMENT.sub("", text)
    text = _MD_FENCE.sub(lambda m: verbatim.keep(m.group(2)), text)
    text = _MD_INDENTED.sub(lambda m: verbatim.keep(m.group(1)) + "\n", text)
    text = _MD_CODE.sub(lambda m: verbatim.keep(m.group(1)).strip("\n"), text)
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_HEADING.sub("", text)
    text = _MD_STRONG.sub(r"\2", text)
    text = _MD_EM.sub(r"\2", text)
    text = _TAG.sub("", _BREAK.sub("\n", text))
    return _tidy(verbatim.restore(html.unescape(text)))


def html_to_text(fragment: str | None) -> str:
    """An HTML fragment (SourceForge and Google Code archive posts) as plain text."""
    if not fragment:
        return ""
    text = _TAG.sub("", _BREAK.sub("\n", fragment))
    return _tidy(html.unescape(text))
