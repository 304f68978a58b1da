"""Everything between a candidate method and what its tests say: workspaces (a bug's checked-out,
compiled buggy revision), the sandbox candidate code runs in, and the compile-and-test engines
that report an outcome for each candidate (the candidate is put in place of the buggy method by
``nl2fix.java_source.splice``).

Its parts, lowest first (each imports only those before it, ``nl2fix.core`` and
``nl2fix.java_source``): ``cache`` (the machine-wide cache), ``d4j/`` (Defects4J's command line),
``bytecode/`` (the check on a compiled candidate's classes), ``jvm/`` (which Java runs the tests,
nl2fix's test runner), ``sandbox/``, ``contract`` (workspace, outcome, engine options, the engine
protocol), ``workspaces/``, ``engines/``.
``java/`` holds the runner's Java sources.
"""
