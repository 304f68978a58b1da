"""The ``vllm`` backend: one model in this process (:mod:`~nl2fix.sampling.backends.vllm_model`),
or ``--data-parallel-size`` copies of it as Ray actors (:mod:`~nl2fix.sampling.backends.vllm_replicas`)."""

from __future__ import annotations

from nl2fix.sampling.backends.base import BackendSettings, SamplingBackend, backend
from nl2fix.sampling.backends.vllm_model import VLLMBackend
from nl2fix.sampling.backends.vllm_replicas import VLLMReplicas
from nl2fix.store.records import RunConfig


@backend("vllm")
def create_vllm(config: RunConfig, settings: BackendSettings) -> SamplingBackend:
    # RunConfig.engine_args holds vLLM's options (the stored name of the field)
    if config.data_parallel_size > 1:
        return VLLMReplicas(
            config.model, seed=config.seed, vllm_options=config.engine_args or {}, replicas=config.data_parallel_size
        )
    return VLLMBackend(config.model, seed=config.seed, vllm_options=config.engine_args)
