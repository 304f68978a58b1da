"""scripts/repairbench_replay.py: RepairBench's whole-function diffs back to method texts."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

sys.path.insert(0, str(REPO / "scripts"))
import repairbench_replay

BUGGY = [
    "int f(int x) {",
    "    int y = x;",
    "    y += 1;",
    "    y += 2;",
    "    y += 3;",
    "    y += 4;",
    "    y += 5;",
    "    y += 6;",
    "    y += 7;",
    "    y += 8;",
    "    return y;",
    "}",
]


def diff(old: list[str], new: list[str]) -> str:
    """What RepairBench stores: git's diff of two files, a function each."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a.java"), Path(tmp, "b.java")
        a.write_text("\n".join(old)), b.write_text("\n".join(new))
        return subprocess.run(["git", "diff", "--no-index", str(a), str(b)], capture_output=True, text=True).stdout


def test_a_diff_of_one_hunk_gives_both_functions_whole():
    fixed = [BUGGY[0], "    return x + 36;", "}"]
    made = diff(BUGGY, fixed)
    assert repairbench_replay.side(made, "-") == BUGGY and repairbench_replay.side(made, "+") == fixed


def test_a_diff_of_several_hunks_is_applied_to_the_buggy_function():
    answer = [*BUGGY[:2], "    y -= 1;", *BUGGY[3:10], "    return -y;", "}"]
    made = diff(BUGGY, answer)
    assert len(repairbench_replay.hunks(made)) == 2 and repairbench_replay.side(made, "+") is None
    assert repairbench_replay.apply(BUGGY, made) == answer


def test_a_diff_whose_context_is_not_the_buggy_function_is_refused():
    made = diff(BUGGY, [*BUGGY[:2], "    y -= 1;", *BUGGY[3:10], "    return -y;", "}"])
    with pytest.raises(ValueError, match="context differs"):
        repairbench_replay.apply([line.replace("y", "z") for line in BUGGY], made)
