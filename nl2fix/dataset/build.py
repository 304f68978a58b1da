"""Build an NL2Fix dataset from Defects4J-laid-out metadata, the buggy and fixed sources, and the
projects' issue trackers: ``nl2fix dataset build``.

For every active bug (``<Project>/active-bugs.csv``): read the modified classes' files in the
buggy and the fixed version, compare them declaration by declaration
(:mod:`nl2fix.java_source.method_diff`), keep the bugs whose fix changes exactly one method body (the paper's
filter) and say why each other bug was dropped, then add the issue's text
(:mod:`nl2fix.dataset.trackers`). Records have the published format (key
``Project_Id_path_start_end``, ``src``, ``src_wo_comments`` ...) plus the issue's creation date,
the fix commit's date, the tracker and a content hash.

Sources come from an installed Defects4J (``defects4j checkout`` of ``Nb`` and ``Nf``, cached) or
from a bundled-benchmark layout (``projects/<Project>/fixed`` and ``patches/<N>.src.patch``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import tempfile
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from defects4j_adapter import cache
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import write_text
from nl2fix.core.processes import run_command
from nl2fix.dataset.diff import read_entries
from nl2fix.dataset.load import parse_trigger_tests
from nl2fix.dataset.trackers import FetchStats, IssueFetcher, IssueText, Tracker, iso_utc, resolve
from nl2fix.java_source.lexer import tokens_wo_comments
from nl2fix.java_source.method_diff import Change, FileDiff, JavaFile, Method, ParseError, diff_parsed, parse_java

RECORD_FIELDS = (
    "src",
    "src_wo_comments",
    "fixed_src",
    "fixed_src_wo_comments",
    "summary",
    "Description",
    "issue_url",
    "comments",
)
"""The published record's fields, in its order."""
NEW_FIELDS = (
    "issue_created",
    "fix_date",
    "tracker",
    "fix_outside_method",
    "issue_error",
    "trigger_tests_src",
    "content_hash",
)
"""Fields the paper's records lack: when the issue was opened and the fix committed (ISO 8601 UTC,
empty when unknown), which tracker the text came from, whether the ground-truth fix also changes
code outside the method, why the issue text could not be read (empty when it was), the trigger
tests' source as written in the buggy version (``Class::method`` -> text; what the test-driven
strategies show), and a sha256 of everything else in the record."""
PATCH_TIMEOUT = 60.0
CHECKOUT_ATTEMPTS = 2
"""A second try of a failed ``defects4j checkout``: on a loaded machine sharing the project
repositories, some Compress checkouts here failed at 'Tag post-fix revision' and succeeded when
asked again."""


NO_SOURCES = "no checkout"
TEST_ONLY = "test-only"
FILE_ADDED = "file added or removed"
NOT_JAVA = "non-Java files"
UNPARSABLE = "parse error"
NO_CODE_CHANGE = "comments or whitespace only"
NO_ISSUE = "no issue report"
DROP_ORDER = (
    NO_SOURCES,
    TEST_ONLY,
    NOT_JAVA,
    FILE_ADDED,
    UNPARSABLE,
    NO_CODE_CHANGE,
    Change.SEVERAL_METHODS.value,
    Change.NEW_METHOD.value,
    Change.REMOVED_METHOD.value,
    Change.FIELDS.value,
    Change.IMPORTS.value,
    Change.OTHER.value,
    NO_ISSUE,
)
"""Drop reasons, most fundamental first: a bug is counted under the first that applies."""
TOLERATED_OUTSIDE = (Change.FIELDS.value, Change.IMPORTS.value, Change.NEW_METHOD.value, Change.OTHER.value)
"""What ``keep_outside`` lets a fix change besides its one method (flagged ``fix_outside_method``)."""
NL2FIX_SET = "nl2fix"
"""The paper's benchmark: the single-method bugs that have an issue report (Defects4J names no
tracker entry for the others); the default."""
SINGLE_FUNCTION_SET = "single-function"
"""Every bug whose developer fix changes one method, issue text where a tracker has one: RepairBench's
Defects4J v2 benchmark (484 bugs), for the test-driven strategies, which need no issue."""
BENCHMARK_SETS = (NL2FIX_SET, SINGLE_FUNCTION_SET)


@dataclass(frozen=True)
class ActiveBug:
    """One row of ``active-bugs.csv``."""

    project: str
    number: int
    buggy_revision: str
    fixed_revision: str
    report_id: str
    report_url: str

    @property
    def id(self) -> str:
        return f"{self.project}-{self.number}"


def read_active_bugs(meta_dir: Path, project: str) -> list[ActiveBug]:
    path = Path(meta_dir) / project / "active-bugs.csv"
    if not path.is_file():
        known = all_projects(meta_dir)
        raise Nl2FixError(
            f"no active-bugs.csv for project {project!r} in {meta_dir}",
            f"projects there: {', '.join(known) or 'none'}; --defects4j-meta points at the folder",
        )
    with open(path, newline="", encoding="utf-8") as fh:
        return [
            ActiveBug(
                project,
                int(r["bug.id"]),
                r["revision.id.buggy"],
                r["revision.id.fixed"],
                r.get("report.id", ""),
                r.get("report.url", ""),
            )
            for r in csv.DictReader(fh)
        ]


def _layout(meta_dir: Path, bug: ActiveBug) -> tuple[str, str]:
    """The buggy revision's source and test folders (``dir-layout.csv``); empty when it has no row."""
    with open(Path(meta_dir) / bug.project / "dir-layout.csv", newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            if len(row) >= 3 and row[0] == bug.buggy_revision:
                return row[1], row[2]
    return "", ""


def _class_file(folder: str, class_name: str) -> str:
    return f"{folder}/{class_name.split('$')[0].replace('.', '/')}.java"


def source_files(meta_dir: Path, bug: ActiveBug) -> list[str]:
    """The files of the modified classes (``modified_classes/N.src`` under the buggy revision's
    source folder from ``dir-layout.csv``), relative to the project root."""
    pdir = Path(meta_dir) / bug.project
    classes_file = pdir / "modified_classes" / f"{bug.number}.src"
    classes = (
        [c.strip() for c in classes_file.read_text(encoding="utf-8").splitlines() if c.strip()]
        if classes_file.is_file()
        else []
    )
    src_dir = _layout(meta_dir, bug)[0]
    if classes and not src_dir:
        raise Nl2FixError(f"dir-layout.csv of {bug.project} has no row for {bug.buggy_revision} ({bug.id})")
    return [_class_file(src_dir, c) for c in classes]


def source_of_test(text: str, class_name: str, method: str) -> str | None:
    """The test method ``method`` of ``class_name`` (``pkg.Outer$Inner``) as written in ``text``, its
    file: from its first annotation to its closing brace; None when the class does not declare it
    (an inherited test) or the file does not parse."""
    try:
        methods = parse_java(text).methods
    except ParseError:
        return None
    owner = class_name.rsplit(".", 1)[-1].replace("$", ".")
    found = methods.get(f"{owner}#{method}()")
    if found is None:
        return None
    # The declaration's first line lacks the indent its later lines keep: put it back, then dedent all.
    first = text.replace("\r\n", "\n").split("\n")[found.start_line - 1]
    return textwrap.dedent(first[: len(first) - len(first.lstrip())] + found.text)


def trigger_test_sources(bug: ActiveBug, meta_dir: Path, sources: Sources) -> dict[str, str]:
    """``Class::method`` -> source of each trigger test (``trigger_tests/N``) found in the buggy
    version's test folder; a test its class inherits is left out."""
    trigger = Path(meta_dir) / bug.project / "trigger_tests" / str(bug.number)
    if not trigger.is_file():
        return {}
    test_dir = _layout(meta_dir, bug)[1]
    found: dict[str, str] = {}
    for name in parse_trigger_tests(trigger.read_text(encoding="utf-8", errors="replace")):
        class_name, _, method = name.partition("::")
        text = sources.read(bug, _class_file(test_dir, class_name), False) if test_dir and method else None
        source = source_of_test(text, class_name, method) if text is not None else None
        if source is not None:
            found[name] = source
    return found


class Sources(Protocol):
    """The two versions of a bug's files, and the fix's commit date."""

    def read(self, bug: ActiveBug, path: str, fixed: bool) -> str | None:
        """The file's text in the buggy or fixed version; None when it does not exist there."""

    def fix_date(self, bug: ActiveBug) -> str:
        """The fix commit's date, ISO 8601 UTC; empty when unknown."""


def read_java(path: Path) -> str | None:
    """A Java file's text (UTF-8, else ISO-8859-1 as old Apache sources are); None when absent."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


class PatchedTreeSources:
    """The bundled-benchmark layout: ``<projects>/<P>/fixed`` is every bug's fixed version and
    ``<projects>/<P>/patches/<N>.src.patch`` turns it into bug N's buggy version (as Defects4J's
    own patches do)."""

    def __init__(self, projects_dir: Path, work_dir: Path):
        self.projects_dir = Path(projects_dir).resolve()
        self.work_dir = Path(work_dir).resolve()

    def _buggy_root(self, bug: ActiveBug) -> Path:
        root = self.work_dir / f"{bug.id}b"
        if root.is_dir():
            return root
        fixed = self.projects_dir / bug.project / "fixed"
        patch = self.projects_dir / bug.project / "patches" / f"{bug.number}.src.patch"
        if not fixed.is_dir() or not patch.is_file():
            raise Nl2FixError(f"{bug.id}: {fixed} or {patch} is missing")
        tmp = Path(tempfile.mkdtemp(prefix=f"{bug.id}.", dir=self.work_dir))
        shutil.copytree(fixed, tmp / "tree")
        result = run_command(
            ["patch", "-p1", "--batch", "--quiet", "-i", str(patch)], cwd=tmp / "tree", timeout=PATCH_TIMEOUT
        )
        if not result.ok:
            shutil.rmtree(tmp, ignore_errors=True)
            raise Nl2FixError(f"{bug.id}: {patch} does not apply to {fixed}: {(result.stdout + result.stderr)[-500:]}")
        (tmp / "tree").rename(root)
        shutil.rmtree(tmp, ignore_errors=True)
        return root

    def read(self, bug: ActiveBug, path: str, fixed: bool) -> str | None:
        root = self.projects_dir / bug.project / "fixed" if fixed else self._buggy_root(bug)
        return read_java(root / path)

    def fix_date(self, bug: ActiveBug) -> str:
        return ""


class Defects4JSources:
    """``defects4j checkout`` of ``Nb`` and ``Nf``, each made once under ``<cache>/d4j-src`` (sources
    only, read-only use); the validation engines' compiled checkout of ``Nb`` (``<cache>/d4j/<id>``)
    is read instead when present."""

    def __init__(self, d4j, cache_dir: Path):
        self.d4j = d4j
        self.cache_dir = Path(cache_dir)

    def _root(self, bug: ActiveBug, fixed: bool) -> Path:
        version = f"{bug.number}{'f' if fixed else 'b'}"
        if not fixed:
            prepared = d4j_workspace.checkout_root(self.cache_dir, bug.id)
            if d4j_workspace.load_state(prepared, version) is not None:
                return prepared

        def checkout(tmp: Path) -> None:
            for _ in range(CHECKOUT_ATTEMPTS):
                shutil.rmtree(tmp / "tree", ignore_errors=True)
                done = self.d4j.checkout(bug.project, version, tmp / "tree")
                if done.ok:
                    break
            else:
                raise d4j_cli.environment_error(f"cannot check out {bug.id} ({version})", done)
            # Only the sources are read here, never compiled or reset: the checkout's own git
            # repository (most of its size, up to ~100 MB a bug) is dropped from the cache.
            shutil.rmtree(tmp / "tree" / ".git", ignore_errors=True)

        return cache.build_once(self.cache_dir / "d4j-src" / f"{bug.project}-{version}", checkout) / "tree"

    def read(self, bug: ActiveBug, path: str, fixed: bool) -> str | None:
        return read_java(self._root(bug, fixed) / path)

    def fix_date(self, bug: ActiveBug) -> str:
        return iso_utc(self.d4j.info(bug.project, bug.number).value("Revision date (fixed version)"))


@dataclass(frozen=True)
class Kept:
    """A bug that passed the filter: where its method is and what else its fix touched."""

    path: str
    buggy: Method
    fixed: Method
    outside: tuple[str, ...]
    """What else the ground-truth fix changes (empty unless ``keep_outside``)."""


def classify(diffs: list[FileDiff], keep_outside: bool = False) -> tuple[list[str], tuple[str, str] | None]:
    """The drop reasons of a fix (empty when kept) and, when kept, its one method: ``(path, key)``."""
    changed = [(d.path, k) for d in diffs for k in d.changed]
    reasons: set[str] = set()
    if not any(d.code_changed for d in diffs):
        reasons.add(NO_CODE_CHANGE)
    if len(changed) > 1:
        reasons.add(Change.SEVERAL_METHODS.value)
    if any(d.added for d in diffs):
        reasons.add(Change.NEW_METHOD.value)
    if any(d.removed for d in diffs):
        reasons.add(Change.REMOVED_METHOD.value)
    reasons.update(c.value for d in diffs for c in d.outside)
    if len(changed) == 1 and keep_outside and reasons <= set(TOLERATED_OUTSIDE):
        return sorted(reasons, key=DROP_ORDER.index), changed[0]
    if reasons or len(changed) != 1:
        return sorted(reasons or {NO_CODE_CHANGE}, key=DROP_ORDER.index), None
    return [], changed[0]


def content_hash(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "content_hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def make_record(
    bug: ActiveBug,
    path: str,
    buggy_method,
    fixed_method,
    issue: IssueText,
    fix_date: str,
    outside: bool,
    tests: dict[str, str],
) -> tuple[str, dict]:
    key = f"{bug.project}_{bug.number}_{path}_{buggy_method.start_line}_{buggy_method.end_line}"
    record = {
        "src": buggy_method.text,
        "src_wo_comments": tokens_wo_comments(buggy_method.text),
        "fixed_src": fixed_method.text,
        "fixed_src_wo_comments": tokens_wo_comments(fixed_method.text),
        "summary": issue.title,
        "Description": issue.description,
        "issue_url": bug.report_url if issue.tracker is not Tracker.NONE else "",
        "comments": list(issue.comments),
        "issue_created": issue.created,
        "fix_date": fix_date,
        "tracker": issue.tracker.value,
        "fix_outside_method": outside,
        "issue_error": issue.error,
        "trigger_tests_src": tests,
    }
    record["content_hash"] = content_hash(record)
    return key, record


@dataclass
class BuildSummary:
    """What a build kept, dropped (and why) and could not fetch."""

    considered: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    dropped: dict[str, list[str]] = field(default_factory=dict)
    """First drop reason -> bug ids."""
    unfetched: list[tuple[str, str, str]] = field(default_factory=list)
    """(bug id, issue URL, why) of kept bugs whose issue text could not be read."""
    fetch: FetchStats = field(default_factory=FetchStats)

    def to_json(self) -> dict:
        return {
            "considered": len(self.considered),
            "kept": self.kept,
            "dropped": {r: ids for r, ids in self.dropped.items()},
            "unfetched": [{"bug": b, "url": u, "why": w} for b, u, w in self.unfetched],
            "http": {"requests": self.fetch.requests, "cached": self.fetch.cached, "retries": self.fetch.retries},
        }

    def lines(self) -> list[str]:
        out = [
            f"bugs considered: {len(self.considered)}, kept: {len(self.kept)}, "
            f"dropped: {sum(len(v) for v in self.dropped.values())}"
        ]
        per_project = Counter(bug_id.rsplit("-", 1)[0] for bug_id in self.kept)
        if per_project:
            out.append("  kept per project: " + ", ".join(f"{p} {n}" for p, n in sorted(per_project.items())))
        for reason in DROP_ORDER:
            ids = self.dropped.get(reason)
            if ids:
                out.append(f"  dropped, {reason}: {len(ids)} ({', '.join(ids[:8])}{' ...' if len(ids) > 8 else ''})")
        if self.unfetched:
            out.append(f"issue text not fetched for {len(self.unfetched)} kept bug(s) (kept with empty texts):")
            out += [f"  {b}: {u or '-'}: {w}" for b, u, w in self.unfetched]
        out.append(
            f"issue trackers: {self.fetch.requests} HTTP request(s), {self.fetch.cached} answer(s) from the "
            f"cache, {self.fetch.retries} retry(ies)"
        )
        return out


def bug_ids_of(dataset: Path) -> set[str]:
    """The bug ids (``Cli-4``) of a dataset file: ``--bugs-of`` rebuilds exactly those."""

    return set(read_entries(dataset))


def parse_bug_numbers(spec: str | None) -> set[int] | None:
    """``1-5,7`` -> {1, 2, 3, 4, 5, 7}; None (every bug) for an empty spec."""
    if not spec:
        return None
    out: set[int] = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise Nl2FixError(f"--bugs {spec!r}: {part!r} is not a number or a range", "write e.g. --bugs 1-5,7")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def build_bug(
    bug: ActiveBug, meta_dir: Path, sources: Sources, keep_outside: bool = False
) -> tuple[list[str], Kept | None]:
    """Drop reasons (empty when kept) and, when kept, where its method is."""
    paths = source_files(meta_dir, bug)
    if not paths:
        return [TEST_ONLY], None
    parsed: dict[str, tuple[JavaFile, JavaFile]] = {}
    for path in paths:
        buggy, fixed = sources.read(bug, path, False), sources.read(bug, path, True)
        if buggy is None and fixed is None:
            # Defects4J lists changed resources among the modified classes (Codec-14's bm/*.txt).
            return [NOT_JAVA], None
        if buggy is None or fixed is None:
            return [FILE_ADDED], None
        try:
            parsed[path] = parse_java(buggy), parse_java(fixed)
        except ParseError:
            return [UNPARSABLE], None
    reasons, chosen = classify([diff_parsed(path, *pair) for path, pair in parsed.items()], keep_outside)
    if chosen is None:
        return reasons, None
    path, key = chosen
    before, after = parsed[path]
    return reasons, Kept(path, before.methods[key], after.methods[key], tuple(reasons))


def all_projects(meta_dir: Path) -> list[str]:
    """Every project of a Defects4J metadata folder (those with an ``active-bugs.csv``), by name."""
    return (
        sorted(p.name for p in Path(meta_dir).iterdir() if (p / "active-bugs.csv").is_file())
        if Path(meta_dir).is_dir()
        else []
    )


def build_dataset(
    meta_dir: Path,
    projects: Iterable[str],
    sources: Sources,
    fetcher: IssueFetcher,
    *,
    numbers: set[int] | None = None,
    ids: set[str] | None = None,
    keep_outside: bool = False,
    benchmark: str = NL2FIX_SET,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, dict], BuildSummary]:
    """Records keyed as the published dataset, and the summary of the build: of every active bug of
    ``projects``, or those whose number is in ``numbers`` and whose id is in ``ids``. ``benchmark``
    ``nl2fix`` drops the bugs without an issue report; ``single-function`` keeps them."""
    if benchmark not in BENCHMARK_SETS:
        raise Nl2FixError(f"unknown benchmark {benchmark!r}", f"choose one of {', '.join(BENCHMARK_SETS)}")
    records: dict[str, dict] = {}
    summary = BuildSummary(fetch=fetcher.stats)
    for project in projects:
        for bug in read_active_bugs(meta_dir, project):
            if (numbers is not None and bug.number not in numbers) or (ids is not None and bug.id not in ids):
                continue
            summary.considered.append(bug.id)
            try:
                reasons, kept = build_bug(bug, meta_dir, sources, keep_outside)
            except Nl2FixError as exc:
                reasons, kept = [f"{NO_SOURCES}: {exc.message}"], None
            if kept is not None and benchmark == NL2FIX_SET and resolve(bug.report_url).tracker is Tracker.NONE:
                reasons, kept = [NO_ISSUE], None
            if kept is None:
                summary.dropped.setdefault(reasons[0].split(":")[0], []).append(bug.id)
                if progress:
                    progress(f"{bug.id}: dropped ({', '.join(reasons)})")
                continue
            issue = fetcher.fetch(bug.report_url)
            if issue.error:
                summary.unfetched.append((bug.id, bug.report_url, issue.error))
            try:
                fix_date = sources.fix_date(bug)
            except Nl2FixError as exc:  # the date is an extra; the bug stays
                fix_date = ""
                if progress:
                    progress(f"{bug.id}: no fix date ({exc.message})")
            tests = trigger_test_sources(bug, meta_dir, sources)
            key, record = make_record(
                bug, kept.path, kept.buggy, kept.fixed, issue, fix_date, bool(kept.outside), tests
            )
            records[key] = record
            summary.kept.append(bug.id)
            if progress:
                progress(f"{bug.id}: kept {key}")
    return records, summary


def add_test_sources(
    records: dict[str, dict], meta_dir: Path, sources: Sources, progress: Callable[[str], None] | None = None
) -> dict[str, list[str]]:
    """Give each record (an existing dataset's, e.g. the published one) its ``trigger_tests_src``,
    read from the buggy version as a build does; every other field stays as it is. Returns bug id ->
    the trigger tests whose source was not found (inherited tests; a bug Defects4J does not list)."""
    active: dict[str, dict[int, ActiveBug]] = {}
    missing: dict[str, list[str]] = {}
    for key, record in records.items():
        project, number = key.split("_", 2)[:2]
        if project not in active:
            active[project] = {b.number: b for b in read_active_bugs(meta_dir, project)}
        bug = active[project].get(int(number))
        trigger = Path(meta_dir) / project / "trigger_tests" / number
        wanted = parse_trigger_tests(trigger.read_text(encoding="utf-8", errors="replace")) if trigger.is_file() else ()
        found = trigger_test_sources(bug, meta_dir, sources) if bug is not None else {}
        record["trigger_tests_src"] = found
        if "content_hash" in record:  # a built record's hash covers every other field
            record["content_hash"] = content_hash(record)
        if set(wanted) - set(found) or bug is None:
            missing[f"{project}-{number}"] = [t for t in wanted if t not in found] or ["(not an active bug)"]
        if progress:
            progress(f"{project}-{number}: {len(found)} of {len(wanted)} trigger test(s) found")
    return missing


def write_dataset(records: dict[str, dict], out: Path) -> None:
    """The whole file or nothing (a killed build never leaves half a dataset)."""

    write_text(Path(out), json.dumps(records, indent=1, ensure_ascii=False) + "\n")
