"""What a sampling run did, as ``nl2fix sample`` reports it."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ERRORS_SHOWN = 3


@dataclass
class SampleSummary:
    samples: int = 0
    """Samples stored for the selected bugs (this run and earlier ones)."""
    new_samples: int = 0
    unique_candidates: int = 0
    unextractable: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_requests: int = 0
    """Requests that failed for good this run (their samples are asked again on the next run)."""
    short_bugs: list[str] = field(default_factory=list)
    """Bugs with fewer samples than asked for (failed requests, fewer mutants or replayed patches)."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Bugs that could not be prompted, with why."""
    errors: list[str] = field(default_factory=list)
    """The first few request errors."""
    failed_bugs: list[str] = field(default_factory=list)
    """Bugs with a request that failed for good this run."""

    @property
    def failed(self) -> bool:
        """Some bug was not fully asked for: a request failed, or the bug could not be prompted."""
        return bool(self.failed_requests or self.skipped)

    def __str__(self) -> str:
        lines = [
            f"{self.samples} samples ({self.new_samples} new), {self.unique_candidates} unique candidates, "
            f"{self.unextractable} without an extractable method; "
            f"tokens: {self.prompt_tokens} prompt + {self.completion_tokens} completion"
        ]
        if self.short_bugs:
            lines.append(
                f"{len(self.short_bugs)} bugs have fewer samples than asked for: "
                f"{', '.join(self.short_bugs[:10])}" + (" ..." if len(self.short_bugs) > 10 else "")
            )
        if self.failed_requests:
            lines.append(
                f"{self.failed_requests} requests failed for {len(self.failed_bugs)} bugs "
                f"({', '.join(self.failed_bugs)}; re-run to ask again): " + "; ".join(self.errors)
            )
        if self.skipped:
            lines.append(f"{len(self.skipped)} bugs could not be prompted ({', '.join(self.skipped)}):")
            lines += [f"  {bug}: {why}" for bug, why in self.skipped.items()]
        return "\n".join(lines)
