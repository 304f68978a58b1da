#!/usr/bin/env python3
"""`nl2fix compare` of a conversation run and a zero-shot run at equal sample budgets, on the example
benchmark, with the scripted model of the tests (``tests/helpers/conversation_model.py``, no mutation backend)
served by the local OpenAI-compatible test server; validation is real (fast engine, confined).

    python3 scripts/conversation_example.py [WORK_DIR] [--results DIR]     # prints the comparison as Markdown
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for tests.helpers

import bench_results
from cli_in_process import nl2fix

from tests.helpers.conversation_model import model
from tests.helpers.openai_server import OpenAIServer

BUGS = ("Textkit-3", "Rangekit-2", "Textkit-1")
"""Two bugs the scripted model fixes once told how its answer failed, one it never fixes."""
BUDGET, ROUNDS, PER_ROUND = 8, 4, 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", nargs="?", type=Path, default=None)
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    os.environ.setdefault("OPENAI_API_KEY", "local")
    work = args.work or Path(tempfile.mkdtemp(prefix="nl2fix-conversation-"))
    selection = [arg for bug in BUGS for arg in ("--bug", bug)]
    runs = []
    for strategy, extra in (
        ("zero-shot", []),
        ("conversation", ["--rounds", ROUNDS, "--samples-per-round", PER_ROUND]),
    ):
        with OpenAIServer(model=model()) as server:
            start = time.perf_counter()
            nl2fix(
                "run",
                "--dataset",
                "example",
                *selection,
                "--run",
                work / strategy,
                "--base-url",
                server.url,
                "--model",
                "gpt-4o-mini",
                "-n",
                BUDGET,
                "--strategy",
                strategy,
                *extra,
                "--quiet",
                "--format",
                "json",
                "--no-codebleu",
            )
            print(
                f"{strategy}: {len(server.successful('/v1/chat/completions'))} requests, "
                f"{time.perf_counter() - start:.1f} s (sampling, validation, ranking)",
                file=sys.stderr,
            )
        runs.append(work / strategy)
    print(nl2fix("compare", *runs, "--format", "md"))


if __name__ == "__main__":
    main()
