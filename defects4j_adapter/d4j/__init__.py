"""Defects4J's command line: finding an installation, running it, and reading what it prints and
writes (failing tests, test reports). Imports only ``nl2fix.core``."""
