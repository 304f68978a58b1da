"""The offline baseline: mutants of the buggy method (see :mod:`nl2fix.sampling.mutation`), each answered
as a fenced code block so it goes through extraction like a model's answer. No model, no network.

When a method has fewer distinct mutants than the samples asked for, the samples cycle through
them in order: a baseline that can only repeat itself, like a model that does, so every bug still
has n samples and pass@k stays defined for every k <= n (duplicates count as samples)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from nl2fix.prompting.prompt import target_method
from nl2fix.sampling.backends.base import BackendSettings, Choice, Request, backend
from nl2fix.sampling.mutation import mutants
from nl2fix.store.records import RunConfig


class MutationBackend:
    name = "mutation"
    conversational = False

    def __init__(self, seed: int = 0):
        self.seed = seed

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        for request in requests:
            wanted = max(request.indices, default=-1) + 1
            # the method as written, comments kept: a mutant differs from it by its one edit, and a
            # patch of it (``nl2fix fix``) deletes nothing else; comments are never edit sites
            made = list(
                itertools.islice(
                    mutants(request.bug.buggy_method or target_method(request.bug), self.seed, request.bug.id), wanted
                )
            )
            if not made:
                yield request, []
                continue
            yield request, [Choice(f"```java\n{made[i % len(made)]}\n```", "mutant") for i in request.indices]


@backend("mutation")
def create_mutation(config: RunConfig, settings: BackendSettings) -> MutationBackend:
    return MutationBackend(seed=config.seed)
