"""The validation engines (``fast``, ``rebuild``, ``defects4j``), each registered with
:func:`defects4j_adapter.contract.register_engine` and made by ``providers.make_engine``, and what
they share: candidate jobs, the runner's report read into an outcome, environment faults, changed
declarations. Imports ``nl2fix.core``, ``nl2fix.java_source`` and every lower part of
``defects4j_adapter``."""
