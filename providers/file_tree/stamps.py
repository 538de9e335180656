"""Where no watcher runs (``watch = false``, or it failed): is the last listing still current?

Creating, deleting or renaming a file changes its directory's modification
time, so the listing stands while every listed directory (and the root) keeps
the time it had when the listing began. Editing a file changes nothing that
is listed, except a ``.gitignore``, whose own time and size are kept too;
git's index and excludes files are checked by the caller. A turn then costs
one ``stat`` per directory instead of a listing.

A directory whose time is not safely older than the listing's start counts as
changed: it may have changed while git was reading it (git's "racy" rule).
Not visible this way: a new file in a directory that held only ignored files
(it is not listed, so not stamped); a full listing after :data:`RENEW_AFTER_S`
bounds how long that can go unseen.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from providers.repository.sources import file_key

RACY_MARGIN_NS = 2_000_000_000
"""File systems with coarse times (1-2 s) would hide a change made just after the start."""

RENEW_AFTER_S = 60.0

_RACY = -1


def _stamp(path: str) -> tuple[int, int] | None:
    key = file_key(path)
    return None if key is None else (key.mtime_ns, key.size)


@dataclass(frozen=True)
class DirStamps:
    """Times (and sizes) of the listed directories and ``.gitignore`` files."""

    entries: tuple[tuple[str, int, int], ...]
    taken_at: float

    @classmethod
    def take(
        cls, root: Path, dirs: Iterable[str], gitignores: Iterable[str], started_ns: int
    ) -> DirStamps:
        """Stamp ``root``, its listed ``dirs`` and ``gitignores`` (relative paths) right
        after a listing that began at ``started_ns`` (``time.time_ns()``)."""
        base = os.fspath(root)
        entries: list[tuple[str, int, int]] = []
        for rel in ("", *dirs):
            path = os.path.join(base, rel) if rel else base
            found = _stamp(path)
            if found is None or found[0] >= started_ns - RACY_MARGIN_NS:
                entries.append((path, _RACY, 0))
            else:
                entries.append((path, found[0], -1))  # a directory's size says nothing
        for rel in gitignores:
            path = os.path.join(base, rel)
            found = _stamp(path)
            mtime, size = found if found is not None else (_RACY, 0)
            entries.append((path, _RACY if mtime >= started_ns - RACY_MARGIN_NS else mtime, size))
        return cls(tuple(entries), time.monotonic())

    def changed(self) -> bool:
        """Whether anything stamped changed (or could have), or the stamps are old."""
        if time.monotonic() - self.taken_at > RENEW_AFTER_S:
            return True
        for path, mtime, size in self.entries:
            if mtime == _RACY:
                return True
            found = _stamp(path)
            if found is None or found[0] != mtime or (size >= 0 and found[1] != size):
                return True
        return False
