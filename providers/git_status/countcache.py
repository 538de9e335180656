"""Line counts kept from one snapshot to the next, so a turn runs ``git diff`` only for what
changed since: the index's counts while the index file and HEAD are the same, a work tree
file's while it and the index are (:class:`~providers.repository.sources.FileKey`).

A count taken within :data:`RACY_NS` of its file's modification time is not kept: a write
in the same tick of a coarse file-system clock would leave the key as it was (git's own
"racy" case).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from providers.git_status.numstat import Counts
from providers.repository.sources import FileKey

RACY_NS = 2_000_000_000
"""Two seconds: the coarsest file-system clock in common use (FAT)."""


class Known(NamedTuple):
    key: FileKey
    counts: tuple[int, int] | None
    """None: git gave no count (binary, too large, or no change)."""


class CountCache:
    """The counts of one repository's last snapshot, with what they were taken from."""

    def __init__(self) -> None:
        self._index: tuple[FileKey | None, str | None] | None = None
        self._staged: Counts = ()
        self._files: dict[str, Known] = {}
        self._files_index: FileKey | None = None

    def staged(self, index: FileKey | None, head: str | None) -> Counts | None:
        """The index's counts when the index file and HEAD are as they were; else None."""
        if index is None or self._index != (index, head):
            return None
        return self._staged

    def keep_staged(self, index: FileKey | None, head: str | None, counts: Counts) -> None:
        self._index = (index, head)
        self._staged = counts

    def files(
        self, index: FileKey | None, keys: Mapping[str, FileKey | None]
    ) -> dict[str, tuple[int, int] | None]:
        """The kept counts of the files in ``keys`` that are as they were (and the index too)."""
        if index is None or index != self._files_index:
            return {}
        found: dict[str, tuple[int, int] | None] = {}
        for path, key in keys.items():
            known = self._files.get(path)
            if known is not None and key is not None and known.key == key:
                found[path] = known.counts
        return found

    def keep_files(
        self,
        index: FileKey | None,
        keys: Mapping[str, FileKey | None],
        counts: Mapping[str, tuple[int, int] | None],
        taken_ns: int,
    ) -> None:
        """Keep the counts of the files in ``keys`` (taken at ``taken_ns``), unless racy."""
        self._files_index = index
        self._files = {
            path: Known(key, counts.get(path))
            for path, key in keys.items()
            if key is not None and key.mtime_ns < taken_ns - RACY_NS
        }
