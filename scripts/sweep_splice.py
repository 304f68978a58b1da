#!/usr/bin/env python3
"""Where splicing finds each dataset bug's buggy method in Defects4J's buggy file, and which
bugs need a correction (a drifted line range, a text that differs from the file's) or cannot be
spliced at all.

The file comes from the bug's prepared checkout in the nl2fix cache when there is one, else from
a bare ``defects4j checkout`` into a temporary folder (no compile: about 0.5 CPU-s a bug). Needs
a Defects4J; without one it says so and exits 0. Exit status 1 when a method is not found.

    python3 scripts/sweep_splice.py                         # every bug of the installed projects
    python3 scripts/sweep_splice.py --projects Cli --limit 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import d4j_bugs

from defects4j_adapter import cache
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from defects4j_adapter.workspaces.local import detect_encoding
from defects4j_adapter.workspaces.prepare import Preparation, PrepareStatus, check_location


def buggy_file(d4j, bug, scratch: Path) -> bytes:
    prepared = d4j_workspace.checkout_root(cache.cache_dir(), bug.id)
    if d4j_workspace.load_state(prepared, f"{bug.number}b") is not None:
        return (prepared / bug.path).read_bytes()
    work = scratch / bug.id
    done = d4j.checkout(bug.project, f"{bug.number}b", work)
    if not done.ok:
        raise OSError(f"cannot check out: {done.describe(300)}")
    return (work / bug.path).read_bytes()


def sweep_one(d4j, bug, scratch: Path) -> Preparation:
    try:
        data = buggy_file(d4j, bug, scratch)
        return check_location(bug, data.decode(detect_encoding([data])))
    except (OSError, UnicodeDecodeError) as exc:
        return Preparation(bug, PrepareStatus.FAILED, str(exc))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d4j_bugs.add_arguments(parser)
    parser.add_argument("--workers", type=int, default=2, help="Checkouts at once (default 2).")
    args, d4j, bugs = d4j_bugs.parse(parser)
    if d4j is None:
        return 0
    with tempfile.TemporaryDirectory(prefix="nl2fix-sweep-") as scratch, ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(lambda b: sweep_one(d4j, b, Path(scratch)), bugs))
    counts: dict[PrepareStatus, int] = {}
    for done in results:
        counts[done.status] = counts.get(done.status, 0) + 1
        if done.status is not PrepareStatus.READY:
            print(f"{done.status.value:4} {done.bug.id}: {done.detail}")
    print(f"{len(bugs)} bugs: " + ", ".join(f"{n} {s.value}" for s, n in counts.items()))
    return 1 if counts.get(PrepareStatus.FAILED) else 0


if __name__ == "__main__":
    sys.exit(main())
