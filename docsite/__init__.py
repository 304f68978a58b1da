"""The documentation site's generated pages (``mkdocs.yml`` runs :mod:`docsite.hooks` at build time): the
CLI reference from the click commands, the run store's records from their docstrings, every ``NL2FIX_*``
environment variable found in the code, and the benchmark pages from their scripts' results files. Made
at every build, so none of them can go stale; nothing of the pipeline imports this package."""
