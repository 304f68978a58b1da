"""Every backend, and the one place that creates them: importing a backend module registers it
(:func:`nl2fix.sampling.backends.base.backend`); callers create backends through :func:`create`."""

from __future__ import annotations

from nl2fix.core.errors import Nl2FixError
from nl2fix.sampling.backends.base import BackendSettings, SamplingBackend, registered
from nl2fix.store.records import RunConfig

# Importing a backend module registers its backend, in the order errors list them.
# isort: off
from nl2fix.sampling.backends import openai_backend  # noqa: F401
from nl2fix.sampling.backends import vllm_backend  # noqa: F401
from nl2fix.sampling.backends import mutation_backend  # noqa: F401
from nl2fix.sampling.backends import replay_backend  # noqa: F401
# isort: on

NAMES = tuple(registered())


def create(config: RunConfig, *, concurrency: int = 8, retries: int | None = None) -> SamplingBackend:
    """The backend ``config.backend`` names, set up from the run configuration; ``retries`` is
    how often a failed request is retried (openai; default: its RetryPolicy)."""
    factory = registered().get(config.backend)
    if factory is None:
        raise Nl2FixError(f"unknown backend {config.backend!r}", f"choose one of {', '.join(NAMES)}")
    return factory(config, BackendSettings(concurrency=concurrency, retries=retries))
