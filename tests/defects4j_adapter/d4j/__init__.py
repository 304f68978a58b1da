"""Tests of ``defects4j_adapter.d4j``: the Defects4J output parsers."""
