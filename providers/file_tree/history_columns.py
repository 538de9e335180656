"""The history's per-path columns, held as bytes and arrays: no object per path.

An import commit lists every file (100,000 of them): as a tuple of ``str``
and a dict of activities, its paths took most of the provider's memory,
several times the listing's own. Here a path costs its bytes, a 4-byte
offset and an 8-byte activity. The paths of co-change commits (a few
thousand at most) are looked up in a dict, as the ranking asks for them
most; any other path was changed by a large commit, whose ids are kept in
git's order (by the paths' bytes), so a binary search finds it.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, islice

_OFFSETS = "I"


def _encode(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


class PathColumn:
    """Paths by id, in one NUL-separated run of bytes."""

    __slots__ = ("_blob", "_starts")

    def __init__(self, blob: bytes, count: int) -> None:
        lengths = map(len, blob.split(b"\0")) if count else iter(())
        starts = array(_OFFSETS, accumulate((n + 1 for n in lengths), initial=0))
        if len(starts) != count + 1:
            raise ValueError(f"{len(starts) - 1} paths where {count} were written")
        self._blob = blob
        self._starts = starts

    @classmethod
    def of(cls, paths: Sequence[str]) -> PathColumn:
        return cls(_encode("\0".join(paths)), len(paths))

    def joined(self) -> bytes:
        """The paths joined by NULs (what :meth:`PathColumn` is made from)."""
        return self._blob

    def raw(self, index: int) -> bytes:
        starts = self._starts
        return self._blob[starts[index] : starts[index + 1] - 1]

    def __getitem__(self, index: int) -> str:
        return self.raw(index).decode("utf-8", "surrogateescape")

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __iter__(self) -> Iterator[str]:
        return iter(self._blob.decode("utf-8", "surrogateescape").split("\0") if self else ())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PathColumn) and self._blob == other._blob and len(self) == len(other)
        )

    __hash__ = None  # type: ignore[assignment]  # compared by value, never a key


def in_git_order(ids: Sequence[int], paths: Sequence[str]) -> Sequence[int]:
    """``ids`` (of ``paths``, in the same order) sorted by the paths' bytes, as git lists
    a commit's files: already so, they are returned as they are."""
    if all(map(str.isascii, paths)) and all(map(operator.lt, paths, islice(paths, 1, None))):
        return ids
    order = sorted(range(len(ids)), key=lambda i: _encode(paths[i]))
    return [ids[i] for i in order]


class Activity(Mapping[str, float]):
    """Per path (in id order), the sum of the weights of the commits that changed it.

    ``by_path`` gives the ids of the co-change commits' paths; every other path is
    in one of the ``large`` commits (id arrays in git's order: see
    :func:`in_git_order`).
    """

    __slots__ = ("_by_path", "_large", "_paths", "_values")

    def __init__(
        self,
        paths: PathColumn,
        values: array[float],
        by_path: Mapping[str, int],
        large: Iterable[Sequence[int]],
    ) -> None:
        self._paths = paths
        self._values = values
        self._by_path = by_path
        self._large = tuple(large)

    def column(self) -> array[float]:
        """The activities in id order."""
        return self._values

    def id_of(self, path: str) -> int | None:
        found = self._by_path.get(path)
        if found is not None or not self._large:
            return found
        key = _encode(path)
        raw = self._paths.raw
        for ids in self._large:
            at = bisect_left(ids, key, key=raw)
            if at < len(ids) and raw(ids[at]) == key:
                return ids[at]
        return None

    def get(self, path: str, default: float | None = None) -> float | None:  # type: ignore[override]  # fast path: no KeyError per miss
        found = self.id_of(path)
        return default if found is None else self._values[found]

    def __getitem__(self, path: str) -> float:
        found = self.id_of(path)
        if found is None:
            raise KeyError(path)
        return self._values[found]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
