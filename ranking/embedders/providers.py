"""Every embedder, and the one place that makes them from the ``--embedder`` string: importing an
embedder module registers it (:func:`ranking.embedders.base.embedder`)."""

from __future__ import annotations

from nl2fix.core.errors import Nl2FixError
from ranking.embedders.base import EMBEDDERS, Embedder, EmbedderSpec

# Importing an embedder module registers its embedder, in the order errors list them.
# isort: off
from ranking.embedders import tfidf  # noqa: F401
from ranking.embedders import openai_embedder  # noqa: F401
from ranking.embedders import sentence_transformer  # noqa: F401
from ranking.embedders import minilm  # noqa: F401
# isort: on


def parse_embedder(text: str, *, base_url: str | None = None) -> Embedder:
    """``tfidf``, ``openai:MODEL``, ``st:MODEL_OR_PATH`` or ``minilm`` (``base_url``: for ``openai:MODEL``)."""
    kind, _, argument = text.strip().partition(":")
    entry = EMBEDDERS.entries().get(kind)
    if entry is not None and bool(argument) == (entry.argument is not None):
        return entry.factory(EmbedderSpec(kind, argument, base_url))
    usages = [r.usage(k) for k, r in EMBEDDERS.entries().items()]
    raise Nl2FixError(f"unknown embedder {text!r}", f"use {', '.join(usages[:-1])} or {usages[-1]}")
