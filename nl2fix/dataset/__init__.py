"""The dataset stage: bugs in. ``load`` reads the NL2Fix JSON (and the bundled example benchmark,
same format) with Defects4J's metadata into ``Bug`` records; ``build`` makes such a file from
Defects4J checkouts and the issue trackers (``trackers``, their markup turned to text by
``markup``); ``diff`` compares two files; ``download`` fetches the published one; ``stats`` gives
the paper's Table 1; ``filters`` and ``hard_bugs`` narrow a selection by date and difficulty.

May import: ``nl2fix.core``, ``nl2fix.java_source``, and of ``defects4j_adapter`` the command line
(``d4j``), the cache and the Defects4J checkouts (``workspaces``) that ``build`` reads sources from.
"""
