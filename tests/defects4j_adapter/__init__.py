"""Tests of ``defects4j_adapter``."""
