"""Defects4J checkouts, once per bug, cached under ``$NL2FIX_CACHE_DIR/d4j``.

Layout (one bug, ``Lang-1``)::

    d4j/Lang-1/            pristine: ``defects4j checkout -p Lang -v 1b`` less its ``.git`` (which
                           holds the fixed version), exported, compiled; never touched again, so
                           the buggy revision's classes stay true for every engine
    d4j/Lang-1.json        the exported properties (raw values); written last, it marks the
                           checkout complete, so a killed preparation starts over
    d4j/Lang-1.lock        held while the checkout is made
    d4j/Lang-1.slots/K/    fresh copies where candidates are judged, one per concurrent ``run``
                           (``defects4j test`` recompiles in place): copied anew from the pristine
                           one for each candidate, emptied after it

The checkout needs only Defects4J (no dataset): ``python -m defects4j_adapter.workspaces.defects4j
Lang-1 JxPath-20`` fills the cache ahead of time, e.g. when building or starting the container.
"""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.contract import Workspace
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j import parsers
from defects4j_adapter.d4j.cli import EXPORT_PROPERTIES, Defects4J
from defects4j_adapter.jvm import java_level
from defects4j_adapter.workspaces.local import detect_encoding
from nl2fix.core.domain import Bug
from nl2fix.core.errors import Nl2FixError
from nl2fix.core.processes import run_command
from nl2fix.core.retry import Backoff, retry

SUBDIR = "d4j"
CONFIG_FILE = ".defects4j.config"
COPY_TIMEOUT = 600.0
_BUG_ID = re.compile(r"^([A-Za-z][A-Za-z0-9]*)-(\d+)$")
_SLOT_POLL_SECONDS = 0.2
D4J_BACKOFF = Backoff(attempts=3, first_delay=10.0, factor=3.0)
"""A checkout that failed under load went through a minute later: tries after 10 s and 30 s more."""


def parse_bug_id(text: str) -> tuple[str, int]:
    """``("JxPath", 20)`` for ``JxPath-20``; Defects4J wants the project spelled its own way."""
    m = _BUG_ID.match(text.strip())
    if not m:
        raise Nl2FixError(f"{text!r} is not a Defects4J bug id", "write it as Project-N, e.g. Lang-1 or JxPath-20")
    return m.group(1), int(m.group(2))


@dataclass(frozen=True)
class Checkout:
    """A prepared (checked-out, exported, compiled) buggy revision."""

    bug_id: str
    root: Path
    properties: dict[str, str]
    """``defects4j export`` values as printed, by property name."""


def checkout_root(cache_dir: Path, bug_id: str) -> Path:
    return Path(cache_dir) / SUBDIR / bug_id


def _slots_dir(root: Path) -> Path:
    return root.with_name(root.name + ".slots")


def _state_file(root: Path) -> Path:
    return root.with_name(root.name + ".json")


@contextmanager
def _try_lock(path: Path) -> Iterator[bool]:
    """Like :func:`defects4j_adapter.cache.file_lock`, without waiting: yields whether it was taken."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def load_state(root: Path, version: str) -> dict[str, str] | None:
    """The cached properties when the checkout is complete and is this version; else None."""
    state_path, config = _state_file(root), root / CONFIG_FILE
    if not (state_path.is_file() and config.is_file()):
        return None
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(state, dict) or state.get("version") != version:
        return None
    props = state.get("properties")
    if not isinstance(props, dict) or set(EXPORT_PROPERTIES) - set(props):
        return None
    if f"vid={version}" not in config.read_text(encoding="utf-8", errors="replace").split():
        return None
    return {k: str(v) for k, v in props.items()}


def _check_out(d4j: Defects4J, bug_id: str, root: Path) -> None:
    project, number = parse_bug_id(bug_id)
    shutil.rmtree(root, ignore_errors=True)  # a failed try's half
    shutil.rmtree(_slots_dir(root), ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    done = d4j.checkout(project, f"{number}b", root)
    if not done.ok or not (root / CONFIG_FILE).is_file():
        raise d4j_cli.environment_error(f"cannot check out {bug_id} ({project} {number}b)", done)
    _drop_history(root)


def _drop_history(root: Path) -> None:
    """The checkout without its git repository: Defects4J commits the fixed version there (tag
    ``D4J_<P>_<N>_FIXED_VERSION``) beside the project's whole history, and every candidate's copy,
    every engine's, would read it. ``compile``, ``test`` and ``export`` read none of it (Csv-4:
    the same failing tests without it)."""
    shutil.rmtree(root / ".git", ignore_errors=True)


def _export_and_compile(d4j: Defects4J, bug_id: str, root: Path) -> dict[str, str]:
    props, built = d4j.export_and_compile(root)
    if not built.ok:
        raise d4j_cli.environment_error(f"the buggy revision of {bug_id} does not compile", built)
    return props


def ensure_checkout(d4j: Defects4J, bug_id: str, cache_dir: Path, *, backoff: Backoff = D4J_BACKOFF) -> Checkout:
    """Check out, export and compile ``bug_id``'s buggy revision, or reuse the cached one; each
    step is tried again (:data:`D4J_BACKOFF`) after a failure that is not the set-up's."""
    version = f"{parse_bug_id(bug_id)[1]}b"
    root = checkout_root(cache_dir, bug_id)
    with cache.file_lock(root.with_name(root.name + ".lock")):
        props = load_state(root, version)
        if props is not None:
            _drop_history(root)  # a checkout cached before it was dropped
            return Checkout(bug_id, root, props)
        _state_file(root).unlink(missing_ok=True)
        retry(
            lambda: _check_out(d4j, bug_id, root),
            what=f"`defects4j checkout` of {bug_id}",
            transient=d4j_cli.is_transient,
            backoff=backoff,
        )
        props = retry(
            lambda: _export_and_compile(d4j, bug_id, root),
            what=f"exporting and compiling {bug_id}",
            transient=d4j_cli.is_transient,
            backoff=backoff,
        )
        state = {"bug": bug_id, "version": version, "defects4j": str(d4j.executable), "properties": props}
        tmp = _state_file(root).with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
        tmp.replace(_state_file(root))
        return Checkout(bug_id, root, props)


def _single(props: Mapping[str, str], prop: str) -> str:
    values = parsers.parse_export_list(props.get(prop, ""))
    if len(values) != 1:
        raise Nl2FixError(f"`defects4j export -p {prop}` gave {len(values)} values, expected one: {values!r}")
    return values[0]


def workspace_from_exports(bug: Bug, root: Path, props: Mapping[str, str], *, encoding: str = "UTF-8") -> Workspace:
    """A :class:`Workspace` from the exported properties (directories are relative to ``root``,
    classpath entries absolute or relative to it)."""
    classes = root / _single(props, "dir.bin.classes")
    test_classes = root / _single(props, "dir.bin.tests")
    classpath = []
    for entry in parsers.parse_classpath(props.get("cp.test", "")):
        path = Path(entry) if Path(entry).is_absolute() else root / entry
        if path not in (classes, test_classes) and path not in classpath:
            classpath.append(path)
    trigger = parsers.parse_export_list(props.get("tests.trigger", ""))
    relevant = parsers.parse_export_list(props.get("tests.relevant", ""))
    if not trigger:
        raise Nl2FixError(f"Defects4J lists no trigger test for {bug.id}: it cannot be validated")
    if not relevant:
        raise Nl2FixError(f"Defects4J lists no relevant test class for {bug.id}: it cannot be validated")
    return Workspace(
        bug=bug,
        root=root,
        src_dir=root / _single(props, "dir.src.classes"),
        test_dir=root / _single(props, "dir.src.tests"),
        classes_dir=classes,
        test_classes_dir=test_classes,
        classpath=tuple(classpath),
        trigger_tests=trigger,
        relevant_tests=relevant,
        encoding=encoding,
        target_file=root / bug.path,
    )


def require_defects4j_bug(bug: Bug) -> None:
    if bug.benchmark == "example":
        raise Nl2FixError(
            f"{bug.id} is from the bundled example benchmark, not Defects4J",
            "use --engine fast for the example benchmark",
        )


def prepare_workspace(d4j: Defects4J, bug: Bug, cache_dir: Path) -> Workspace:
    """The pristine, compiled checkout of ``bug`` as a :class:`Workspace`."""
    require_defects4j_bug(bug)
    return workspace_for(bug, ensure_checkout(d4j, bug.id, cache_dir))


def workspace_for(bug: Bug, checkout: Checkout) -> Workspace:
    target = checkout.root / bug.path
    if not target.is_file():
        raise Nl2FixError(
            f"{bug.path} (the buggy method's file in the dataset) is not in the Defects4J checkout of {bug.id}",
            f"look in {checkout.root}; the dataset entry and Defects4J may disagree on the file",
        )
    ws = workspace_from_exports(
        bug, checkout.root, checkout.properties, encoding=detect_encoding([target.read_bytes()])
    )
    # Some exports name jars Defects4J never shipped (rjust/defects4j#410, #133); JUnit 4.11 from
    # Defects4J's own lib is on the path and suffices. Candidates compile at the level Defects4J's
    # build compiled the project (see java_level).
    level = java_level.class_file_level(ws.classes_dir) or java_level.DEFAULT_LEVEL
    built, unbuilt = built_tests(ws.relevant_tests, ws.test_classes_dir)
    return replace(
        ws,
        classpath=tuple(p for p in ws.classpath if p.exists()),
        java_release=java_level.in_memory_release(level),
        relevant_tests=built,
        unbuilt_tests=unbuilt,
    )


def built_tests(relevant: tuple[str, ...], test_classes: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``relevant`` split into the test classes the build compiled and those it did not. Defects4J
    lists some test classes its own patches delete for newer Java (JacksonDatabind's ``ext.TestSOAP``
    from bug 16 on: ``javax.xml.soap`` is gone in Java 11); its test run does not count a class that
    was not built, so neither does nl2fix. When none was built, the list stays as it is, for the
    failure to show."""
    unbuilt = tuple(t for t in relevant if not (test_classes / (t.replace(".", "/") + ".class")).is_file())
    if not unbuilt or len(unbuilt) == len(relevant):
        return relevant, ()
    return tuple(t for t in relevant if t not in unbuilt), unbuilt


@contextmanager
def candidate_slot(pristine: Path, slots: int) -> Iterator[Path]:
    """A fresh copy of the pristine checkout, held for one candidate and emptied afterwards: it
    holds nothing of any earlier candidate or run (untracked and ignored files, build outputs and
    dot-folders included), since each is copied anew from the pristine one, which no job writes.
    The folder itself stays: a warm JVM of the fast engine that judged an earlier candidate here
    sees it through a bind mount, which would not follow a folder made anew."""
    slots_dir = _slots_dir(pristine)
    while True:
        for k in range(max(1, slots)):
            with _try_lock(slots_dir / f"{k}.lock") as taken:
                if not taken:
                    continue
                slot = slots_dir / str(k)
                _fresh_copy(pristine, slot)
                try:
                    yield slot
                finally:
                    _empty(slot)
                return
        time.sleep(_SLOT_POLL_SECONDS)


def _fresh_copy(pristine: Path, slot: Path) -> None:
    # `cp -a` keeps modification times, so Ant sees the compiled classes as up to date; a
    # reflink where the file system has them
    _empty(slot)
    done = run_command(["cp", "-a", "--reflink=auto", "--", f"{pristine}/.", str(slot)], timeout=COPY_TIMEOUT)
    if not done.ok:
        raise Nl2FixError(f"cannot copy {pristine} for a candidate: {done.stderr.strip()[-500:]}")


def _empty(folder: Path) -> None:
    """``folder`` made (when missing) or emptied, whatever modes a job left inside it (``chmod -R``
    follows no link)."""
    folder.mkdir(parents=True, exist_ok=True)
    run_command(["chmod", "-R", "u+rwX", "--", str(folder)], timeout=COPY_TIMEOUT)
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def precheckout(bug_ids: list[str], cache_dir: Path | None = None, d4j: Defects4J | None = None) -> list[Path]:
    """Check out and compile each bug ahead of validation; the checkouts' folders."""
    d4j = d4j or Defects4J.find()
    cache_dir = cache_dir or cache.cache_dir()
    return [ensure_checkout(d4j, bug_id, cache_dir).root for bug_id in bug_ids]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m defects4j_adapter.workspaces.defects4j BUG-ID... (e.g. Lang-1 JxPath-20)")
        return 0 if argv else 2
    try:
        for root in precheckout(argv):
            print(root)
    except Nl2FixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
