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
# Two workers (pytest-xdist), a test file to a worker: serially the suite keeps ~1.2 of CI's 2 cores busy
# (tests wait on JVMs, containers and servers), and a file's module-scoped fixtures (warm JVMs, Docker
# sandboxes, vLLM and Ray) are made once on its worker. `-n 0` after check.sh runs it serially.
python3 -m pytest -q -n 2 --dist loadfile --durations=40 "$@"
