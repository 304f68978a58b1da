"""Every backend, and the one place that creates them: importing a backend module registers it
(:func:`nl2fix.sampling.backends.base.backend`); callers create backends through :func:`create`."""

from __future__ import annotations

from nl2fix.sampling.backends.base import BACKENDS, BackendSettings, SamplingBackend
from nl2fix.store.records import RunConfig

# Importing a backend module registers its backend, in the order errors list them.
# isort: off
from nl2fix.sampling.backends import openai_backend  # noqa: F401
from nl2fix.sampling.backends import vllm_backend  # noqa: F401
from nl2fix.sampling.backends import mutation_backend  # noqa: F401
from nl2fix.sampling.backends import replay_backend  # noqa: F401
# isort: on

NAMES = BACKENDS.names()


def create(config: RunConfig, *, concurrency: int = 8, retries: int | None = None) -> SamplingBackend:
    """The backend ``config.backend`` names, set up from the run configuration; ``retries`` is
    how often a failed request is retried (openai; default: its RetryPolicy)."""
    return BACKENDS.get(config.backend)(config, BackendSettings(concurrency=concurrency, retries=retries))
