"""The validation stage: every unique candidate of a run judged by an engine (baselines first),
each verdict stored as it is known. ``options`` is the one value saying how (from the command line
to the engine), ``stage`` reads the work from the run store, ``bug_work`` is one bug's validation,
``executors/`` run it here or on a Ray cluster, ``verdicts`` stores an engine's outcome with its
verdict (:func:`defects4j_adapter.contract.verdict_of`'s). Imports ``nl2fix.core``,
``nl2fix.java_source``, ``nl2fix.store`` and ``defects4j_adapter``."""
