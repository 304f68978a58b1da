"""JVM names and descriptors (JVMS 4.2-4.3): which classes a descriptor mentions, whether it is
well formed, and how Java writes it (``java.lang.String``, ``int[]``), for messages and policy
patterns. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable

_PRIMITIVES = {
    "B": "byte",
    "C": "char",
    "D": "double",
    "F": "float",
    "I": "int",
    "J": "long",
    "S": "short",
    "Z": "boolean",
    "V": "void",
}
_FIELD_TYPE = r"\[*(?:[BCDFIJSZ]|L[^;.\[/][^;.\[]*;)"
_FIELD = re.compile(_FIELD_TYPE)
_METHOD = re.compile(rf"\(((?:{_FIELD_TYPE})*)\)(?:V|{_FIELD_TYPE})")
_ONE_TYPE = re.compile(r"(\[*)([BCDFIJSZV]|L([^;]+);)")
_CLASS_IN = re.compile(r"L([^;]+);")


def is_field_descriptor(text: str) -> bool:
    return _FIELD.fullmatch(text) is not None


def is_method_descriptor(text: str) -> bool:
    return _METHOD.fullmatch(text) is not None


def classes_in(descriptor: str) -> list[str]:
    """The classes a field or method descriptor, or an array class name (``[Ljava/lang/Thread;``),
    mentions, as internal names."""
    return _CLASS_IN.findall(descriptor)


def java_name(internal: str) -> str:
    """``java/util/Map$Entry`` -> ``java.util.Map$Entry``: the binary name, as ``Class.getName`` says it."""
    return internal.replace("/", ".")


def java_types(descriptor: str) -> list[str]:
    """Every type in a descriptor as Java writes it, in order (a method's parameters, then its result)."""
    return [
        (java_name(cls) if cls else _PRIMITIVES[code]) + "[]" * len(dims)
        for dims, code, cls in _ONE_TYPE.findall(descriptor)
    ]


def java_parameters(method_descriptor: str) -> str:
    """``(Ljava/io/File;Z)V`` -> ``(java.io.File, boolean)``."""
    return "(" + ", ".join(java_types(method_descriptor[1 : method_descriptor.index(")")])) + ")"


def rename_classes(descriptor: str, rename: Callable[[str], str]) -> str:
    """The descriptor with each class it mentions renamed."""
    return _CLASS_IN.sub(lambda m: f"L{rename(m[1])};", descriptor)
