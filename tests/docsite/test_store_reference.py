"""The run store page: every record model, and every field with its type, default and docstring."""

from __future__ import annotations

from docsite import store_reference
from nl2fix.store import records, run_store

PAGE = store_reference.page(records, run_store)


def test_every_model_and_field_is_on_the_page_with_its_docstring():
    for model in store_reference.models(records):
        assert f"## {model.__name__}\n" in PAGE
        for name, field in model.model_fields.items():
            assert f"| `{name}` |" in PAGE, f"{model.__name__}.{name}"
            assert field.description, f"{model.__name__}.{name} has no docstring"


def test_types_defaults_and_enum_values_are_spelled_out():
    run_config = PAGE.split("## RunConfig\n")[1].split("\n## ")[0]
    assert "| `context_window` | `int | None` | `4096` |" in run_config
    assert "| `dataset` | `str` | required |" in run_config
    assert "One of: `chat`, `completion`, `edit`." in run_config
