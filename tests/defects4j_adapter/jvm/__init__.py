"""Tests of ``defects4j_adapter.jvm``: the reference Java, the test runner's report, Java levels."""
