"""`nl2fix fix`'s offline Maven and Gradle builds of real projects as they are, with `--maven-repo debian`.

Each case is a real historical bug: the repository is cloned from a git mirror as a user would
have it, checked out at the fix commit's parent (the buggy version), with the fix commit's test
files on top (the failing test). The project is built the way `nl2fix fix` builds it (a copy in the
cache; the clone is never edited, checked with `git status` after), and the script prints, for each:
the build's outcome, every substitution Debian's repository needed, and the wall-clock seconds.
Builds run one at a time (Maven and Gradle are CPU-heavy; run this under `nice`).

    nice -n 10 python3 scripts/bench_fix_projects.py --mirrors /work/.mirror --work /tmp/fixbench

Mirrors are bare git repositories at MIRRORS/<owner>+<name>/repo (the `fetch` tool's layout; cloned
without a checkout, as a mirror may lack the newest blobs), or pass --clone-from-github to clone over
the network instead.

With --fix, each case that builds and names its failing test is then fixed with `nl2fix fix`
(offline, bubblewrap, the fast engine): once with the mutation backend, then once per scripted
candidate, answered by an OpenAI-compatible server on 127.0.0.1 (tests/helpers/openai_server.py):
the developer's fix (the method as the fix commit has it) and the case's deliberately wrong ones.
Each prints its exit code and verdicts; a scripted candidate's verdict is checked against the
expected one, and the script exits 1 when one differs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_results

from nl2fix.core.errors import Nl2FixError
from nl2fix.fix.project_build import BuildOptions, BuildSystem, build_project
from nl2fix.java_source.methods import find_methods
from tests.helpers.openai_server import OpenAIServer


@dataclass(frozen=True)
class Scripted:
    """A candidate answered as a model would, and the verdict it must get."""

    label: str
    method: str
    expected: str


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
    wrong: tuple[Scripted, ...] = ()
    """Deliberately wrong candidates besides the developer's fix."""
    build: str | None = None
    """``--build``, where detection would choose another build system (a pom.xml beside build.gradle)."""
    fix_spans_methods: bool = False
    """The developer's fix changes more than the method (it adds an overload): no candidate of the
    one method is that fix, so it is not scripted; the mutation backend still runs."""


JSOUP_INVERTED = """public void removeIgnoreCase(String key) {
        Validate.notEmpty(key);
        if (attributes == null)
            return;
        for (Iterator<String> it = attributes.keySet().iterator(); it.hasNext(); ) {
            String attrKey = it.next();
            if (!attrKey.equalsIgnoreCase(key))
                it.remove();
        }
    }"""

CASES = (
    Case(
        "commons-lang LANG-1162",
        "apache/commons-lang",
        "6849dfc8a",
        "StringUtilsEqualsIndexOfTest::testEquals",
        "StringUtils#equals",
        "StringUtils#equals fails with Index OOBE on non-Strings with identical leading prefix",
    ),
    Case(
        "jsoup #759",
        "jhy/jsoup",
        "2c58e975",
        "ElementTest::testChainedRemoveAttributes",
        "Attributes#removeIgnoreCase",
        "Remove attributes using iterator to avoid CMEs (#759)\n\n"
        "Element.removeAttr of several attributes in a chain throws ConcurrentModificationException.",
        (Scripted("inverted condition", JSOUP_INVERTED, "wrong"),),
    ),
    Case(
        "gson #1013",
        "google/gson",
        "b06e23d09",
        "JsonTreeReaderTest::testSkipValue_emptyJsonObject",
        "JsonTreeReader#skipValue",
        "ArrayIndexOutOfBoundsException when skipping a value with JsonTreeReader",
    ),
    Case(
        "commons-cli CLI-203 (Defects4J Cli-30)",
        "apache/commons-cli",
        "324b7f901b91614927926a5bab1d9e0e2325f018",
        "",
        "",
        "CLI-203",
    ),
    Case(
        "commons-codec CODEC-231 (Defects4J Codec-18)",
        "apache/commons-codec",
        "5ef5bd199a4e3df74479b4b363fa29b0b3092547",
        "StringUtilsTest::testEqualsCS1",
        "StringUtils#equals",
        "StringUtils.equals(CharSequence cs1, CharSequence cs2) can fail with String Index OBE",
    ),
    Case(
        "commons-math MATH-934 (Defects4J Math-5)",
        "apache/commons-math",
        "724795b5513651e1e34fae3904d1b58229ce9c17",
        "ComplexTest::testReciprocalZero",
        "Complex#reciprocal",
        "Complex.ZERO.reciprocal() returns NaN but should return INF",
    ),
    Case(
        "commons-compress COMPRESS-28 (Defects4J Compress-1)",
        "apache/commons-compress",
        "004124ac5dbf5edbf925078652526267468821e7",
        "CpioTestCase::testCpioUnarchive",
        "CpioArchiveOutputStream#close",
        "COMPRESS-28: a cpio archive written and closed cannot be read back "
        "(the fix commit: Improve cpio tests, submitted by Christian Grobmeier)",
    ),
    Case(
        "commons-cli CLI-282 (Defects4J Cli-40)",
        "apache/commons-cli",
        "b0024d482050a08efc36c3cabee37c0af0e57a10",
        "TypeHandlerTest::testCreateValueInteger_failure",
        "TypeHandler#createValue",
        "TypeHandler should throw ParseException for an unsupported class",
    ),
    Case(
        "commons-csv CSV-122 (Defects4J Csv-11)",
        "apache/commons-csv",
        "b67524da7fd146634c7112b23e95d1d45c398b82",
        "",
        "",
        "CSV-122",
    ),
    # Gradle
    Case(
        "JavaHamcrest StringContainsInOrder (Gradle)",
        "hamcrest/JavaHamcrest",
        "83f85ad93fa4ba9c3213d524fb9e4b2f734ee47c",
        "StringContainsInOrderTest::testMatchesOnlyIfStringContainsGivenSubstringsInTheSameOrder",
        "StringContainsInOrder#matchesSafely",
        "Fix StringContainsInOrder to detect if a repeated pattern is missing\n\n"
        'Eg: StringContainsInOrder(asList("abc", "abc")) should fail when matching "---abc---"',
    ),
    Case(
        "JavaHamcrest #254 (Gradle)",
        "hamcrest/JavaHamcrest",
        "67bcac86e421eb07fff89a340ccd552052645d66",
        "BaseDescriptionTest::bracketsAppendedByteValue",
        "BaseDescription#appendValue",
        "Improve description when byte value is mismatched (#254)",
    ),
    Case(
        "Disruptor SingleProducerSequencer cursor (Gradle)",
        "LMAX-Exchange/disruptor",
        "105d8d85dbd9dbabfebaaafe6a5a52b278a4d558",
        "SingleProducerSequencerTest::shouldNotUpdateCursorDuringHasAvailableCapacity",
        "SingleProducerSequencer#hasAvailableCapacity",
        "Fix bug were the cursor could be accidentally changed if hasAvailableCapacity() was called between next() "
        "and publish on the SingleProducerSequencer.",
        fix_spans_methods=True,
    ),
    Case(
        "Disruptor after(EventProcessor...) (Gradle)",
        "LMAX-Exchange/disruptor",
        "5fb7ef9acdc4db8b37b55090d949ac0c53476bc3",
        "DisruptorTest::shouldSupportMultipleCustomProcessorsAsDependencies",
        "Disruptor#after",
        "Don't register processors in #after(final EventProcessor... processors)",
    ),
    Case(
        "pcollections ConsPStack.listIterator (Gradle)",
        "hrldcpr/pcollections",
        "3f11587e79654390301e0a1bec7c73d79fdc322d",
        "ConsPStackTest::testListIterator",
        "ConsPStack#listIterator",
        "ConsPStack.listIterator() indices were broken, which in turn broke ConsPStack.indexOf()",
        build="gradle",
    ),
)


def git(*argv: str, cwd: Path) -> str:
    return subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, text=True, timeout=600).stdout


def checkout(case: Case, mirrors: Path | None, work: Path) -> Path:
    """A clone at the buggy parent with the fix commit's test files: the user's working tree."""
    dest = work / case.repo.replace("/", "+")
    if not dest.is_dir():
        source = str(mirrors / case.repo.replace("/", "+") / "repo") if mirrors else f"https://github.com/{case.repo}"
        subprocess.run(["git", "clone", "-q", "--no-checkout", source, str(dest)], check=True, timeout=1800)
    git("checkout", "-q", "-f", f"{case.fix}~1", cwd=dest)
    git("clean", "-qfdx", cwd=dest)
    tests = [p for p in git("diff", "--name-only", f"{case.fix}~1", case.fix, cwd=dest).split() if "/test/" in p]
    if tests:
        git("checkout", case.fix, "--", *tests, cwd=dest)
    return dest


def developer_fix(case: Case, tree: Path) -> tuple[str, str]:
    """The method as ``--method`` names it in the buggy tree, and as the fix commit has it."""
    cls, name = case.method.split("#")
    path = next(
        p for p in git("diff", "--name-only", f"{case.fix}~1", case.fix, cwd=tree).split() if p.endswith(f"/{cls}.java")
    )
    text = git("show", f"{case.fix}:{path}", cwd=tree)
    # the overload the fix changed: the one holding the first changed line
    hunk = re.search(
        r"^@@ -\d+(?:,\d+)? \+(\d+)", git("diff", "-U0", f"{case.fix}~1", case.fix, "--", path, cwd=tree), re.MULTILINE
    )
    changed = sum(len(line) + 1 for line in text.split("\n")[: int(hunk.group(1)) - 1]) if hunk else 0
    spans = [m for m in find_methods(text) if m.name == name]
    span = next((m for m in spans if m.start <= changed < m.end), spans[0])
    # the same overload in the buggy tree, by its first line (`--method FILE:Class#m:LINE`)
    buggy = (tree / path).read_text(encoding="utf-8", errors="replace")
    same = next(m for m in find_methods(buggy) if m.name == name and m.params == span.params)
    header = buggy.index(f"{name}(", same.start)  # after any annotations and comments
    return f"{path}:{case.method}:{buggy[:header].count(chr(10)) + 1}", text[span.start : span.end]


def nl2fix_fix(case: Case, tree: Path, run: Path, *extra: str) -> tuple[int, str]:
    argv = [
        sys.executable,
        "-c",
        "from nl2fix.cli.main import main; main()",
        "fix",
        "--project",
        str(tree),
        "--issue",
        case.issue,
        "--test",
        case.test,
        "--maven-repo",
        "debian",
        "--run",
        str(run),
        "--quiet",
        *(("--build", case.build) if case.build else ()),
        "--id",
        re.sub(r"\W", "", case.name.split()[0].title()) + "-1",
        *extra,
    ]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=3600, cwd=Path(__file__).resolve().parent.parent
    )
    return done.returncode, done.stdout + done.stderr


def verdicts(output: str) -> str:
    found = re.search(r"^verdicts: (.*)$", output, re.MULTILINE)
    return found.group(1) if found else output.strip().splitlines()[-1][:200]


def fix_case(case: Case, tree: Path, work: Path) -> tuple[list[str], bool]:
    """`nl2fix fix` with the mutation backend, then each scripted candidate alone; lines to print, and
    whether every scripted candidate got the verdict expected.
    Localisation runs first; where it asks for --method or picks another method than the developer
    fixed, the runs are repeated with the case's method (as the hint says a user does)."""
    runs = work / "runs" / tree.name
    shutil.rmtree(runs, ignore_errors=True)  # sampled and validated from nothing, every time
    target, fixed = developer_fix(case, tree)
    method: tuple[str, ...] = ()
    started = time.monotonic()
    code, output = nl2fix_fix(case, tree, runs / "mutation", "--backend", "mutation", "-n", "20")
    chosen = re.search(r"^  -> 1\. (\S+)", output, re.MULTILINE)
    localised = False
    if code == 2 and "choose one with --method" in output:
        lines = ["localisation: ambiguous, asks for --method: " + output.split("error: ", 1)[1].split("\n")[0]]
    elif code == 2 and "say which method to fix with --method" in output:
        lines = ["localisation: none, asks for --method: " + output.split("error: ", 1)[1].split("\n")[0]]
    elif chosen and not chosen.group(1).endswith(f"/{case.method.split('#')[0]}.java:{case.method}"):
        lines = [f"localisation: chose {chosen.group(1)}, not the method the developer fixed"]
    else:
        lines, localised = [f"localisation: {chosen.group(1) if chosen else 'none printed'}"], True
    if not localised:
        method = ("--method", target)
        started = time.monotonic()
        code, output = nl2fix_fix(case, tree, runs / "mutation-method", "--backend", "mutation", "-n", "20", *method)
    lines.append(
        f"fix, mutation backend{' with --method' if method else ''}: exit {code}; verdicts: "
        f"{verdicts(output)} ({time.monotonic() - started:.0f} s)"
    )
    all_held = True
    if case.fix_spans_methods:
        lines.append("developer's fix: not scripted, it changes more than the method")
    developer = [] if case.fix_spans_methods else [Scripted("developer's fix", fixed, "plausible")]
    for scripted in (*developer, *case.wrong):
        answer = f"```java\n{scripted.method}\n```"
        with OpenAIServer(model=lambda messages, n, answer=answer: [answer] * n) as server:
            started = time.monotonic()
            code, output = nl2fix_fix(
                case,
                tree,
                runs / re.sub(r"\W", "-", scripted.label),
                "--backend",
                "openai",
                "--model",
                "scripted",
                "--base-url",
                server.url,
                "-n",
                "1",
                *method,
            )
        got = verdicts(output)
        held = f"1 {scripted.expected}" == got
        all_held = all_held and held
        lines.append(
            f"fix, {scripted.label}: exit {code}; verdicts: {got}; expected {scripted.expected}: "
            f"{'yes' if held else 'NO'} ({time.monotonic() - started:.0f} s)"
        )
    return lines, all_held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--clone-from-github", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "nl2fix-fixbench")
    parser.add_argument("--only", default=None, help="a substring of the case names to run")
    parser.add_argument("--fix", action="store_true", help="then run `nl2fix fix` on each case that builds")
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    held = True
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        try:
            tree = checkout(case, None if args.clone_from_github else args.mirrors, args.work)
        except subprocess.CalledProcessError as exc:  # a mirror without the commit's files
            print(f"\n== {case.name}  ({case.repo} {case.fix}~1)\n   not checked out: {(exc.stderr or '')[:300]}")
            rows.append((case, "not checked out (the mirror lacks the commit's files)", [], 0.0, True))
            continue
        before = git("status", "--porcelain", cwd=tree)
        notes: list[str] = []
        # a cache of its own per project: Debian's repository starts without substitutions, so each
        # build says every one it needs (one made for an earlier project would serve silently)
        os.environ["NL2FIX_CACHE_DIR"] = str(args.work / "cache" / tree.name)
        shutil.rmtree(args.work / "cache" / tree.name, ignore_errors=True)  # measured from nothing, every time
        started = time.monotonic()
        try:
            built = build_project(
                tree,
                BuildOptions(system=BuildSystem(case.build) if case.build else None, maven_repo="debian"),
                say=notes.append,
            )
            outcome = f"built with {built.system.value} ({len(built.modules)} module(s))"
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
        if args.fix and outcome.startswith("built") and case.test:
            lines, as_expected = fix_case(case, tree, args.work)
            held = held and as_expected
            for line in lines:
                print(f"   {line}", flush=True)
            print(f"   the clone untouched after fixing: {git('status', '--porcelain', cwd=tree) == before}")
    print("\n| project | outcome | notes (substitutions, placeholders, checks skipped) | s |")
    print("|---|---|---|---|")
    for case, outcome, notes, seconds, _ in rows:
        print(f"| {case.name} | {outcome[:160]} | {len(notes)} | {seconds:.0f} |")
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
