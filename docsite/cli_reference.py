"""The CLI reference, from the click commands themselves: every command and group under
``nl2fix.cli.main.cli``, with its usage, its help text and each option as ``--help`` prints it."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import click

from docsite.markdown import cell, prose, table


def commands(command: click.Command, ctx: click.Context) -> Iterator[tuple[click.Command, click.Context]]:
    """``command`` and every command under it, depth first in the order ``--help`` lists them."""
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from commands(sub, click.Context(sub, info_name=name, parent=ctx))


def path_of(ctx: click.Context) -> str:
    return ctx.command_path


def anchor(ctx: click.Context) -> str:
    """The heading's id, as mkdocs' toc extension makes it from ``nl2fix dataset build``."""
    return "-".join(path_of(ctx).split())


def options(command: click.Command, ctx: click.Context) -> list[tuple[str, str]]:
    """(names with metavar, help) of each option, exactly as ``--help`` gives them."""
    records = (param.get_help_record(ctx) for param in command.get_params(ctx))
    return [record for record in records if record is not None]


def section(command: click.Command, ctx: click.Context) -> str:
    depth = len(path_of(ctx).split())
    parts = [f"{'#' * min(depth + 1, 4)} {path_of(ctx)}", ""]
    parts += ["```text", f"{path_of(ctx)} {' '.join(command.collect_usage_pieces(ctx))}", "```", ""]
    if command.help:
        # click's \b marks a paragraph it must not rewrap: Markdown keeps lines as they are anyway
        parts += [prose(inspect.cleandoc(command.help).replace("\b\n", "")), ""]
    arguments = [param for param in command.get_params(ctx) if isinstance(param, click.Argument)]
    if arguments:
        parts += ["Arguments: " + ", ".join(f"`{param.make_metavar(ctx)}`" for param in arguments), ""]
    if isinstance(command, click.Group):
        rows = [
            (f"[`{sub_ctx.info_name}`](#{anchor(sub_ctx)})", cell(sub.get_short_help_str(limit=120)))
            for sub, sub_ctx in list(commands(command, ctx))[1:]
            if sub_ctx.parent is ctx
        ]
        parts += [table(("command", "what it does"), rows), ""]
    rows = [(f"`{names}`", cell(help_text)) for names, help_text in options(command, ctx)]
    if rows:
        parts += [table(("option", "meaning"), rows), ""]
    return "\n".join(parts)


def page(root: click.Command, name: str = "nl2fix") -> str:
    ctx = click.Context(root, info_name=name)
    head = (
        "# CLI reference\n\nGenerated from the click commands when the site is built "
        "(`docsite/cli_reference.py`), so it is what `--help` prints: each option's names, its value and "
        "its help with the default.\n"
    )
    return head + "\n" + "\n".join(section(command, sub_ctx) for command, sub_ctx in commands(root, ctx))
