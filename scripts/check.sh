#!/usr/bin/env bash
# One command for a change (`make check`): formatting (ruff format --check), lint (ruff), types (mypy), the docs site (mkdocs, strictly: a broken link, a
# missing page or an undocumented NL2FIX_* variable fails), then the test suite. Arguments go to pytest,
# e.g. `bash scripts/check.sh -m 'not slow'`. `scripts/setup.sh` installs all four.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff"
python3 -m ruff format --check --quiet .
python3 -m ruff check .
echo "== mypy"
python3 -m mypy
echo "== docs"
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --quiet --site-dir "$site"
echo "== pytest"
python3 -m pytest -q --durations=40 "$@"
