"""Pull the one candidate method out of a model's answer, or say why there is none. Pure.

Answers come as fenced blocks (possibly unterminated when the model ran out of tokens), ``<code>``
tags (the paper's ChatGPT prompt asked for them), bare code, or code wrapped in chatter; they may
show several methods (the buggy one first, a helper, a test). The candidate is the method named
like the target: the one with the target's parameter list if there are overloads, else the last
one shown (answers put the fix after the original). Completion-style answers continue the prompt's
method header, so the header is put back in front before looking.
"""

from __future__ import annotations

import enum
import html
import re
from dataclasses import dataclass

from nl2fix.java_methods import MethodSpan, find_methods, main_method

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_CODE_TAG = re.compile(r"<code[^>]*>(.*?)(?:</code>|\Z)", re.DOTALL | re.IGNORECASE)
_CODE_LIKE = re.compile(r"[;{}]")


class Failure(str, enum.Enum):
    """Why an answer yields no candidate."""

    EMPTY = "empty"
    NO_CODE = "no-code"
    NO_METHOD = "no-method"
    OTHER_METHOD = "other-method"
    TRUNCATED = "truncated"


@dataclass(frozen=True)
class Extraction:
    code: str | None
    failure: Failure | None = None
    detail: str = ""

    @property
    def error(self) -> str | None:
        """The reason as stored in ``SampleRecord.extraction_error``."""
        return None if self.failure is None else f"{self.failure.value}: {self.detail}"


def code_segments(response: str) -> list[str]:
    """Fenced blocks, else ``<code>`` blocks, else the whole answer."""
    fenced = [m.group(2) for m in _FENCE.finditer(response)]
    if fenced:
        return fenced
    tagged = [html.unescape(m.group(1)) for m in _CODE_TAG.finditer(response)]
    return tagged or [response]


def _dedent(text: str, span: MethodSpan) -> str:
    """The method's text with the indentation of its first line removed from every line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    indent = text[line_start : span.start]
    body = text[span.start : span.end]
    if indent.strip():
        return body
    lines = body.split("\n")
    return "\n".join([lines[0]] + [l[len(indent) :] if l.startswith(indent) else l.lstrip() for l in lines[1:]])


def _choose(spans: list[tuple[str, MethodSpan]], target: MethodSpan) -> tuple[str, MethodSpan]:
    def preference(item: tuple[int, tuple[str, MethodSpan]]) -> tuple:
        position, (_, span) = item
        return (span.params == target.params, span.arity == target.arity, position)

    return max(enumerate(spans), key=preference)[1]


def extract_method(response: str | None, target_method: str, prefix: str = "") -> Extraction:
    """The candidate for ``target_method`` in ``response``.

    ``prefix`` is the method header a completion prompt ended with; the answer continues it.
    """
    if not response or not response.strip():
        return Extraction(None, Failure.EMPTY, "the answer is empty")
    target = main_method(target_method)
    if target is None:
        raise ValueError("the target method has no declaration")
    blocks = code_segments(response)
    stages = ([[prefix + response]] if prefix else []) + [blocks] + ([] if blocks == [response] else [[response]])
    named: list[tuple[str, MethodSpan]] = []
    others: set[str] = set()
    for stage in stages:
        complete = []
        for segment in stage:
            for span in find_methods(segment):
                if span.name != target.name:
                    others.add(span.name)
                    continue
                named.append((segment, span))
                if span.complete:
                    complete.append((segment, span))
        if complete:
            segment, span = _choose(complete, target)
            return Extraction(_dedent(segment, span))
    if named:
        return Extraction(None, Failure.TRUNCATED, f"{target.name}'s body never closes (the answer was cut off)")
    if others:
        return Extraction(None, Failure.OTHER_METHOD, f"methods {', '.join(sorted(others))} but none named {target.name}")
    if _CODE_LIKE.search(response):
        return Extraction(None, Failure.NO_METHOD, "code without a method declaration")
    return Extraction(None, Failure.NO_CODE, "no code in the answer")
