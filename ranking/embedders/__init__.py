"""Embedders: what turns candidate and buggy-method texts into vectors for the similarity rankers.

:mod:`~ranking.embedders.base` holds the interface and the registry, and caches a model's vectors in
the run store; each embedder module registers itself with ``@embedder(kind)``;
:mod:`~ranking.embedders.providers` imports them all and reads the ``--embedder`` string. Heavy
third-party packages (scikit-learn, openai, sentence-transformers) are imported only when an
embedder embeds. May import nl2fix.core, nl2fix.java_source and nl2fix.store.
"""
