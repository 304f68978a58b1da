"""The `nl2fix` command (``main``: the group; one ``*_cmd`` module per subcommand, ``commands``
listing them in the order of the flow; ``options`` and ``sample_options`` shared by several): it
parses, checks option combinations, and calls the library. No logic of a stage lives here.

May import: every stage.
"""
