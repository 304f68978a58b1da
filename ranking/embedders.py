"""Embedders behind one small interface, chosen by the ``--embedder`` string.

- ``tfidf`` (default): scikit-learn TF-IDF over Java tokens, fitted on the texts it is given
  (the run's corpus), offline and deterministic; never cached (it depends on the corpus).
- ``openai:MODEL``: any OpenAI-compatible ``/embeddings`` endpoint (the paper used
  ``text-embedding-ada-002``); batched, retried on rate limits, server errors and timeouts.
- ``st:MODEL_OR_PATH``: a local sentence-transformers model (``pip install nl2fix[st]``). A path
  that exists is the model (named by its absolute path, so ``st:tinyst`` and ``st:/abs/tinyst``
  share their cached vectors); one that looks like a path (``/``, ``./``, ``~``) and does not exist
  is an error at once; a hub id must be in the local Hugging Face cache when the hub is offline
  (``HF_HUB_OFFLINE``) or cannot be reached, which is checked once, quickly, before loading.

Model embeddings are cached in the run store by the hash of the text (see :func:`embed_texts`),
so ranking again, or ranking after a crash, does not ask for them again.
"""

from __future__ import annotations

import os
import re
import socket
import urllib.parse
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np
import openai
import scipy.sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from tenacity import Retrying, retry_if_exception, stop_after_attempt

# One retry rule for every OpenAI-compatible call: sampling's (rate limits, 5xx, timeouts; Retry-After).
from nl2fix.sampling.backends.openai_backend import RetryPolicy, _retryable, _Wait
from nl2fix.core.errors import Nl2FixError
from nl2fix.java_source.text import text_hash
from nl2fix.java_source.lexer import Kind, code_tokens
from nl2fix.store.run_store import RunStore

BATCH_SIZE = 256
"""Inputs per embeddings request, and texts embedded between two cache writes."""

DEFAULT_OPENAI_MODEL = "text-embedding-ada-002"


class Embedder(Protocol):
    name: str
    """Identifies the vectors: part of the ranker key and of the cache key."""
    cacheable: bool
    """Whether a text's vector depends on the text alone (so it may be cached by text hash)."""

    def embed(self, texts: Sequence[str]):
        """One row per text: a numpy array, or a scipy sparse matrix."""


_IDENTIFIER_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def java_terms(code: str) -> list[str]:
    """TF-IDF terms of Java code: every code token (identifiers, literals, operators; no comments),
    plus the lower-cased camelCase/snake_case parts of each compound identifier, so that
    ``getMaxValue`` and ``maxValue`` share the terms ``max`` and ``value``."""
    terms: list[str] = []
    for token in code_tokens(code):
        terms.append(token.text)
        if token.kind is Kind.WORD:
            parts = _IDENTIFIER_PARTS.findall(token.text)
            if len(parts) > 1:
                terms.extend(p.lower() for p in parts)
    return terms


class TfidfEmbedder:
    """TF-IDF fitted on exactly the texts passed to one :meth:`embed` call."""

    name = "tfidf"
    cacheable = False

    def embed(self, texts: Sequence[str]) -> scipy.sparse.csr_matrix:
        if not texts:
            return scipy.sparse.csr_matrix((0, 0))
        vectorizer = TfidfVectorizer(analyzer=java_terms)
        try:
            return vectorizer.fit_transform(list(texts)).tocsr()
        except ValueError:  # no text has a single token: every vector is zero
            return scipy.sparse.csr_matrix((len(texts), 1))


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI)."""

    cacheable = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        batch_size: int = BATCH_SIZE,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 120.0,
    ):
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.batch_size = batch_size
        self.retry = retry
        self.timeout = timeout
        self._client: openai.OpenAI | None = None

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            key = os.environ.get("OPENAI_API_KEY")
            if not key and not self.base_url:
                raise Nl2FixError(
                    "OPENAI_API_KEY is not set",
                    "export OPENAI_API_KEY, or pass --base-url for a local OpenAI-compatible server",
                )
            # A local server needs no key, but the client insists on one; retries are ours (tenacity).
            self._client = openai.OpenAI(
                api_key=key or "unused", base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
        return self._client

    def _request(self, batch: list[str]) -> list[list[float]]:
        client = self._openai()
        retrying = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.retry.attempts),
            wait=_Wait(self.retry),
            reraise=True,
        )
        where = self.base_url or "the OpenAI API"
        try:
            response = retrying(
                client.embeddings.create, model=self.model, input=batch, encoding_format="float"
            )
        except openai.APIStatusError as exc:
            said = exc.body.get("message") if isinstance(exc.body, dict) else None
            raise Nl2FixError(
                f"embedding request to {where} failed with HTTP {exc.status_code}: {said or exc.message}",
                "check the model name and key; embeddings received so far are cached, re-run to resume",
            ) from exc
        except openai.APIConnectionError as exc:
            raise Nl2FixError(
                f"cannot reach the embedding endpoint {where} after {self.retry.attempts} attempts: {exc}",
                "check --base-url / OPENAI_BASE_URL; embeddings received so far are cached, re-run to resume",
            ) from exc
        rows = sorted(response.data, key=lambda d: d.index)
        if len(rows) != len(batch):
            raise Nl2FixError(f"{where} returned {len(rows)} embeddings for {len(batch)} inputs")
        return [row.embedding for row in rows]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._request(texts[start : start + self.batch_size]))
        return np.asarray(vectors, dtype=np.float64) if vectors else np.zeros((0, 0))


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
        raise Nl2FixError(f"no sentence-transformers model at {path}", "pass an existing model folder: st:/path/to/model")
    if not _in_hub_cache(model) and not _hub_reachable():
        raise Nl2FixError(
            f"{model!r} is neither a local folder nor in the Hugging Face cache, and the hub cannot be reached",
            "pass a local model folder (st:/path/to/model), or download the model where there is a network",
        )
    return model


class SentenceTransformerEmbedder:
    """A local sentence-transformers model, by hub name or path; loaded on first use."""

    cacheable = True

    def __init__(self, model: str, *, batch_size: int = 32):
        self.model = resolve_st_model(model)
        self.name = f"st:{self.model}"
        self.batch_size = batch_size
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise Nl2FixError(
                    "the st: embedder needs sentence-transformers, which is not installed",
                    "pip install 'nl2fix[st]'",
                ) from exc
            try:
                self._loaded = SentenceTransformer(self.model)
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


def parse_embedder(text: str, *, base_url: str | None = None) -> Embedder:
    """``tfidf``, ``openai:MODEL`` or ``st:MODEL_OR_PATH``."""
    kind, _, arg = text.strip().partition(":")
    if kind == "tfidf" and not arg:
        return TfidfEmbedder()
    if kind == "openai" and arg:
        return OpenAIEmbedder(arg, base_url=base_url)
    if kind == "st" and arg:
        return SentenceTransformerEmbedder(arg)
    raise Nl2FixError(
        f"unknown embedder {text!r}",
        f"use tfidf, openai:MODEL (e.g. openai:{DEFAULT_OPENAI_MODEL}) or st:MODEL_OR_PATH",
    )


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
