"""`nl2fix fix`'s offline Maven build of real projects as they are, with `--maven-repo debian`.

Each case is a real historical bug: the repository is cloned from a git mirror as a user would
have it, checked out at the fix commit's parent (the buggy version), with the fix commit's test
files on top (the failing test). The project is built the way `nl2fix fix` builds it (a copy in the
cache; the clone is never edited, checked with `git status` after), and the script prints, for each:
the build's outcome, every substitution Debian's repository needed, and the wall-clock seconds.
Builds run one at a time (Maven is CPU-heavy; run this under `nice`).

    nice -n 10 python3 scripts/bench_fix_projects.py --mirrors /work/.mirror --work /tmp/fixbench

Mirrors are bare git repositories at MIRRORS/<owner>+<name>/repo (the `fetch` tool's layout), or
pass --clone-from-github to clone over the network instead.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.project_build import BuildOptions, build_project


@dataclass(frozen=True)
class Case:
    name: str
    repo: str
    """owner/name on GitHub."""
    fix: str
    """The fix commit; its parent is the buggy version."""
    test: str
    method: str
    issue: str


CASES = (
    Case("commons-lang LANG-1162", "apache/commons-lang", "6849dfc8a",
         "StringUtilsEqualsIndexOfTest::testEquals", "StringUtils#equals",
         "StringUtils#equals fails with Index OOBE on non-Strings with identical leading prefix"),
    Case("jsoup #759", "jhy/jsoup", "2c58e975", "ElementTest::testChainedRemoveAttributes",
         "Attributes#removeIgnoreCase", "Remove attributes using iterator to avoid CMEs (#759)"),
    Case("gson #1013", "google/gson", "b06e23d09", "JsonTreeReaderTest::testSkipValue_emptyJsonObject",
         "JsonTreeReader#skipValue", "ArrayIndexOutOfBoundsException when skipping a value with JsonTreeReader"),
    Case("commons-cli CLI-203 (Defects4J Cli-30)", "apache/commons-cli", "324b7f901b91614927926a5bab1d9e0e2325f018",
         "", "", "CLI-203"),
    Case("commons-csv CSV-122 (Defects4J Csv-11)", "apache/commons-csv", "b67524da7fd146634c7112b23e95d1d45c398b82",
         "", "", "CSV-122"),
)


def git(*argv: str, cwd: Path) -> str:
    return subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, text=True, timeout=600).stdout


def checkout(case: Case, mirrors: Path | None, work: Path) -> Path:
    """A clone at the buggy parent with the fix commit's test files: the user's working tree."""
    dest = work / case.repo.replace("/", "+")
    if not dest.is_dir():
        source = str(mirrors / case.repo.replace("/", "+") / "repo") if mirrors else f"https://github.com/{case.repo}"
        subprocess.run(["git", "clone", "-q", source, str(dest)], check=True, timeout=1800)
    git("checkout", "-q", "-f", f"{case.fix}~1", cwd=dest)
    git("clean", "-qfdx", cwd=dest)
    tests = [p for p in git("diff", "--name-only", f"{case.fix}~1", case.fix, cwd=dest).split() if "/test/" in p]
    if tests:
        git("checkout", case.fix, "--", *tests, cwd=dest)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--clone-from-github", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "nl2fix-fixbench")
    parser.add_argument("--only", default=None, help="a substring of the case names to run")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        tree = checkout(case, None if args.clone_from_github else args.mirrors, args.work)
        before = git("status", "--porcelain", cwd=tree)
        notes: list[str] = []
        # a cache of its own per project: Debian's repository starts without substitutions, so each
        # build says every one it needs (one made for an earlier project would serve silently)
        os.environ["NL2FIX_CACHE_DIR"] = str(args.work / "cache" / tree.name)
        started = time.monotonic()
        try:
            built = build_project(tree, BuildOptions(maven_repo="debian"), say=notes.append)
            outcome = f"built ({len(built.modules)} module(s))"
        except Nl2FixError as exc:
            outcome = "failed: " + exc.message.replace("\n", " | ")[:600]
        seconds = time.monotonic() - started
        untouched = git("status", "--porcelain", cwd=tree) == before
        rows.append((case, outcome, notes, seconds, untouched))
        print(f"\n== {case.name}  ({case.repo} {case.fix}~1 + the fix's tests)")
        print(f"   outcome: {outcome}")
        print(f"   seconds: {seconds:.0f}; the clone untouched: {untouched}")
        for note in notes:
            print(f"   {note}")
    print("\n| project | outcome | substitutions | s |")
    print("|---|---|---|---|")
    for case, outcome, notes, seconds, _ in rows:
        print(f"| {case.name} | {outcome[:160]} | {len(notes)} | {seconds:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
