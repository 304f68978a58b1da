#!/usr/bin/env python3
"""RepairBench's published answers as an NL2Fix replay file, for ``scripts/bench_real.py --replay FILE``.

RepairBench keeps each model's answers as diffs of the whole function,
``results/<model>/defects4j/patches/<Bug>/<verdict-folder>/<i>.diff``, beside ``target.diff`` (the
developer's fix, same layout). An answer's method text is its diff applied to the buggy function, which
is the minus side of ``target.diff``; a diff of one hunk over the whole function is its plus side.
The replay file is ``{bug: {"prompt": "", "patches": [{"patch": METHOD_TEXT, "index": i}]}}``, each
bug's answers model by model, sample by sample.

Meant to be replaced by ``nl2fix import`` once that lands; it reads the bare git mirror directly.

    python3 scripts/repairbench_replay.py --bugs Cli-23,Math-2 --out /tmp/replay.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

MIRROR = Path("/work/.mirror/repairbench+repairbench.github.io/repo")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def hunks(diff: str) -> list[tuple[int, list[str]]]:
    """Each hunk's first old line (1-based) and its lines (prefix kept; "\\ No newline" notes dropped)."""
    found: list[tuple[int, list[str]]] = []
    for line in diff.splitlines():
        header = HUNK.match(line)
        if header:
            found.append((int(header.group(1)), []))
        elif found and line[:1] in (" ", "-", "+"):
            found[-1][1].append(line)
    return found


def side(diff: str, keep: str) -> list[str] | None:
    """The old (``keep="-"``) or new (``"+"``) text of a diff whose one hunk covers the whole file,
    as lines; None when it has several hunks (then the old text is not all in it)."""
    found = hunks(diff)
    if len(found) != 1 or found[0][0] > 1:
        return None
    return [line[1:] for line in found[0][1] if line[0] in (" ", keep)]


def apply(base: list[str], diff: str) -> list[str]:
    """``diff``'s hunks applied to ``base``; ValueError when its context does not match."""
    out, at = [], 0
    for start, lines in hunks(diff):
        out += base[at : start - 1]
        at = start - 1
        for line in lines:
            if line[0] in (" ", "-"):
                if at >= len(base) or base[at] != line[1:]:
                    raise ValueError(f"context differs at line {at + 1}")
                at += 1
            if line[0] in (" ", "+"):
                out.append(line[1:])
    return out + base[at:]


def answers(repo: Path, model: str, bug: str, per_model: int | None) -> list[str]:
    """One model's method texts for ``bug``, by sample index (its first ``per_model``)."""
    root = f"HEAD:results/{model}/defects4j/patches/{bug}"
    try:
        names = git(repo, "ls-tree", "-r", "--name-only", root).split()
    except subprocess.CalledProcessError:
        return []
    if "target.diff" not in names:
        return []
    base = side(git(repo, "show", f"{root}/target.diff"), "-")
    if base is None:
        print(f"  {model} {bug}: target.diff has several hunks, skipped", file=sys.stderr)
        return []
    samples = sorted((n for n in names if n.count("/") == 1 and n.endswith(".diff")), key=lambda n: int(Path(n).stem))[
        :per_model
    ]
    texts = []
    for name in samples:
        diff = git(repo, "show", f"{root}/{name}")
        try:
            # a whole-file hunk is the answer itself (its minus side may differ from target.diff's in
            # whitespace: Math-3's); several hunks are applied to the buggy function
            texts.append("\n".join(side(diff, "+") or apply(base, diff)) + "\n")
        except ValueError as exc:
            print(f"  {model} {bug} {name}: {exc}, skipped", file=sys.stderr)
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, default=MIRROR, help=f"RepairBench's git repository (default {MIRROR}).")
    parser.add_argument("--bugs", required=True, help="Comma-separated Defects4J bug ids (Cli-23,...).")
    parser.add_argument("--models", default="", help="Comma-separated models (default: every model under results/).")
    parser.add_argument("--per-model", type=int, default=None, help="Each model's first N samples of a bug.")
    parser.add_argument("--out", type=Path, required=True, help="The replay file to write.")
    args = parser.parse_args()
    models = (
        args.models.split(",")
        if args.models
        else [
            line.split("\t")[1] for line in git(args.mirror, "ls-tree", "HEAD:results").splitlines() if " tree " in line
        ]
    )
    replay = {}
    for bug in args.bugs.split(","):
        texts = [t for m in models for t in answers(args.mirror, m, bug, args.per_model)]
        print(f"{bug}: {len(texts)} answers, {len(set(texts))} distinct", file=sys.stderr)
        if texts:
            replay[bug] = {"prompt": "", "patches": [{"patch": t, "index": i} for i, t in enumerate(texts)]}
    args.out.write_text(json.dumps(replay, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
