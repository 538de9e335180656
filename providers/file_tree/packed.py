"""A sorted set of paths stored as runs of bytes plus arrays of where each entry starts.

A 300k-file listing as a list of ``str`` costs about 75 bytes per path (the
object header is most of it): three times the listing itself. Here it costs
the listing's own bytes plus 4 per path. Entries are addressed by index, as in
a list: lookups are binary searches, a count is a difference of indices.

The entries are cut into blocks of at most :data:`BLOCK` (as sortedcontainers
cuts its lists), so adding or removing one path moves one block's bytes and
offsets, not the whole listing's: a file created in a 300k-file tree costs
microseconds.

Order is git's: by the bytes of the UTF-8 (``surrogateescape``) encoding.
For valid UTF-8 that is also ``str`` order.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, repeat

BLOCK = 2048
"""Entries per block when built; a block that grows to twice this is split."""

_SLASH = b"/"
_AFTER_SLASH = b"0"
"""The byte after ``/``: ``d/`` up to ``d0`` spans everything below ``d``."""
_LEADS = frozenset(b"\0/")
"""What comes right before a whole last component: an entry's end, or a ``/``."""


def encode(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def decode(raw: bytes | bytearray) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _offsets(lengths: Iterable[int]) -> array[int]:
    """Start of each entry and the end: running sums of (length + 1 separator)."""
    return array("I", accumulate(map(operator.add, lengths, repeat(1)), initial=0))


def _shifted(offsets: array[int], by: int) -> array[int]:
    return array("I", map(operator.add, offsets, repeat(by)))


class _Block:
    """Sorted entries, each ended by a NUL, in one ``bytearray``; ``starts`` ends with the end."""

    __slots__ = ("blob", "starts")

    def __init__(self, blob: bytearray, starts: array[int]) -> None:
        self.blob = blob
        self.starts = starts

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, index: int) -> bytearray:
        starts = self.starts
        return self.blob[starts[index] : starts[index + 1] - 1]

    def insert(self, index: int, key: bytes) -> None:
        at = self.starts[index]
        self.blob[at:at] = key + b"\0"
        self.starts[index + 1 :] = _shifted(self.starts[index:], len(key) + 1)

    def delete(self, lo: int, hi: int) -> None:
        first, after = self.starts[lo], self.starts[hi]
        del self.blob[first:after]
        self.starts[lo:] = _shifted(self.starts[hi:], first - after)

    def split(self) -> tuple[_Block, _Block]:
        half = len(self) // 2
        cut = self.starts[half]
        left = _Block(self.blob[:cut], self.starts[: half + 1])
        right = _Block(self.blob[cut:], _shifted(self.starts[half:], -cut))
        return left, right


class PackedPaths:
    """Sorted unique paths (none empty, none holding NUL); entry ``i`` is ``self[i]``."""

    __slots__ = ("_before", "_blocks", "_firsts")

    def __init__(self) -> None:
        self._blocks: list[_Block] = []
        self._firsts: list[bytes] = []  # each block's first entry
        self._before: list[int] = [0]  # entries before each block, then the total

    @classmethod
    def of(cls, paths: list[str], on_joined: Callable[[bytes], None] | None = None) -> PackedPaths:
        """``paths`` unique; consumed (left empty). ``on_joined`` is shown them sorted and
        joined by NULs, as git lists them, when they are all UTF-8.

        Its strings (300k short-lived objects at 300k files) are freed before
        the blocks are made, so the blocks do not land among them and pin the
        allocator's memory once they are gone.
        """
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
            starts = _offsets(map(len, entries))
            del entries
        else:
            starts = _offsets(map(len, paths if len(blob) == len(joined) else blob.split(b"\0")))
            if on_joined is not None:
                on_joined(blob)
        del joined
        paths.clear()
        for lo in range(0, len(starts) - 1, BLOCK):
            hi = min(lo + BLOCK, len(starts) - 1)
            first, after = starts[lo], starts[hi]
            block_blob = bytearray(blob[first : after - 1])
            block_blob.append(0)
            packed._blocks.append(_Block(block_blob, _shifted(starts[lo : hi + 1], -first)))
        packed._reindex()
        return packed

    def _reindex(self) -> None:
        self._firsts = [bytes(block[0]) for block in self._blocks]
        self._before = list(accumulate((len(block) for block in self._blocks), initial=0))

    def __len__(self) -> int:
        return self._before[-1]

    def _locate(self, index: int) -> tuple[_Block, int]:
        b = bisect_right(self._before, index) - 1
        return self._blocks[b], index - self._before[b]

    def __getitem__(self, index: int) -> bytes:
        """Entry ``index`` as bytes (what :meth:`seek` compares)."""
        block, local = self._locate(index)
        return bytes(block[local])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PackedPaths)
            and len(self) == len(other)
            and b"".join(self._raw()) == b"".join(other._raw())
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def _raw(self) -> Iterator[bytearray]:
        for block in self._blocks:
            yield block.blob

    def __iter__(self) -> Iterator[str]:
        for block in self._blocks:
            blob, starts = block.blob, block.starts
            for i in range(len(starts) - 1):
                yield decode(blob[starts[i] : starts[i + 1] - 1])

    @property
    def size(self) -> int:
        """Bytes in use: the paths with their separators, and the offsets."""
        return sum(len(b.blob) + b.starts.itemsize * len(b.starts) for b in self._blocks)

    # Lookups --------------------------------------------------------------------

    def seek(self, key: bytes, lo: int = 0, hi: int | None = None) -> int:
        """The first index in ``[lo, hi)`` whose entry is not below ``key`` (``hi`` if none)."""
        end = len(self) if hi is None else hi
        b = max(bisect_right(self._firsts, key) - 1, 0)
        found = len(self)
        if self._blocks:
            found = self._before[b] + bisect_left(self._blocks[b], key)
        return min(max(found, lo), end)

    def span(self, directory: str) -> tuple[int, int]:
        """Indices bounding everything below ``directory`` (``""``: everything)."""
        if not directory:
            return 0, len(self)
        prefix = encode(directory)
        lo = self.seek(prefix + _SLASH)
        return lo, self.seek(prefix + _AFTER_SLASH, lo)

    def between(self, after: str | None, before: str | None) -> tuple[int, int]:
        """Indices bounding the entries above ``after`` and below ``before`` (None: no bound)."""
        lo = 0 if after is None else self.seek(encode(after) + b"\0")
        hi = len(self) if before is None else self.seek(encode(before), lo)
        return lo, max(lo, hi)

    def find(self, path: str) -> int | None:
        """The index of ``path``, None when absent."""
        key = encode(path)
        index = self.seek(key)
        return index if index < len(self) and self[index] == key else None

    def direct(self, directory: str) -> list[str]:
        """Names of the entries right in ``directory`` (``""``: the root), in order.

        Walks each block's bytes directly and jumps over every subdirectory's
        entries with one search, so the cost is what is listed, not what is below.
        """
        lo, hi = self.span(directory)
        cut = len(encode(directory)) + 1 if directory else 0
        names: list[str] = []
        i = lo
        while i < hi:
            b = bisect_right(self._before, i) - 1
            base = self._before[b]
            block = self._blocks[b]
            blob, starts = block.blob, block.starts
            stop = min(len(block), hi - base)
            j = i - base
            while j < stop:
                start, end = starts[j] + cut, starts[j + 1] - 1
                slash = blob.find(_SLASH, start, end)
                if slash < 0:
                    names.append(decode(blob[start:end]))
                    j += 1
                else:  # a subdirectory: past its last entry
                    j = self.seek(bytes(blob[starts[j] : slash]) + _AFTER_SLASH, base + j + 1, hi)
                    j -= base
            i = base + j
        return names

    def named(
        self, name: str, directory: str = "", *, skip: str | None = None, limit: int = 0
    ) -> list[str]:
        """Every entry below ``directory`` (``""``: all) whose last component is ``name``,
        sorted; none below ``skip`` (a directory inside it); the first ``limit`` (0: all).

        A byte scan of the blocks the directory spans, no per-entry work: a hit
        counts when a ``/`` or the entry's start comes before it. With a limit the
        scan stops early, unless a name outside ASCII leaves str order and byte
        order apart.
        """
        if not name:
            return []
        lo, hi = self.span(directory)
        ranges = [(lo, hi)]
        if skip is not None:
            skip_lo, skip_hi = self.span(skip)
            ranges = [(lo, max(lo, skip_lo)), (min(hi, skip_hi), hi)]
        key = encode(name) + b"\0"
        found: list[str] = []
        for first, last in ranges:
            if self._scan(key, first, last, found, limit):
                break
        if limit and len(found) >= limit and not all(hit.isascii() for hit in found):
            return self.named(name, directory, skip=skip)[:limit]
        return sorted(found)

    def _scan(self, key: bytes, lo: int, hi: int, found: list[str], limit: int) -> bool:
        """Add the entries ending in ``key`` among ``lo`` to ``hi``; True at ``limit``."""
        b = max(bisect_right(self._before, lo) - 1, 0)
        while b < len(self._blocks) and self._before[b] < hi:
            base, block = self._before[b], self._blocks[b]
            blob, starts = block.blob, block.starts
            end = starts[min(hi - base, len(block))]
            at = blob.find(key, starts[max(lo - base, 0)], end)
            while at >= 0:
                if at == 0 or blob[at - 1] in _LEADS:
                    start = blob.rfind(b"\0", 0, at) + 1
                    found.append(decode(blob[start : at + len(key) - 1]))
                    if len(found) == limit:
                        return True
                at = blob.find(key, at + 1, end)
            b += 1
        return False

    # Changes --------------------------------------------------------------------

    def add(self, path: str) -> bool:
        """Insert ``path``; False when it was there."""
        key = encode(path)
        index = self.seek(key)
        if index < len(self) and self[index] == key:
            return False
        if not self._blocks:
            self._blocks.append(_Block(bytearray(key + b"\0"), array("I", [0, len(key) + 1])))
            self._reindex()
            return True
        b = max(bisect_right(self._firsts, key) - 1, 0)
        block = self._blocks[b]
        local = index - self._before[b]
        block.insert(local, key)
        if len(block) >= 2 * BLOCK:
            self._blocks[b : b + 1] = block.split()
            self._reindex()
            return True
        if local == 0:
            self._firsts[b] = key
        before = self._before
        for later in range(b + 1, len(before)):
            before[later] += 1
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
        kept: list[_Block] = []
        for b, block in enumerate(self._blocks):
            first, after = self._before[b], self._before[b + 1]
            cut_lo, cut_hi = max(lo, first) - first, min(hi, after) - first
            if cut_lo < cut_hi:
                block.delete(cut_lo, cut_hi)
            if len(block):
                kept.append(block)
        self._blocks = kept
        self._reindex()
        return hi - lo
