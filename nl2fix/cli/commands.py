"""Every subcommand, in the order `nl2fix --help` lists them."""

ALL: list = []
