# The project's everyday commands; `make check` is what CI runs after `make setup`.
# Every target calls python3 -m ..., so the tools of the environment nl2fix is installed in are used.
PYTHON ?= python3
PYTEST_ARGS ?=
# as scripts/check.sh runs the suite: two workers, a test file to each (`make test TEST_WORKERS=-n0`: serially)
TEST_WORKERS ?= -n 2 --dist loadfile

.PHONY: setup demo test test-fast lint format types docs serve-docs check

setup:  ## the machine: JDKs, bubblewrap, Docker, Maven/Gradle caches, and nl2fix with its test and dev extras
	bash scripts/setup.sh

demo:  ## the whole pipeline on the bundled example benchmark, offline (the mutation backend)
	nl2fix run --dataset example --all --backend mutation -n 20 --run runs/example

test:  ## the whole suite (slow tests compile and run real Java)
	$(PYTHON) -m pytest -q $(TEST_WORKERS) $(PYTEST_ARGS)

test-fast:  ## the suite without the slow tests
	$(PYTHON) -m pytest -q -m 'not slow' $(TEST_WORKERS) $(PYTEST_ARGS)

lint:
	$(PYTHON) -m ruff check .

format:  ## rewrites files in place
	$(PYTHON) -m ruff format .

types:
	$(PYTHON) -m mypy

docs:  ## the documentation site into site/, strictly: a broken link or a page missing from the navigation fails
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict

serve-docs:  ## the documentation site at http://127.0.0.1:8000/, rebuilt as pages change
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs serve

check:  ## what CI runs: formatting (checked, never rewritten), lint, types, the docs' strict build, the tests
	bash scripts/check.sh $(PYTEST_ARGS)
