"""scripts/bench_overfitting.py's reading of the held-out set (APR-Efficiency's folders as Tian et al. publish
them): the quirks of its file headers made plain, so that a patch lands on the dataset's method, and a
patch that another of the bug's (or PATCH-SIM's set) already holds counted once."""

from __future__ import annotations

import json
import sys

from nl2fix.dataset.load import open_dataset
from tests.helpers.paths import REPO

sys.path.insert(0, str(REPO / "scripts"))
import bench_overfitting as bench

HUNK = """@@ -185,3 +185,3 @@
 {
-    int c = s.length();
+    int c = s.length() - 1;
 }
"""
OTHER = HUNK.replace("- 1;", "- 2;")
PATH = "src/main/java/org/textkit/Strings.java"


def write(folder, tool, name, text):
    (folder / tool / name).mkdir(parents=True, exist_ok=True)
    (folder / tool / name / "Patch_1_1.txt").write_text(text, encoding="utf-8")


def test_the_held_out_sets_headers_are_made_plain_and_a_change_is_counted_once(tmp_path):
    bugs = open_dataset("example").bugs
    pfl = tmp_path / "APR-Efficiency-PFL"
    # a git diff ending in blank lines (not the hunk's context); the same change with a first line that lost
    # its "--- "; a tool's "Namejava"
    write(pfl, "TBar", "Textkit-1_P", f"diff --git a/{PATH} b/{PATH}\n--- a/{PATH}\n+++ b/{PATH}\n{HUNK}\n\n")
    write(pfl, "Nopol", "Textkit-1_P", f"a/{PATH}\n+++ b/{PATH}\n{HUNK.replace('- 1', '-1')}")
    write(pfl, "jKali", "Textkit-1_C", f"--- /tmp/jKali/{PATH[:-5]}java\t2019\n+++ /tmp/x/Stringsjava\n{OTHER}")
    write(pfl, "TBar", "Nothing-1_C", f"--- a/{PATH}\n+++ b/{PATH}\n{HUNK}")  # not a bug of the dataset
    patches = bench.read_apr_efficiency(pfl, bugs)
    assert [(p.tool, p.bug_id, p.label) for p in patches] == [
        ("Nopol", "Textkit-1", "overfitting"),
        ("TBar", "Textkit-1", "overfitting"),
        ("jKali", "Textkit-1", "correct"),
    ]
    for p in patches:
        files, hunks = bench.files_and_hunks(p.diff)
        assert files == [files[0]] and files[0].endswith(PATH) and len(hunks) == 1, p.diff
        assert len(hunks[0].old) == len(hunks[0].new) == 3, hunks
    # Nopol's and TBar's are one change (blanks aside); one that PATCH-SIM's set holds is left out too
    info = tmp_path / "patchsim" / "INFO"
    info.mkdir(parents=True)
    (tmp_path / "patchsim" / "Patch1").write_text(f"--- a/{PATH}\n+++ b/{PATH}\n{OTHER}")
    meta = {"ID": "Patch1", "tool": "jKali", "project": "Textkit", "bug_id": 1, "correctness": "Incorrect"}
    (info / "Patch1.json").write_text(json.dumps(meta))
    seen = bench.read_patchsim(tmp_path / "patchsim", bugs)
    kept, again, known = bench.distinct(patches, seen)
    assert [p.tool for p in kept] == ["Nopol"] and (again, known) == (1, 1)
