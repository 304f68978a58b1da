"""Tests of ``defects4j_adapter.engines``: splicing, the fast and rebuild engines, the red-team corpus."""
