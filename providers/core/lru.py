"""A bounded map that forgets its least recently used entry: the one shape of per-session memory.

Sessions never say they have ended (sub-agents share a provider process, and
the kernel sends no goodbye), so whatever a provider remembers per session
(the files touched so far, what it showed last) must be bounded by forgetting.
Forgetting the least recently used session, never the first one added, means a
session in use keeps its memory however many others come and go, as long as
fewer than ``limit`` others were used since it last was. Pure: no clock, no
threads; callers hold their own lock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruMap(Generic[K, V]):
    """At most ``limit`` entries; reading or writing one makes it the most recently used."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        self.limit = limit
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The entry for ``key`` (now the most recently used), or None."""
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key: K, value: V) -> None:
        """Store ``value`` as the most recently used; forget the least recently used past
        ``limit``."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.limit:
            self._entries.popitem(last=False)

    def get_or_add(self, key: K, make: Callable[[], V]) -> V:
        """The entry for ``key``, made by ``make`` and stored when there is none."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found

    def pop(self, key: K) -> V | None:
        """Forget ``key`` (a session that said it ended); its entry, or None."""
        return self._entries.pop(key, None)

    def values(self) -> Iterator[V]:
        """Every entry, least recently used first; looking does not count as a use."""
        return iter(self._entries.values())

    def clear(self) -> None:
        self._entries.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
