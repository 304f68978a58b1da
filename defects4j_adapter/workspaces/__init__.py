"""A bug's workspace: its checked-out (Defects4J) or bundled project, compiled, with its class path
and tests, prepared once into the machine-wide cache. Imports ``nl2fix.core``,
``nl2fix.java_source`` and the lower parts of ``defects4j_adapter`` (``d4j``, ``cache``,
``jvm``, ``sandbox``, ``contract``)."""
