"""Answers imported from a patch file in the NL2Fix reference format (see :mod:`nl2fix.sampling.replay_format`),
so published patch sets go through the same extraction, validation and ranking.
Patch ``i`` of a bug is sample ``i``; a bug absent from the file, or without patches there, is a failed
request that says so."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from nl2fix.core.bug_ids import canonical_key
from nl2fix.core.errors import Nl2FixError
from nl2fix.sampling import replay_format as replay
from nl2fix.sampling.backends.base import BackendSettings, Choice, Request, backend
from nl2fix.store.records import RunConfig


class ReplayBackend:
    name = "replay"
    conversational = False

    def __init__(self, path: str):
        self.path = path
        self._patches = replay.by_bug(replay.load(path))

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[Request, list[Choice] | Exception]]:
        for request in requests:
            bug = canonical_key(request.bug.id)
            patches = self._patches.get(bug) if bug is not None else None
            if not patches:
                why = "is not in" if patches is None else "has no patches in"
                yield request, Nl2FixError(f"{request.bug.id} {why} the patch file {self.path}")
                continue
            yield request, [Choice(patches[i], "replayed") for i in request.indices if i < len(patches)]


@backend("replay")
def create_replay(config: RunConfig, settings: BackendSettings) -> ReplayBackend:
    if not config.replay_file:
        raise Nl2FixError("the replay backend needs a patch file", "pass --replay-file FILE")
    return ReplayBackend(config.replay_file)
