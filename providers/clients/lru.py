"""A small least-recently-used map: per-session state that cannot grow without bound.

Local stand-in until ``providers/core`` has the shared helper (branch ``h19-names``);
the providers' own per-session maps (scoped docs, file tree) do the same by hand.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; reading or writing one makes it the newest."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("an LRU map holds at least one entry")
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._items))
