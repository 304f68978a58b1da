"""Shared helpers of the example benchmark's maintenance scripts (``build.py``, ``verify.py``).

Pure text helpers (method ranges, the dataset's token form, splicing) first, then thin
wrappers that run ``patch``, ``javac`` and JUnit through :func:`nl2fix.core.processes.run_command`.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from nl2fix.core.processes import ExecResult, run_command
from nl2fix.java_source.lexer import code_tokens, matching_close, tokens_wo_comments  # noqa: F401 (re-exported)

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
METADATA = HERE / "defects4j"
DATASET_JSON = HERE / "nl2fix_dataset.json"
RUNNER_SOURCE = HERE / "runner" / "RunTests.java"
SRC_DIR, TEST_DIR = "src/main/java", "src/test/java"
JUNIT_CP = ["/usr/share/java/junit4.jar", "/usr/share/java/hamcrest-core.jar"]
TIMEOUT = 180


# ---------------------------------------------------------------- pure text helpers


def read_source(path: Path) -> tuple[str, str]:
    """A Java file's text and its encoding: UTF-8 when it decodes as such, else ISO-8859-1."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("iso-8859-1"), "iso-8859-1"


def method_range(text: str, marker: str) -> tuple[int, int]:
    """1-based inclusive lines of the method whose declaration contains ``marker``:
    from its first annotation/modifier line (javadoc excluded) to its closing brace."""
    lines = text.split("\n")
    hits = [i for i, line in enumerate(lines) if marker in line]
    if len(hits) != 1:
        raise ValueError(f"marker {marker!r} found on {len(hits)} lines, expected one")
    start = hits[0]
    while start > 0 and lines[start - 1].strip().startswith("@"):
        start -= 1
    body = "\n".join(lines[hits[0] :])
    tokens = code_tokens(body)
    opening = next((i for i, t in enumerate(tokens) if t.text == "{"), None)
    close = matching_close(tokens, opening) if opening is not None else None
    if close is None:
        raise ValueError(f"no closing brace for the method at {marker!r}")
    return start + 1, hits[0] + body.count("\n", 0, tokens[close].start) + 1


def method_text(text: str, start: int, end: int) -> str:
    """Lines ``start..end`` as the NL2Fix dataset stores a method: first line's indent removed."""
    return "\n".join(text.split("\n")[start - 1 : end]).lstrip()


def splice(text: str, start: int, end: int, method: str) -> str:
    """Replace lines ``start..end`` by ``method`` (indented like the line it replaces)."""
    lines = text.split("\n")
    indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
    return "\n".join(lines[: start - 1] + [indent + method] + lines[end:])


# ---------------------------------------------------------------- project trees


@dataclass(frozen=True)
class Tree:
    """A project checkout on disk (the fixed tree or a buggy copy)."""

    root: Path

    def sources(self, sub: str) -> list[Path]:
        return sorted((self.root / sub).rglob("*.java"))

    def encoding(self) -> str:
        """javac's -encoding: ISO-8859-1 if any source is not UTF-8 (old Defects4J projects)."""
        encs = {read_source(p)[1] for p in self.sources(SRC_DIR) + self.sources(TEST_DIR)}
        return "iso-8859-1" if "iso-8859-1" in encs else "utf-8"

    def test_classes(self) -> list[str]:
        base = self.root / TEST_DIR
        return [".".join(p.relative_to(base).with_suffix("").parts) for p in self.sources(TEST_DIR)]


def copy_tree(src: Path, dest: Path) -> Tree:
    shutil.copytree(src, dest)
    return Tree(dest)


def apply_patch(tree: Tree, patch: Path) -> ExecResult:
    return run_command(["patch", "-p1", "--batch", "--quiet", "-i", patch], cwd=tree.root, timeout=TIMEOUT)


def unified_diff(fixed: Path, buggy: Path, rel: str, out: Path) -> None:
    """``diff -u`` of one file with a/ b/ labels, bytes kept as they are (Latin-1 survives)."""
    cmd = f'diff -u --label "a/{rel}" --label "b/{rel}" "{fixed}" "{buggy}" > "{out}"'
    res = run_command(["sh", "-c", cmd], timeout=TIMEOUT)
    if res.returncode != 1:
        raise RuntimeError(f"diff {rel} gave exit {res.returncode} (no change?): {res.stderr}")


def compile_tree(tree: Tree, out: Path) -> ExecResult:
    """javac --release 8 of main and test sources (and the runner) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    files = tree.sources(SRC_DIR) + tree.sources(TEST_DIR) + [RUNNER_SOURCE]
    return run_command(
        [
            "javac",
            "-nowarn",
            "--release",
            "8",
            "-encoding",
            tree.encoding(),
            "-d",
            out,
            "-cp",
            ":".join(JUNIT_CP),
            *files,
        ],
        timeout=TIMEOUT,
    )


def run_tests(classes: Path, specs: list[str], verbose_class: bool = False) -> ExecResult:
    """Run ``pkg.Class`` / ``pkg.Class::method`` specs; failures come out in trigger_tests format."""
    extra = ["-verbose:class"] if verbose_class else []
    return run_command(
        ["java", *extra, "-cp", ":".join([str(classes), *JUNIT_CP]), "RunTests", *specs], timeout=TIMEOUT
    )


def failures(output: str) -> dict[str, str]:
    """``Class::method`` -> trace, from RunTests output (lines of -verbose:class ignored)."""
    found: dict[str, str] = {}
    current = None
    for line in output.splitlines():
        if line.startswith("--- "):
            current = line[4:].strip()
            found[current] = ""
        elif line.startswith("[") and "class,load" in line:
            continue
        elif current is not None:
            found[current] += line + "\n"
    return found
