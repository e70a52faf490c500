"""A small name → object registry, shared by every plugin kind (model families, backends, ...).

A duplicate registration or an unknown lookup raises an error that lists the known names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from nnlat.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Objects registered by a unique name.

    Example:
        >>> reg: Registry[int] = Registry("number")
        >>> reg.register("one", 1)
        1
        >>> reg.get("one")
        1
        >>> reg.names()
        ['one']
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``; a name may be registered once."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """Return the object registered as ``name``.

        Raises:
            UnknownNameError: ``name`` is not registered; the message lists the known names.
        """
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items)) or "(none)"
            raise UnknownNameError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
