"""``tfidf`` (the default): scikit-learn TF-IDF over Java tokens, fitted on the texts it is given
(the run's corpus), offline and deterministic; never cached (it depends on the corpus)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nl2fix.java_source.lexer import Kind, code_tokens
from ranking.embedders.base import EmbedderSpec, embedder

if TYPE_CHECKING:
    import scipy.sparse

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
        import scipy.sparse
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not texts:
            return scipy.sparse.csr_matrix((0, 0))
        vectorizer = TfidfVectorizer(analyzer=java_terms)
        try:
            return vectorizer.fit_transform(list(texts)).tocsr()
        except ValueError:  # no text has a single token: every vector is zero
            return scipy.sparse.csr_matrix((len(texts), 1))


@embedder("tfidf")
def create_tfidf(spec: EmbedderSpec) -> TfidfEmbedder:
    return TfidfEmbedder()
