"""Tests of ``defects4j_adapter.workspaces``: Defects4J checkouts and preparing bugs."""
