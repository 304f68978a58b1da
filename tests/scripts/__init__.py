"""Tests of ``scripts/``: the Defects4J benchmark scripts."""
