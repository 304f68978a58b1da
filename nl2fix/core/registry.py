"""One registry per interface: its implementations register themselves by name when their module
is imported (a ``providers`` module imports them all), and are looked up by that name."""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from nl2fix.core.errors import Nl2FixError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Registry(Generic[K, V]):
    """Implementations of one interface (``what``: ``"sandbox"``, ``"backend"`` ...) by name, in
    the order they registered."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[K, V] = {}

    def add(self, key: K, entry: V) -> V:
        if key in self._entries:
            raise ValueError(f"two {self.what}s are registered as {key!r}")
        self._entries[key] = entry
        return entry

    def register(self, key: K) -> Callable[[V], V]:
        """Decorator: the decorated object is the implementation named ``key``."""
        return lambda entry: self.add(key, entry)

    def get(self, key: K) -> V:
        """The implementation named ``key``, or a user-facing error listing the names there are."""
        try:
            return self._entries[key]
        except KeyError:
            raise Nl2FixError(f"unknown {self.what} {key!r}", f"choose one of {', '.join(self.names())}") from None

    def names(self) -> tuple[str, ...]:
        return tuple(key.value if isinstance(key, enum.Enum) else str(key) for key in self._entries)

    def entries(self) -> dict[K, V]:
        return dict(self._entries)
