"""The tracked files' listing, kept as block hashes: where a change of git's index lies.

Staging a file, a commit, ``git rm --cached``: git's index changes, and with
it perhaps the listing (a tracked file is listed even when ignored; one no
longer tracked only when it is not). Listing the tracked files again is
quick (git reads the index, it walks nothing), but telling what changed
needs the last listing, which is not kept (megabytes at 300k files). Its
hashes are: one per :data:`BLOCK` bytes counted from the start, and one per
block counted from the end. The blocks that still agree at either end bound
the one :class:`Span` of paths where the two listings can differ;
:func:`incremental.apply_index` looks at those paths only.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

BLOCK = 8192
"""Bytes of the listing per hash: a change costs this much of it to look at, at least."""

TRACKED_ARGS = ("ls-files", "-z", "--cached")
"""The tracked files, read from the index (a conflicted path is listed once per stage)."""


@dataclass(frozen=True)
class Span:
    """Where two listings of the tracked files differ: between two paths they share."""

    after: str | None
    """The last path before the span (None: it starts with the listing)."""
    before: str | None
    """The first path after it (None: it runs to the end)."""
    paths: frozenset[str]
    """The tracked paths in the span now."""


def _digest(view: memoryview) -> bytes:
    return hashlib.sha1(view, usedforsecurity=False).digest()[:12]


def _agreeing(ours: list[bytes], theirs: list[bytes]) -> int:
    """How many leading hashes are the same."""
    count = 0
    for one, other in zip(ours, theirs, strict=False):
        if one != other:
            break
        count += 1
    return count


class TrackedBlocks:
    """The hashes of one listing of the tracked files: NUL-separated paths, git's order."""

    __slots__ = ("heads", "size", "tails")

    def __init__(self, size: int, heads: list[bytes], tails: list[bytes]) -> None:
        self.size = size
        self.heads = heads
        self.tails = tails

    @classmethod
    def of(cls, listing: bytes | bytearray | memoryview) -> TrackedBlocks:
        """The hashes of ``listing`` (``a\\0b``; a last NUL, as git writes, is left out)."""
        view = memoryview(listing)
        if view[-1:].tobytes() == b"\0":
            view = view[:-1]
        size = len(view)
        heads = [_digest(view[at : at + BLOCK]) for at in range(0, size, BLOCK)]
        tails = [_digest(view[max(end - BLOCK, 0) : end]) for end in range(size, 0, -BLOCK)]
        return cls(size, heads, tails)

    def same(self, other: TrackedBlocks) -> bool:
        return self.size == other.size and self.heads == other.heads

    def span(self, other: TrackedBlocks, listing: bytes) -> Span:
        """Where ``listing`` (whose hashes are ``other``) can differ from the listing
        these hashes were taken of."""
        size = other.size
        common = min(size, self.size)
        head = min(_agreeing(self.heads, other.heads) * BLOCK, common)
        tail = min(_agreeing(self.tails, other.tails) * BLOCK, common - head)
        # Whole paths in the common head are the same in both, at the same offsets; so
        # are the paths after the first NUL in the common tail.
        cut = listing.rfind(b"\0", 0, head)
        after = None if cut < 0 else listing[listing.rfind(b"\0", 0, cut) + 1 : cut]
        end = listing.find(b"\0", size - tail, size) if tail else -1
        if end < 0:
            before, end = None, size
        else:
            follows = listing.find(b"\0", end + 1, size)
            before = listing[end + 1 : follows if follows >= 0 else size]
        paths = {os.fsdecode(path) for path in listing[cut + 1 : end].split(b"\0") if path}
        return Span(
            None if after is None else os.fsdecode(after),
            None if before is None else os.fsdecode(before),
            frozenset(paths),
        )
