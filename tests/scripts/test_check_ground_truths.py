"""check_ground_truths.py's pure parts: the summary it prints and the store it resumes from."""

from __future__ import annotations

import sys

from tests.helpers.paths import REPO

sys.path.insert(0, str(REPO / "scripts"))
import check_ground_truths as gt
from check_ground_truths import Finding, Version

FINDINGS = [
    Finding("Cli-1", "Cli", fixed=Version(gt.OK), buggy=Version(gt.OK)),
    Finding(
        "Cli-2", "Cli", fixed=Version(gt.REJECTED, "reference: A uses java.lang.System#exit"), buggy=Version(gt.OK)
    ),
    Finding("Csv-1", "Csv", prepare_error="checkout failed"),
    Finding(
        "Csv-2",
        "Csv",
        fixed=Version(gt.NOT_COMPILED, "A.java:3: error: cannot find symbol"),
        buggy=Version(gt.REJECTED, "structure: the candidate's file adds the class p.B"),
    ),
]


def test_the_summary_counts_each_project_and_lists_every_problem_with_its_reason():
    lines = gt.summary(FINDINGS)
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:5]}
    # bugs, ok, rejected, could not compile, could not check, could not prepare, buggy rejected
    assert rows["Cli"] == ["2", "1", "1", "0", "0", "0", "0"]
    assert rows["Csv"] == ["2", "0", "0", "1", "0", "1", "1"]
    assert rows["all"] == ["4", "1", "1", "1", "0", "1", "1"]
    text = "\n".join(lines)
    assert "ground truths the check rejects (1):\n  Cli-2: reference: A uses java.lang.System#exit" in text
    assert "BUGGY METHODS the check rejects (a bug in the check) (1):\n  Csv-2: structure:" in text
    assert "could not prepare (1):\n  Csv-1: checkout failed" in text
    assert "fixed method: could not compile (1):\n  Csv-2: A.java:3: error: cannot find symbol" in text
    assert not any(line.endswith("could not check (0):") for line in lines)  # no empty listings
    assert "buggy method: could not compile" not in text


def test_the_store_gives_back_what_it_kept(tmp_path):
    path = tmp_path / "store" / "check.json"
    assert gt.load(path) == {}
    gt.save(path, {f.bug: f for f in FINDINGS})
    assert gt.load(path) == {f.bug: f for f in FINDINGS}
    assert gt.load(path)["Csv-1"].status == gt.NOT_PREPARED
