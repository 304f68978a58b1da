"""The run store's records, from the pydantic models of :mod:`nl2fix.store.records`: each model's docstring
and, per field, its type, default and attribute docstring (the models keep them as field descriptions)."""

from __future__ import annotations

import enum
import inspect
import types
import typing
from types import ModuleType

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from docsite.markdown import cell, prose, table


def models(module: ModuleType) -> list[type[BaseModel]]:
    """The public models the module defines, in the order of its source."""
    found = [
        value
        for name, value in vars(module).items()
        if not name.startswith("_")
        and inspect.isclass(value)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]
    return sorted(found, key=lambda model: inspect.getsourcelines(model)[1])


def type_name(annotation: object) -> str:
    if annotation is type(None):
        return "None"
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return " | ".join(type_name(arg) for arg in typing.get_args(annotation))
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is not None:
        inner = ", ".join("..." if arg is Ellipsis else type_name(arg) for arg in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]" if args else origin.__name__
    return str(annotation).replace("typing.", "")


def enums_in(annotation: object) -> list[type[enum.Enum]]:
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [annotation]
    return [found for arg in typing.get_args(annotation) for found in enums_in(arg)]


def field_rows(model: type[BaseModel]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for name, field in model.model_fields.items():
        if field.default is not PydanticUndefined:
            default = f"`{field.default.value if isinstance(field.default, enum.Enum) else field.default!r}`"
        elif field.default_factory is not None:
            default = "`" + repr(field.default_factory()) + "`"  # type: ignore[call-arg]
        else:
            default = "required"
        meaning = cell(field.description or "")
        for kind in enums_in(field.annotation):
            meaning += " One of: " + ", ".join(f"`{member.value}`" for member in kind) + "."
        rows.append((f"`{name}`", f"`{type_name(field.annotation)}`", default, meaning))
    return rows


def page(records: ModuleType, store: ModuleType) -> str:
    parts = [
        "# The run store's records",
        "",
        "Generated from `nl2fix/store/records.py` when the site is built (`docsite/store_reference.py`): "
        "a run's `run.sqlite` keeps these pydantic models, most as JSON in a `record` column of their table. "
        "What the store itself promises:",
        "",
        prose(inspect.getdoc(store) or ""),
        "",
    ]
    for model in models(records):
        parts += [
            f"## {model.__name__}",
            "",
            prose(inspect.getdoc(model) or ""),
            "",
            table(("field", "type", "default", "meaning"), field_rows(model)),
            "",
        ]
    return "\n".join(parts)
