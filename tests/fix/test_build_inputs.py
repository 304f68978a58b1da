"""Which files of a user's project are the build's inputs: in a git work tree the tracked ones, elsewhere
an allow-list; never `.env`, credentials or untracked files, and the build's copy holds nothing else."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from nl2fix.fix.build_inputs import build_inputs
from nl2fix.fix.project_build import BuildOptions, build_project
from tests.helpers.paths import FIXTURES

SECRETS = (".env", ".env.local", "secret.txt", "notes/credentials.json", ".aws/credentials", "src/.env")


def _plain(tmp: Path) -> Path:
    project = tmp / "words"
    shutil.copytree(FIXTURES / "fix_plain", project)
    for name in SECRETS:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("TOKEN=hunter2\n")
    (project / "lib").mkdir()
    (project / "lib/dep.jar").write_bytes(b"PK")
    (project / "src/org/words/messages.properties").write_text("hello=hi\n")
    (project / "target").mkdir()
    (project / "target/Old.class").write_bytes(b"\xca\xfe")
    return project


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_a_folder_git_does_not_track_gives_the_allow_list(tmp_path):
    project = _plain(tmp_path)
    inputs = build_inputs(project)
    assert not inputs.tracked
    assert sorted(map(str, inputs.files)) == [
        "lib/dep.jar",
        "src/org/words/Words.java",
        "src/org/words/messages.properties",
        "test/org/words/WordsTest.java",
    ]


def test_a_git_work_tree_gives_the_tracked_files_and_names_untracked_sources(tmp_path):
    project = _plain(tmp_path)
    _git(project, "init", "-q")
    _git(project, "add", "src", "test", "README")
    _git(project, "commit", "-qm", "initial")
    (project / "src/org/words/New.java").write_text("package org.words; class New {}\n")
    (project / "src/org/words/Words.java").write_text((project / "src/org/words/Words.java").read_text() + "\n")
    inputs = build_inputs(project)
    assert inputs.tracked
    # the working tree's content of tracked files (a change included); src/.env is not tracked
    assert sorted(map(str, inputs.files)) == [
        "README",
        "src/org/words/Words.java",
        "src/org/words/messages.properties",
        "test/org/words/WordsTest.java",
    ]
    assert inputs.left_out == ("lib/dep.jar", "src/org/words/New.java")


def test_the_build_copy_holds_the_inputs_only(tmp_path):
    project = _plain(tmp_path)
    said: list[str] = []
    built = build_project(
        project, BuildOptions(src_dir="src", test_dir="test"), cache_base=tmp_path / "cache", say=said.append
    )
    copied = {str(p.relative_to(built.root)) for p in built.root.rglob("*") if p.is_file()}
    assert not {name for name in SECRETS if name in copied}
    assert {"src/org/words/Words.java", "test/org/words/WordsTest.java", "lib/dep.jar"} <= copied
