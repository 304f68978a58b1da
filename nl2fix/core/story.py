"""A candidate's story: what was done to it, step by step, in the words a user reads when a verdict
looks wrong (its artifact folder's ``validation.log``; ``nl2fix validate --candidate HASH -v``).

The step that does something tells it with :func:`tell`, which logs it (seen with ``-v``) and, while
a story is being kept for the candidate in hand (:func:`kept`), adds it to that story. A story is
the current thread's (a context variable): worker threads validating other candidates at the same
time write their own.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_story: ContextVar[list[str] | None] = ContextVar("nl2fix_story", default=None)


def tell(log: logging.Logger, message: str, *args: object) -> None:
    """``message % args`` logged at info level on ``log`` and added to the story being kept, if any."""
    log.info(message, *args)
    lines = _story.get()
    if lines is not None:
        lines.append(message % args if args else message)


@contextmanager
def kept() -> Iterator[list[str]]:
    """Keep the story of what runs inside: the lines told, in order (read them once it ends)."""
    lines: list[str] = []
    token = _story.set(lines)
    try:
        yield lines
    finally:
        _story.reset(token)
