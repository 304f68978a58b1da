"""Reading a parameter list (pure)."""

from __future__ import annotations

from nl2fix.java_source.lexer import code_tokens
from nl2fix.java_source.parameters import Parameter, parameters


def _read(params: str) -> tuple[Parameter, ...] | None:
    return parameters(code_tokens(params))


def test_types_are_read_through_annotations_final_generics_and_brackets():
    assert _read("final @a.B(x = 1, y = {2, 3}) Map<String, List<? extends T>> m, int xs[][], String... rest") == (
        Parameter("Map<String,List<? extends T>>", "m"),
        Parameter("int[][]", "xs"),
        Parameter("String[]", "rest"),
    )
    assert _read("Map<K, List<V>> a, Map<K, List<List<V>>> b") == (
        Parameter("Map<K,List<V>>", "a"),
        Parameter("Map<K,List<List<V>>>", "b"),
    )
    assert _read("") == ()


def test_a_parameter_without_a_type_or_a_name_is_unreadable():
    assert _read("int") is None
    assert _read("int a, ") == (Parameter("int", "a"),)
    assert _read("int a, []") is None
