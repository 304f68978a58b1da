"""Tests of ``defects4j_adapter.bytecode``: the class file reader, the policy and the check, on real javac output."""
