"""setuptools reads everything from pyproject.toml; this file adds the one step pyproject cannot say.

The example benchmark lives at ``examples/benchmark`` (beside its README and the scripts that build
and verify it), outside every package, so package data cannot name it. A wheel copies its data
(the scripts stay behind) into ``nl2fix/example_benchmark``, where :mod:`nl2fix.core.files` looks
first: ``nl2fix sample --dataset example`` then works from an installed package, not only from a
source checkout.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

EXAMPLES = Path("examples") / "benchmark"
INSTALLED_AS = Path("nl2fix") / "example_benchmark"


class BuildWithExamples(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / INSTALLED_AS
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns("*.py", "__pycache__", "*.class"))


setup(cmdclass={"build_py": BuildWithExamples})
