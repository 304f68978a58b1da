"""``st:MODEL_OR_PATH``: a local sentence-transformers model (``pip install nl2fix[st]``).

A path that exists is the model (named by its absolute path, so ``st:tinyst`` and
``st:/abs/tinyst`` share their cached vectors); one that looks like a path (``/``, ``./``, ``~``)
and does not exist is an error at once; a hub id must be in the local Hugging Face cache when the
hub is offline (``HF_HUB_OFFLINE``) or cannot be reached, which is checked once, quickly, before
loading.
"""

from __future__ import annotations

import os
import socket
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nl2fix.core.errors import Nl2FixError
from ranking.embedders.base import EmbedderSpec, embedder

HUB_PROBE_TIMEOUT = 3.0
"""Seconds to wait for the Hugging Face hub to answer before taking it for unreachable."""


def _hub_reachable() -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    endpoint = urllib.parse.urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        with socket.create_connection((endpoint.hostname, endpoint.port or 443), timeout=HUB_PROBE_TIMEOUT):
            return True
    except OSError:  # no route, no name resolution, refused: all the same here
        return False


def _in_hub_cache(model_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    found = try_to_load_from_cache(model_id, "config.json")
    return isinstance(found, str)


def resolve_st_model(model: str) -> str:
    """A sentence-transformers model argument as it will be loaded: a local folder's absolute path,
    or a hub id that can be had here; Nl2FixError at once for neither."""
    path = Path(model).expanduser()
    if path.exists():
        return str(path.resolve())
    if model.startswith(("/", "./", "../", "~")) or model.count("/") > 1:
        raise Nl2FixError(
            f"no sentence-transformers model at {path}", "pass an existing model folder: st:/path/to/model"
        )
    if not _in_hub_cache(model) and not _hub_reachable():
        raise Nl2FixError(
            f"{model!r} is neither a local folder nor in the Hugging Face cache, and the hub cannot be reached",
            "pass a local model folder (st:/path/to/model), or download the model where there is a network",
        )
    return model


class SentenceTransformerEmbedder:
    """A local sentence-transformers model, by hub name or path; loaded on first use."""

    cacheable = True

    def __init__(self, model: str, *, batch_size: int = 32, name: str | None = None, extra: str = "st"):
        self.model = resolve_st_model(model)
        self.name = name or f"st:{self.model}"
        self.batch_size = batch_size
        self.extra = extra
        """The nl2fix extra that installs what this model needs (named when it is missing)."""
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise Nl2FixError(
                    f"the {self.name.split(':')[0]} embedder needs sentence-transformers, which is not installed",
                    f"pip install 'nl2fix[{self.extra}]'",
                ) from exc
            try:
                # on the CPU: the same vectors on every machine, whatever accelerator it has
                self._loaded = SentenceTransformer(self.model, device="cpu")
            except (OSError, ValueError) as exc:
                raise Nl2FixError(
                    f"cannot load sentence-transformers model {self.model!r}: {exc}",
                    "pass a local model folder or a model name already in the Hugging Face cache",
                ) from exc
        return self._loaded

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0))
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float64)


@embedder("st", argument="MODEL_OR_PATH")
def create_sentence_transformer(spec: EmbedderSpec) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(spec.argument)
