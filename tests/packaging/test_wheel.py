"""The wheel carries everything the commands need: built from a copy of the tree, installed without ``-e``
into a fresh venv, and the demo's first stages run from a directory that is not the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from defects4j_adapter.jvm import aot

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = shutil.ignore_patterns(
    ".git", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".benchmarks", "*.class"
)

pytestmark = pytest.mark.slow


def _run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A venv's bin folder with the built wheel installed in it (the dependencies seen from this environment:
    nothing is downloaded, ``--no-index``)."""
    base = tmp_path_factory.mktemp("wheel")
    source, dist, env_dir = base / "source", base / "dist", base / "venv"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT)  # building writes egg-info beside the sources
    _run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", dist, source], cwd=base)
    wheel = next(dist.glob("nl2fix-*.whl"))
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    # the nl2fix this environment has (an editable checkout) must not stand in for the wheel's
    _run(
        [env_dir / "bin" / "python", "-m", "pip", "install", "--no-index", "--no-deps", "--ignore-installed", wheel],
        cwd=base,
    )
    return env_dir / "bin"


def _user_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NL2FIX_", "PYTHON"))}
    # the JDK's precompiled code depends on the JDK alone: the machine's, not made again for a new home
    return {**env, "NL2FIX_CACHE_DIR": str(home / "cache"), "HOME": str(home), aot.DIR_ENV: str(aot.aot_root())}


def test_the_wheel_is_what_runs_and_it_carries_the_data_files(installed, tmp_path):
    where = _run([installed / "python", "-c", "import nl2fix; print(nl2fix.__file__)"], cwd=tmp_path)
    assert Path(where.strip()).is_relative_to(installed.parent)
    listing = _run(
        [
            installed / "python",
            "-c",
            """if True:
        from defects4j_adapter.bytecode.jdk_effects import DATA_FOLDER
        from defects4j_adapter.jvm import aot, os_wall, runner
        from nl2fix.core.files import EXAMPLE_BENCHMARK
        from nl2fix.report.cost import PRICES
        from prompts import TEMPLATE_DIR
        print(EXAMPLE_BENCHMARK / "nl2fix_dataset.json", PRICES, os_wall.SOURCE,
              runner.SOURCES / "nl2fix/runner/Main.java", TEMPLATE_DIR / "chat.j2",
              DATA_FOLDER / "effects-jdk17.txt", aot.CLASSES)""",
        ],
        cwd=tmp_path,
    )
    for path in map(Path, listing.split()):
        assert path.is_file() and path.is_relative_to(installed.parent), path


def test_the_demo_samples_and_validates_from_an_installed_wheel(installed, tmp_path, confined):
    home, run = tmp_path / "home", tmp_path / "runs" / "example"
    env = _user_env(home)
    sampled = _run(
        [
            installed / "nl2fix",
            "sample",
            "--dataset",
            "example",
            "--all",
            "--backend",
            "mutation",
            "-n",
            "3",
            "--run",
            run,
        ],
        cwd=tmp_path,
        env=env,
    )
    assert "27 samples" in sampled
    validated = _run(
        [installed / "nl2fix", "validate", "--run", run, "--bug", "Textkit-1", "--workers", "1", "--quiet"],
        cwd=tmp_path,
        env=env,
    )
    assert "validated 3 candidate(s)" in validated and "1 plausible" in validated
