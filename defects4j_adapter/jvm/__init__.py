"""The JVM side of validation: which Java runs the tests and at what language level, which JUnit
the runner loads, nl2fix's Java test runner (built once per machine, its requests and command
line) and the key its reports are signed with. Imports ``nl2fix.core``, ``defects4j_adapter.d4j``
and ``defects4j_adapter.cache``."""
