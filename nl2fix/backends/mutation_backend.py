"""The offline baseline: mutants of the buggy method (see :mod:`nl2fix.mutation`), each answered
as a fenced code block so it goes through extraction like a model's answer. No model, no network."""

from __future__ import annotations

import itertools
from typing import Iterator, Sequence

from nl2fix.backends import Choice, Request
from nl2fix.mutation import mutants
from nl2fix.prompting import target_method


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
            made = list(itertools.islice(mutants(target_method(request.bug), self.seed, request.bug.id), wanted))
            yield request, [Choice(f"```java\n{made[i]}\n```", "mutant") for i in request.indices if i < len(made)]
