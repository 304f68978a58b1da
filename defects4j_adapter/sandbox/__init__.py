"""Where untrusted candidate code runs: the sandbox interface and registry (``base``), its
implementations (``bwrap``, ``unconfined``, ``docker`` with its JVM image, ``images``), and the
lookup that makes one from a spec (``providers``). Imports ``nl2fix.core``,
``defects4j_adapter.cache`` and ``defects4j_adapter.jvm`` (the Java a job runs on)."""
