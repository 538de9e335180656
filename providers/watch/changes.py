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

GIT_NOISE = ("/.git/objects/", "/.git/logs/")
"""Object and reflog writes (background ``git gc``, fetches) change no provider's output;
refs, HEAD and the index, which do, live elsewhere in ``.git``."""

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
    return any(part in path for part in GIT_NOISE)


class Watcher(Protocol):
    """What :class:`ChangeWatcher` offers; tests inject their own.

    ``start(0)`` starts without waiting and says whether the watch is in place yet.
    """

    @property
    def alive(self) -> bool: ...

    def start(self, timeout: float = ...) -> bool: ...

    def drain(self) -> Changes: ...

    def stop(self) -> None: ...


WatcherFactory = Callable[[Path], Watcher]
