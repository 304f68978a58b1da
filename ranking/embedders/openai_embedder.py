"""``openai:MODEL``: any OpenAI-compatible ``/embeddings`` endpoint (the paper used
``text-embedding-ada-002``); batched, retried by the rule every OpenAI-compatible call follows
(:mod:`nl2fix.core.openai_client`: rate limits, server errors and timeouts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.openai_client import (
    MalformedResponse,
    RetryPolicy,
    endpoint,
    error_message,
    make_client,
    parsed,
    retrying,
)
from ranking.embedders.base import BATCH_SIZE, EmbedderSpec, embedder

if TYPE_CHECKING:
    import openai

DEFAULT_OPENAI_MODEL = "text-embedding-ada-002"


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
        self.base_url = endpoint(base_url)
        self.batch_size = batch_size
        self.retry = retry
        self.timeout = timeout
        self._client: openai.OpenAI | None = None

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            no_key = Nl2FixError(
                "OPENAI_API_KEY is not set",
                "export OPENAI_API_KEY, or pass --base-url for a local OpenAI-compatible server",
            )
            self._client = make_client(self.base_url, None, timeout=self.timeout, no_key=no_key)
        return self._client

    def _request(self, batch: list[str]) -> list[list[float]]:
        import openai

        client = self._openai()
        where = self.base_url or "the OpenAI API"
        try:
            response = retrying(self.retry)(
                parsed, lambda: client.embeddings.create(model=self.model, input=batch, encoding_format="float")
            )
        except openai.APIStatusError as exc:
            raise Nl2FixError(
                f"embedding request to {where} failed with HTTP {exc.status_code}: {error_message(exc)}",
                "check the model name and key; embeddings received so far are cached, re-run to resume",
            ) from exc
        except MalformedResponse as exc:
            raise Nl2FixError(
                f"the embedding endpoint {where}: {exc}", "embeddings received so far are cached; re-run to resume"
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


@embedder("openai", argument="MODEL", example=DEFAULT_OPENAI_MODEL)
def create_openai(spec: EmbedderSpec) -> OpenAIEmbedder:
    return OpenAIEmbedder(spec.argument, base_url=spec.base_url)
