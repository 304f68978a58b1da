#!/usr/bin/env bash
# One command for a change: lint (ruff), types (mypy), then the test suite. Arguments go to pytest,
# e.g. `bash scripts/check.sh -m 'not slow'`. `scripts/setup.sh` installs all three.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff"
python3 -m ruff check .
echo "== mypy"
python3 -m mypy
echo "== pytest"
python3 -m pytest -q "$@"
