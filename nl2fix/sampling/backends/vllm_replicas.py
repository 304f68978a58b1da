"""Data-parallel vLLM: ``--data-parallel-size N`` replicas, each a Ray actor holding its own copy of
the model (on ``tensor_parallel_size`` GPUs), the requests shared among them.

``vllm.LLM`` refuses ``data_parallel_size > 1`` in one process, so the replicas are nl2fix's: Ray
places each actor where its GPUs are (one node or many: ``RAY_ADDRESS``), and a model that spans
several GPUs inside an actor runs its workers through Ray too (``distributed_executor_backend="ray"``,
set by :func:`nl2fix.sampling.backends.vllm_args.with_parallelism`). The driver stays the only writer of the run
store: each shard's answers come back to it and are stored as they arrive.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator, Sequence
from typing import Any

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.model_tokenizers import local_tokenizer
from nl2fix.sampling.backends.base import Choice, ModelInfo, Request
from nl2fix.sampling.backends.vllm_args import devices_per_replica
from nl2fix.sampling.backends.vllm_model import INSTALL_HINT, VLLMBackend


def shard(requests: Sequence[Request], replicas: int) -> list[list[int]]:
    """Positions of ``requests`` for each replica: contiguous runs of nearly equal total samples
    (a request's ``n`` answers stay on one replica, so they share its prefix cache)."""
    total = sum(r.n for r in requests)
    shards: list[list[int]] = [[] for _ in range(replicas)]
    done = 0
    for position, request in enumerate(requests):
        # the replica whose share holds the middle of this request's samples
        target = min(replicas - 1, (2 * done + request.n) * replicas // (2 * total)) if total else position % replicas
        shards[target].append(position)
        done += request.n
    return shards


def actor_options(vllm_options: dict[str, Any], gpus_in_cluster: float) -> dict[str, Any]:
    """Ray resources of one replica: its model's GPUs when the cluster has GPUs, else one CPU."""
    if gpus_in_cluster > 0:
        return {"num_gpus": devices_per_replica(vllm_options)}
    return {"num_cpus": 1}


class _Replica:
    """One model inside a Ray actor; answers a shard of requests by position."""

    def __init__(self, model: str, seed: int, vllm_options: dict[str, Any]):
        self.backend = VLLMBackend(model, seed=seed, vllm_options=vllm_options)

    def context_window(self) -> int | None:
        return self.backend.model_info().context_window

    def generate(self, requests: list[Request]) -> list[tuple[int, list[Choice] | Exception]]:
        position = {id(r): i for i, r in enumerate(requests)}
        return [(position[id(r)], result) for r, result in self.backend.generate(requests)]


class VLLMReplicas:
    name = "vllm"
    conversational = True

    def __init__(self, model: str, *, seed: int, vllm_options: dict[str, Any], replicas: int):
        if importlib.util.find_spec("vllm") is None:  # before any actor starts: the driver counts with it too
            raise Nl2FixError("the vllm backend needs vLLM installed", INSTALL_HINT)
        try:
            import ray
        except ImportError as exc:
            raise Nl2FixError(
                "--data-parallel-size needs Ray", "pip install ray (the replicas are Ray actors)"
            ) from exc
        self._ray = ray
        self._own_ray = not ray.is_initialized()
        ray.init(address=os.environ.get("RAY_ADDRESS") or None, ignore_reinit_error=True, log_to_driver=False)
        options = actor_options(vllm_options, ray.cluster_resources().get("GPU", 0))
        actor = ray.remote(**options)(_Replica)
        # replicas differ in seed, or replicas given the same prompt would answer alike; Ray's types give
        # an actor's methods `.remote` only when declared with @ray.method (which would import Ray here)
        self._actors: list[Any] = [actor.remote(model, seed + i, vllm_options) for i in range(replicas)]
        self.model = model
        self._devices = devices_per_replica(vllm_options) * replicas
        self._info: ModelInfo | None = None

    def model_info(self) -> ModelInfo:
        if self._info is None:
            try:
                window = self._ray.get(self._actors[0].context_window.remote())
            except self._ray.exceptions.RayActorError as exc:
                raise Nl2FixError(
                    f"a vLLM replica could not start: {exc}", "check --model and the --vllm-arg options"
                ) from exc
            self._info = ModelInfo(
                context_window=window, tokenizer=local_tokenizer(self.model), stop_reasons=True, devices=self._devices
            )
        return self._info

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        requests = list(requests)
        pending = {}
        for actor, positions in zip(self._actors, shard(requests, len(self._actors))):
            if positions:
                pending[actor.generate.remote([requests[p] for p in positions])] = positions
        while pending:
            done, _ = self._ray.wait(list(pending), num_returns=1)
            positions = pending.pop(done[0])
            for local, result in self._ray.get(done[0]):
                yield requests[positions[local]], result

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        if self._own_ray:
            self._ray.shutdown()
