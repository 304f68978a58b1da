"""CodeBLEU scores are a function of the pair alone: not of the process, nor of what was scored before."""

import json
import os
import subprocess
import sys

from nl2fix.dataset.load import open_dataset
from nl2fix.report.codebleu import references

_SCORE = """
import json, sys
from nl2fix.report.codebleu import codebleu
print(json.dumps([codebleu(candidate, reference) for candidate, reference in json.load(sys.stdin)]))
"""


def _scores(pairs: list[tuple[str, str]], hash_seed: int) -> list[float]:
    """Scores in a fresh interpreter: Python seeds its string hashing per process, as two runs do."""
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    done = subprocess.run(
        [sys.executable, "-c", _SCORE],
        input=json.dumps(pairs),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


def test_a_pair_scores_the_same_in_every_process_and_every_order():
    refs = references(open_dataset("example").resolve("Rangekit-4"))
    # the fix with its two changes undone: data flows with several sources, which codebleu orders by hash
    candidate = refs["fixed"].replace(" + 1L", "").replace("&& merged", "|| merged")
    pairs = [(candidate, refs["fixed"]), (refs["buggy"], refs["fixed"]), (candidate, refs["buggy"])]
    runs = []
    for seed in (0, 1, 2, 5):
        runs.append(_scores(pairs, seed))
        runs.append(_scores(pairs[::-1], seed)[::-1])
    assert all(run == runs[0] for run in runs), runs
    assert 0.5 < runs[0][0] < 1.0
