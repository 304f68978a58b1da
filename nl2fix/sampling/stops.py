"""Stop sequences: end an answer where the fixed method ends, not at ``max_tokens``.

Defaults by model style (``--stop`` replaces them, ``--stop none`` turns them off):

- ``completion``: the answer continues the method header the prompt ends with, so it ends at the
  line that closes the method: a ``}`` indented as the buggy method's own closing brace;
- ``chat``: the prompt asks for the method in one fenced block, so the answer ends at the fence
  that closes it (an opening fence names its language, ```` ```java ````, and does not match);
- ``edit``: none (edit models answer with the bare method).

Servers and vLLM leave the stop sequence out of the text. :func:`restore` puts it back, so the stored
answer is what the model wrote and a completion's method is whole. That needs the backend to say
which sequence ended an answer, as vLLM does (``stop_reason``) and OpenAI does not (its
``finish_reason: stop`` is also the model's own end): the defaults are sent only to a backend that
says so; stop sequences given with ``--stop`` are sent to any, and left out of the answer where
it does not say.
"""

from __future__ import annotations

from nl2fix.core.domain import ModelStyle

CLOSING_FENCE = "\n```\n"
NONE = "none"
"""The ``--stop`` value that turns stop sequences off."""


def method_end(method: str) -> str:
    """The stop sequence that ends a completion of ``method``: a newline and its closing line."""
    lines = method.rstrip().split("\n")
    last = lines[-1] if len(lines) > 1 else "}"
    indent = last[: len(last) - len(last.lstrip())]
    return "\n" + indent + "}"


def default_stops(style: ModelStyle, method: str) -> tuple[str, ...]:
    """The stop sequences for answers of ``style`` that fix ``method`` (the buggy method as shown)."""
    if style is ModelStyle.COMPLETION:
        return (method_end(method),)
    if style is ModelStyle.CHAT:
        return (CLOSING_FENCE,)
    return ()


def parse(values: tuple[str, ...] | list[str]) -> list[str] | None:
    """``--stop`` values as given (backslash escapes such as ``\\n`` decoded): None for none given
    (the defaults), ``[]`` for ``none``."""
    if not values:
        return None
    if list(values) == [NONE]:
        return []
    return [v.encode("latin-1", "backslashreplace").decode("unicode_escape") for v in values]


def restore(text: str, stop_reason: str | int | None) -> str:
    """``text`` with the stop sequence that ended it (``stop_reason``, as vLLM reports it) put back."""
    return text + stop_reason if isinstance(stop_reason, str) else text
