"""Load the Defects4J-NL2Fix JSON (and the bundled example benchmark, same format) into Bugs.

Format (see ``../shared/data/README.md``): an object keyed ``Project_BugId_path_start_end``
with ``src``, ``fixed_src``, ``summary``, ``Description``, ``comments``, ``issue_url`` ...
Defects4J metadata (trigger/relevant tests, revisions, layout) is read from a folder laid out
like ``framework/projects/`` of Defects4J: ``<Project>/trigger_tests/<id>`` and so on.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from nl2fix.core import bug_ids
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.core.processes import which
from nl2fix.java_source.text import remove_comments

DATASET_FILE = "nl2fix_dataset.json"
DATASET_URL = "https://raw.githubusercontent.com/nl2fix-team/NL2Fix/main/datasets/defects4j/nl2fix_dataset.json"
DATASET_SHA256 = "e199fc5bd2a9f2ca369b00f7f80084232af77989f37afcc8a4ab9eebb35cb0a1"

_FIELDS = {"src": "the buggy method", "fixed_src": "the fixed method", "summary": "the issue title"}
"""The entry fields a bug is made of, and what each holds."""
_KEY = re.compile(r"^(?P<project>[A-Za-z][A-Za-z0-9]*)_(?P<num>\d+)_(?P<path>.+)_(?P<start>\d+)_(?P<end>\d+)$")
_TRIGGER = re.compile(r"^--- (\S+)")


def data_dir() -> Path:
    """Where ``nl2fix dataset pull`` puts the dataset: ``$NL2FIX_DATA_DIR`` or the XDG data dir."""
    if os.environ.get("NL2FIX_DATA_DIR"):
        return Path(os.environ["NL2FIX_DATA_DIR"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nl2fix"


@dataclass
class Dataset:
    """Bugs by id, in dataset order, and the entries that could not be loaded (with why)."""

    bugs: dict[str, Bug]
    problems: list[str] = field(default_factory=list)
    source: str = ""

    def resolve(self, text: str) -> Bug:
        return self.bugs[bug_ids.resolve(text, self.bugs)]

    def select(self, ids: Iterable[str] = (), projects: Iterable[str] = (), all_bugs: bool = False) -> list[Bug]:
        ids, projects = list(ids), list(projects)
        if not (ids or projects or all_bugs):
            raise Nl2FixError("no bugs selected", "pass --bug ID (repeatable), --project NAME or --all")
        if all_bugs:
            return list(self.bugs.values())
        chosen = {self.resolve(i).id: None for i in ids}
        known_projects = {b.project.lower(): b.project for b in self.bugs.values()}
        for p in projects:
            if p.lower() not in known_projects:
                raise Nl2FixError(
                    f"unknown project {p!r}", f"projects here: {', '.join(sorted(known_projects.values()))}"
                )
            chosen.update({b.id: None for b in self.bugs.values() if b.project == known_projects[p.lower()]})
        return [self.bugs[i] for i in chosen]


def parse_key(key: str) -> tuple[str, int, str, int, int]:
    m = _KEY.match(key)
    if not m:
        raise ValueError(f"key {key!r} is not Project_BugId_path_start_end")
    start, end = int(m["start"]), int(m["end"])
    if start < 1 or end < start:
        raise ValueError(f"key {key!r} has an empty or reversed line range")
    return m["project"], int(m["num"]), m["path"], start, end


def _text(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def _fields(names: Iterable[str]) -> str:
    return " and ".join(f"{name} ({_FIELDS[name]})" for name in names)


def _lines(path: Path) -> tuple[str, ...]:
    if not path.is_file():
        return ()
    return tuple(l.strip() for l in path.read_text(encoding="utf-8", errors="replace").splitlines() if l.strip())


def parse_trigger_tests(text: str) -> tuple[str, ...]:
    """``Class::method`` names from a Defects4J ``trigger_tests/<id>`` file (stack traces skipped)."""
    return tuple(name for name, _ in parse_trigger_failures(text))


def parse_trigger_failures(text: str) -> tuple[tuple[str, str], ...]:
    """``(Class::method, failure)`` pairs of a Defects4J ``trigger_tests/<id>`` file: each ``--- name``
    line and the lines JUnit printed under it (message, then stack trace)."""
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        m = _TRIGGER.match(line)
        if m:
            found.append((m.group(1), []))
        elif found:
            found[-1][1].append(line)
    return tuple((name, "\n".join(lines).strip("\n")) for name, lines in found)


def _test_sources(key: str, value) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"entry {key!r}: trigger_tests_src must map test names to their source")
    return tuple((name, text) for name, text in value.items() if text.strip())


@dataclass(frozen=True)
class _Meta:
    trigger: tuple[str, ...] = ()
    failures: tuple[tuple[str, str], ...] = ()
    relevant: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    buggy_rev: str = ""
    fixed_rev: str = ""
    src_dir: str = ""
    test_dir: str = ""


def _project_meta(meta_dir: Path | None, project: str, number: int, cache: dict) -> _Meta:
    if meta_dir is None or not (meta_dir / project).is_dir():
        return _Meta()
    pdir = meta_dir / project
    if project not in cache:
        revs: dict[int, tuple[str, str]] = {}
        layout: dict[str, tuple[str, str]] = {}
        if (pdir / "active-bugs.csv").is_file():
            with open(pdir / "active-bugs.csv", newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    revs[int(row["bug.id"])] = (row["revision.id.buggy"], row["revision.id.fixed"])
        if (pdir / "dir-layout.csv").is_file():
            with open(pdir / "dir-layout.csv", newline="", encoding="utf-8") as fh:
                for fields in csv.reader(fh):
                    if len(fields) >= 3:
                        layout[fields[0]] = (fields[1], fields[2])
        cache[project] = (revs, layout)
    revs, layout = cache[project]
    buggy, fixed = revs.get(number, ("", ""))
    src, test = layout.get(buggy, ("", ""))
    trig = pdir / "trigger_tests" / str(number)
    failures = parse_trigger_failures(trig.read_text(encoding="utf-8", errors="replace")) if trig.is_file() else ()
    return _Meta(
        trigger=tuple(name for name, _ in failures),
        failures=failures,
        relevant=_lines(pdir / "relevant_tests" / str(number)),
        modified=_lines(pdir / "modified_classes" / f"{number}.src"),
        buggy_rev=buggy,
        fixed_rev=fixed,
        src_dir=src,
        test_dir=test,
    )


def bug_from_entry(key: str, entry: dict, meta: _Meta = _Meta(), benchmark: str = "nl2fix") -> Bug:
    if not isinstance(entry, dict):
        raise ValueError(f"entry {key!r} is not an object")
    project, number, path, start, end = parse_key(key)
    missing = [name for name in _FIELDS if not _text(entry.get(name))]
    if {"src", "fixed_src"} & set(missing):
        raise ValueError(f"entry {key!r} lacks {_fields(missing)}: left out, a bug needs its buggy and fixed methods")
    src, fixed = entry["src"], entry["fixed_src"]
    comments = entry.get("comments") or []
    if not isinstance(comments, list):
        comments = [comments]
    return Bug(
        project=project,
        number=number,
        path=path,
        start_line=start,
        end_line=end,
        buggy_method=src,
        fixed_method=fixed,
        title=_text(entry.get("summary")),
        description=_text(entry.get("Description")),
        comments=tuple(c.strip() for c in comments if isinstance(c, str) and c.strip()),
        issue_url=_text(entry.get("issue_url")),
        trigger_tests=meta.trigger,
        relevant_tests=meta.relevant,
        modified_classes=meta.modified,
        buggy_revision=meta.buggy_rev,
        fixed_revision=meta.fixed_rev,
        source_dir=meta.src_dir,
        test_dir=meta.test_dir,
        key=key,
        benchmark=benchmark,
        buggy_method_no_comments=remove_comments(src),
        issue_created=_text(entry.get("issue_created")),
        fix_outside_method=entry["fix_outside_method"] if isinstance(entry.get("fix_outside_method"), bool) else None,
        trigger_test_sources=_test_sources(key, entry.get("trigger_tests_src")),
        trigger_failures=meta.failures,
    )


def load_dataset(path: Path, metadata_dir: Path | None = None, benchmark: str = "nl2fix") -> Dataset:
    """Load every well-formed entry; malformed ones are listed in ``problems``, not fatal."""
    path = Path(path)
    if not path.is_file():
        raise Nl2FixError(
            f"dataset file {path} not found",
            "run `nl2fix dataset pull`, pass --dataset PATH, or use --dataset example",
        )
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Nl2FixError(f"dataset file {path} is not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise Nl2FixError(f"dataset file {path} must hold a JSON object keyed by bug")
    if metadata_dir is None and (path.parent / "defects4j").is_dir():
        metadata_dir = path.parent / "defects4j"
    bugs: dict[str, Bug] = {}
    problems: list[str] = []
    cache: dict = {}
    for key, entry in raw.items():
        try:
            project, number, *_ = parse_key(key)
            bug = bug_from_entry(key, entry, _project_meta(metadata_dir, project, number, cache), benchmark)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if bug.id in bugs:
            problems.append(f"entry {key!r} repeats bug {bug.id}; the first one is kept")
            continue
        if not bug.title and entry.get("tracker") != "none":  # a bug with no issue report is not missing its title
            problems.append(f"entry {key!r} lacks {_fields(['summary'])}: kept as {bug.id}, prompted without a title")
        bugs[bug.id] = bug
    return Dataset(bugs, problems, str(path))


def default_metadata_dir() -> Path | None:
    """Defects4J's own ``framework/projects`` when Defects4J is installed."""
    home = os.environ.get("D4J_HOME") or os.environ.get("DEFECTS4J_HOME")
    if home and (Path(home) / "framework" / "projects").is_dir():
        return Path(home) / "framework" / "projects"

    exe = which("defects4j")
    if exe:
        projects = exe.resolve().parent.parent / "projects"
        if projects.is_dir():
            return projects
    return None


def open_dataset(spec: str | None, metadata_dir: str | None = None) -> Dataset:
    """``example`` (the bundled benchmark), a path to a dataset JSON, or None for the pulled one."""
    if spec == "example":
        return load_dataset(EXAMPLE_BENCHMARK / DATASET_FILE, EXAMPLE_BENCHMARK / "defects4j", "example")
    path = Path(spec) if spec else data_dir() / DATASET_FILE
    meta = Path(metadata_dir) if metadata_dir else None
    if meta is None and not (path.parent / "defects4j").is_dir():
        meta = default_metadata_dir()
    return load_dataset(path, meta)
