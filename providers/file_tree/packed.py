"""A sorted set of paths stored as one run of bytes plus an array of where each starts.

A 300k-file listing as a list of ``str`` costs about 75 bytes per path (the
object header is most of it): three times the listing itself. Here it costs
the listing's own bytes plus 4 per path. Entries are addressed by index, as in
a list: lookups are ``bisect`` over the entries, a count is a difference of
indices, and an insert or delete moves the bytes after it in place and shifts
the offsets after it (C-level iteration, no Python loop per path).

Order is git's: by the bytes of the UTF-8 (``surrogateescape``) encoding.
For valid UTF-8 that is also ``str`` order.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate, repeat

_SLASH = b"/"
_AFTER_SLASH = b"0"
"""The byte after ``/``: ``d/`` up to ``d0`` spans everything below ``d``."""


def encode(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def decode(raw: bytes | bytearray) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _offsets(lengths: Iterator[int]) -> array[int]:
    """Start of each entry and the end: running sums of (length + 1 separator)."""
    return array("I", accumulate(map(operator.add, lengths, repeat(1)), initial=0))


def _shifted(offsets: array[int], by: int) -> array[int]:
    return array("I", map(operator.add, offsets, repeat(by)))


class PackedPaths:
    """Sorted unique paths (none empty, none holding NUL); entry ``i`` is ``self[i]``."""

    __slots__ = ("_blob", "_starts")

    def __init__(self) -> None:
        self._blob = bytearray()
        self._starts: array[int] = array("I", [0])

    @classmethod
    def of(cls, paths: list[str]) -> PackedPaths:
        """``paths`` unique; sorted in place (by str, then by bytes if they differ)."""
        packed = cls()
        if not paths:
            return packed
        paths.sort()
        joined = "\0".join(paths)
        try:
            blob = joined.encode("utf-8")  # no surrogates: str order is byte order
        except UnicodeEncodeError:
            entries = encode(joined).split(b"\0")
            entries.sort()
            blob = b"\0".join(entries)
            packed._starts = _offsets(map(len, entries))
        else:
            lengths = map(len, paths if len(blob) == len(joined) else blob.split(b"\0"))
            packed._starts = _offsets(lengths)
        del joined
        packed._blob = bytearray(blob)
        packed._blob.append(0)
        return packed

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, index: int) -> bytes:
        """Entry ``index`` as bytes (what :meth:`seek` compares)."""
        starts = self._starts
        return bytes(self._blob[starts[index] : starts[index + 1] - 1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PackedPaths) and self._blob == other._blob

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __iter__(self) -> Iterator[str]:
        blob = self._blob
        starts = self._starts
        for i in range(len(starts) - 1):
            yield decode(blob[starts[i] : starts[i + 1] - 1])

    @property
    def size(self) -> int:
        """Bytes in use: the paths with their separators, and the offsets."""
        return len(self._blob) + self._starts.itemsize * len(self._starts)

    # Lookups --------------------------------------------------------------------

    def seek(self, key: bytes, lo: int = 0, hi: int | None = None) -> int:
        """The first index in ``[lo, hi)`` whose entry is not below ``key``."""
        return bisect_left(self, key, lo, len(self) if hi is None else hi)

    def span(self, directory: str) -> tuple[int, int]:
        """Indices bounding everything below ``directory`` (``""``: everything)."""
        if not directory:
            return 0, len(self)
        prefix = encode(directory)
        lo = self.seek(prefix + _SLASH)
        return lo, self.seek(prefix + _AFTER_SLASH, lo)

    def find(self, path: str) -> int | None:
        """The index of ``path``, None when absent."""
        key = encode(path)
        index = self.seek(key)
        return index if index < len(self) and self[index] == key else None

    # Changes --------------------------------------------------------------------

    def add(self, path: str) -> bool:
        """Insert ``path``; False when it was there."""
        key = encode(path)
        index = self.seek(key)
        if index < len(self) and self[index] == key:
            return False
        at = self._starts[index]
        self._blob[at:at] = key + b"\0"
        self._starts[index + 1 :] = _shifted(self._starts[index:], len(key) + 1)
        return True

    def discard(self, path: str) -> bool:
        """Remove ``path``; False when it was not there."""
        index = self.find(path)
        if index is None:
            return False
        self.delete(index, index + 1)
        return True

    def delete(self, lo: int, hi: int) -> int:
        """Remove entries ``lo`` to ``hi`` (exclusive); how many went."""
        if lo >= hi:
            return 0
        starts = self._starts
        first, after = starts[lo], starts[hi]
        del self._blob[first:after]
        starts[lo:] = _shifted(starts[hi:], first - after)
        return hi - lo
