"""Tests of ``defects4j_adapter.sandbox``: bubblewrap and Docker confinement."""
