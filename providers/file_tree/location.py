"""Where a turn is: the repository root and the ``files_touched`` inside it, normalised.

Normalising resolves paths through the file system (a ``stat`` per
component) and the kernel resends the same list turn after turn, so the last
answer is kept while the request repeats: a repeated request costs the root's
memo check only. A list that grew is resolved only for its new entries: each
entry's answer is remembered for one root and working directory (100,000
files touched, resolved anew every turn, took seconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from providers.core.request import Turn
from providers.repository.layout import RepoRoots
from providers.repository.paths import normalise_touched


@dataclass(frozen=True)
class _Located:
    """The last request's touched paths, resolved, and what they were resolved from."""

    key: tuple[Path, str, tuple[str, ...]]
    touched: tuple[str, ...]


class Locator:
    """The root and the normalised ``files_touched`` of each turn."""

    def __init__(self) -> None:
        self._roots = RepoRoots()
        self._last: _Located | None = None
        self._resolved: tuple[tuple[Path, str], dict[str, str | None]] | None = None
        """Each files_touched entry resolved, for one root and working directory."""

    def locate(self, turn: Turn) -> tuple[Path, tuple[str, ...]]:
        """The root for the turn's working directory and its touched files inside that root
        (repo-relative POSIX; files outside it are left out)."""
        root = self._roots.root(turn.working_directory)
        key = (root, turn.request.working_directory, turn.files_touched)
        if self._last is not None and self._last.key == key:
            return root, self._last.touched
        if self._resolved is None or self._resolved[0] != key[:2]:
            self._resolved = (key[:2], {})
        touched = normalise_touched(
            root, turn.working_directory, turn.files_touched, self._resolved[1]
        ).inside
        self._last = _Located(key, touched)
        return root, touched
