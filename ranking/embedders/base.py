"""The embedder interface: one small protocol, the registry every embedder module adds itself to,
and the run store's cache of model vectors.

An embedder is named by the ``--embedder`` string ``KIND`` or ``KIND:ARGUMENT``; an embedder module
registers a factory for its kind with ``@embedder(kind)``. This module imports none of them
(:mod:`ranking.embedders.providers` does, and reads the string).

Model embeddings are cached in the run store by the hash of the text (see :func:`embed_texts`),
so ranking again, or ranking after a crash, does not ask for them again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.registry import Registry
from nl2fix.java_source.text import text_hash
from nl2fix.store.run_store import RunStore

BATCH_SIZE = 256
"""Inputs per embeddings request, and texts embedded between two cache writes."""


class Embedder(Protocol):
    name: str
    """Identifies the vectors: part of the ranker key and of the cache key."""
    cacheable: bool
    """Whether a text's vector depends on the text alone (so it may be cached by text hash)."""

    def embed(self, texts: Sequence[str]):
        """One row per text: a numpy array, or a scipy sparse matrix."""


@dataclass(frozen=True)
class EmbedderSpec:
    """An embedder as ``--embedder`` (and ``--base-url``) name it."""

    kind: str
    argument: str = ""
    """What follows ``KIND:`` (a model name or path); empty for a kind that takes none."""
    base_url: str | None = None
    """The endpoint of an embedder that calls one (openai)."""


EmbedderFactory = Callable[[EmbedderSpec], Embedder]


@dataclass(frozen=True)
class Registration:
    factory: EmbedderFactory
    argument: str | None
    """What the argument after ``KIND:`` is (``MODEL``); None: the kind takes none."""
    example: str | None
    """An argument to show in the usage."""

    def usage(self, kind: str) -> str:
        """How the ``--embedder`` string names this kind: ``openai:MODEL (e.g. openai:text-embedding-ada-002)``."""
        text = f"{kind}:{self.argument}" if self.argument else kind
        return f"{text} (e.g. {kind}:{self.example})" if self.example else text


EMBEDDERS: Registry[str, Registration] = Registry("embedder")


def embedder(
    kind: str, *, argument: str | None = None, example: str | None = None
) -> Callable[[EmbedderFactory], EmbedderFactory]:
    """Registers the decorated factory as the embedder ``--embedder KIND[:ARGUMENT]`` makes."""

    def register(factory: EmbedderFactory) -> EmbedderFactory:
        EMBEDDERS.add(kind, Registration(factory, argument, example))
        return factory

    return register


def embed_texts(embedder: Embedder, texts: Sequence[str], store: RunStore | None = None):
    """Rows for ``texts``; a cacheable embedder's vectors come from, and go to, the run store.

    Cached vectors are float32; fresh ones are rounded to float32 too, so a ranking computed from
    the cache equals the one computed when the vectors arrived.
    """
    if store is None or not embedder.cacheable:
        return embedder.embed(texts)
    hashes = [text_hash(t) for t in texts]
    found = store.embeddings(embedder.name, set(hashes))
    missing = list({h: t for h, t in zip(hashes, texts) if h not in found}.items())
    for start in range(0, len(missing), BATCH_SIZE):
        chunk = missing[start : start + BATCH_SIZE]
        vectors = np.asarray(embedder.embed([t for _, t in chunk]), dtype=np.float32)
        fresh = {h: v for (h, _), v in zip(chunk, vectors)}
        store.save_embeddings(embedder.name, fresh)
        found.update(fresh)
    if not hashes:
        return np.zeros((0, 0), dtype=np.float32)
    if len({found[h].shape for h in hashes}) > 1:
        raise Nl2FixError(
            f"cached {embedder.name} embeddings have different sizes in {store.run_dir}",
            "the model behind this name changed; rank with another embedder name or a new run",
        )
    return np.vstack([found[h] for h in hashes])
