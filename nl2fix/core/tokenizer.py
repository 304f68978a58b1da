"""What token counting needs of a model's own tokenizer: the :class:`Tokenizer` protocol, and
OpenAI's framing of chat messages for tokenizers without a chat template.

:mod:`nl2fix.core.tokens` counts with a Tokenizer; :mod:`nl2fix.core.model_tokenizers` provides
them (a Hugging Face tokenizer, a vLLM server's ``/tokenize``). Both import this module, neither
the other's.
"""

from __future__ import annotations

from typing import Any, Protocol

# OpenAI's accounting for chat messages: a few tokens of framing per message and per reply.
TOKENS_PER_MESSAGE = 4
TOKENS_PER_REPLY = 3

Message = dict[str, Any]
"""A chat message as the OpenAI API takes it: ``role`` and ``content`` (and whatever else a request adds)."""


class Tokenizer(Protocol):
    """A model's own tokenizer: what its server or vLLM counts, chat template included."""

    name: str

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` alone (no special tokens)."""

    def decode(self, ids: list[int]) -> str: ...

    def prompt_tokens(self, messages: list[Message], chat: bool) -> int:
        """Tokens the model's server or vLLM counts for a request: chat messages through the chat template, or one
        completion prompt (``messages[0]``) with its special tokens."""
