"""What every watcher backend reports, and what none of them reports (git's own noise).

Watching only invalidates: a backend marks the paths that changed and the next
Contribute recomputes them; when too much changed at once (or the watcher
died) it reports ``overflow`` and the caller recomputes everything, which is
always correct, only slower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

GIT_NOISE = (".git/objects", ".git/logs")
"""Object and reflog writes (background ``git gc``, fetches) change no provider's output;
refs, HEAD and the index, which do, live elsewhere in ``.git``. Every backend leaves them
out: inotify does not watch them, and no backend reports a path in them."""

MAX_PENDING = 50_000
"""More changed paths than this between two turns: give up listing, recompute all."""


@dataclass(frozen=True)
class Changes:
    """What changed since the last drain: absolute paths, or ``overflow`` (assume all)."""

    paths: frozenset[str]
    overflow: bool

    @property
    def any(self) -> bool:
        return self.overflow or bool(self.paths)


def is_git_noise(path: str) -> bool:
    """Whether the absolute ``path`` is one of :data:`GIT_NOISE`'s directories or inside one
    (in any repository under the watch, nested ones included)."""
    return any(f"/{noise}/" in path or path.endswith(f"/{noise}") for noise in GIT_NOISE)


class Watcher(Protocol):
    """What every backend offers (:class:`~providers.watch.backend.Backend`); tests inject
    their own.

    ``start(0)`` starts without waiting and says whether the watch is in place yet.
    """

    @property
    def alive(self) -> bool: ...

    def start(self, timeout: float = ...) -> bool: ...

    def drain(self) -> Changes: ...

    def stop(self) -> None: ...


WatcherFactory = Callable[[Path], Watcher]


class Ignored(Protocol):
    """Which directories a watch leaves out, with everything below them: what git ignores.

    Made by the repository layer from its own ignore rules
    (:class:`providers.repository.ignored_dirs.IgnoredDirs`); paths are absolute. A
    backend that can (inotify) never watches a skipped directory; one that cannot
    (watchfiles) watches everything, as before.
    """

    def skip(self, directory: str) -> bool:
        """Whether ``directory`` (and all below it) goes unwatched."""
        ...

    def rule_file(self, path: str) -> bool:
        """Whether a change at ``path`` may change what :meth:`skip` says (a ``.gitignore``)."""
        ...

    def stale(self) -> bool:
        """Whether a rule file no event reports (``info/exclude``, the global excludes
        file) changed since these rules were read."""
        ...


IgnoredFactory = Callable[[], Ignored]
"""Reads the rules afresh: called on the watcher's thread when it starts, and again
after a rule file changed."""
