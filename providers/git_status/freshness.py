"""Has the repository changed since the last snapshot? Answered without running git.

Two signals, either one means "recompute":

1. the file watchers (``core.watch``), one per root: the working tree, plus
   the git dir and common dir when they live elsewhere (linked worktrees,
   submodules). They start after the first snapshot; until they report
   ready, every turn recomputes. Overflow or a dead watcher means "assume
   changed"; a dead one is started again after the next answer (at most
   :data:`core.watch.MAX_RESTARTS` times).
2. a stat guard that covers the watcher's latency (a change shows up tens of
   milliseconds late): ``HEAD`` (read), the stats of the index, HEAD's branch
   ref file, ``packed-refs``, and the request's ``files_touched``. A touched path never
   seen before counts as changed when it was modified after the last snapshot
   began (less a margin for coarse file-system clocks) or does not exist.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from providers.core.sources import FileKey, file_key
from providers.core.watch import Changes, ChangeWatcher, RestartBudget
from providers.git_status.git import Layout

_CLOCK_MARGIN_NS = 100_000_000
"""File mtimes come from a coarse kernel clock; treat this much before a snapshot as after."""

_MAX_KNOWN = 10_000


class Watcher(Protocol):
    """What :class:`~providers.core.watch.ChangeWatcher` offers; tests inject their own."""

    @property
    def alive(self) -> bool: ...

    def start(self, timeout: float = 5.0) -> bool: ...

    def drain(self) -> Changes: ...

    def stop(self) -> None: ...


WatcherFactory = Callable[[Path], Watcher]


def default_watcher(root: Path) -> Watcher:
    return ChangeWatcher(root)


def watch_roots(layout: Layout) -> tuple[Path, ...]:
    """The fewest directories whose recursive watch covers the tree and all of git's state."""
    candidates = sorted(
        {p for p in (layout.toplevel, layout.git_dir, layout.common_dir) if p is not None}
    )
    roots: list[Path] = []
    for path in candidates:  # sorted: a parent comes before anything inside it
        if not any(path.is_relative_to(root) for root in roots):
            roots.append(path)
    return tuple(roots)


class Freshness:
    """Per repository: watchers plus the stat guard; ``changed()`` once per turn."""

    def __init__(self, layout: Layout, factory: WatcherFactory | None) -> None:
        self._layout = layout
        self._factory = factory
        self._roots = watch_roots(layout)
        self._watchers: list[Watcher] = []
        if factory is not None:
            self._watchers = [factory(root) for root in self._roots]
        self._restarts = RestartBudget()
        self._started = False
        self._ready = False
        self._guard: tuple[object, ...] | None = None
        self._known: dict[Path, FileKey | None] = {}
        self._since_ns = 0
        self._dirty = True

    def start_watching(self) -> None:
        """Start the watchers once the first answer is out; later, start dead ones again.

        Setting up a recursive watch holds the GIL while it walks the tree (1.6 s
        for 100k files), so starting it during the cold turn would stall
        that turn; started after its answer is sent (the provider's
        ``answer_sent``), it only delays the moment turns stop recomputing.
        """
        if not self._started:
            self._started = True
            for watcher in self._watchers:
                watcher.start(timeout=0)
            return
        for index, watcher in enumerate(self._watchers):
            root = self._roots[index]
            if watcher.alive or self._factory is None or not self._restarts.take(root):
                continue
            watcher.stop()
            self._watchers[index] = self._factory(root)
            self._watchers[index].start(timeout=0)
            self._ready = False  # changes before the new watch is in place went unseen

    def changed(self, touched: Iterable[Path]) -> bool:
        """Whether to take a new snapshot; call right before taking it (drains the watchers)."""
        drained = [watcher.drain() for watcher in self._watchers]
        result = self._dirty or not self._watchers or any(c.any for c in drained)
        if not self._ready:
            # Until every watch is in place, changes may go unseen: recompute. The
            # turn that finds them all ready recomputes too, after they were.
            result = True
            self._ready = self._started and all(w.start(timeout=0) for w in self._watchers)
        guard = self._guard_key()
        if guard != self._guard:
            result = True
        if self._touched_changed(touched):
            result = True
        self._guard = guard
        if result:
            self._since_ns = time.time_ns()
        self._dirty = False
        return result

    def invalidate(self) -> None:
        """The last snapshot failed or is gone: the next turn must recompute."""
        self._dirty = True

    def stop(self) -> None:
        for watcher in self._watchers:
            watcher.stop()

    def _guard_key(self) -> tuple[object, ...]:
        """HEAD's content, and the stats of the index, packed-refs and HEAD's branch ref."""
        git_dir, common = self._layout.git_dir, self._layout.common_dir
        try:
            with (git_dir / "HEAD").open("rb") as handle:
                head = handle.read(4096)
        except OSError:
            head = b""
        paths = [git_dir / "index", common / "packed-refs"]
        if head.startswith(b"ref: refs/"):
            paths.append(common / os.fsdecode(head[5:].strip()))
        return (head, *(file_key(path) for path in paths))

    def _touched_changed(self, touched: Iterable[Path]) -> bool:
        changed = False
        if len(self._known) > _MAX_KNOWN:
            self._known.clear()
        for path in touched:
            key = file_key(path)
            if path in self._known:
                changed = changed or self._known[path] != key
            else:
                changed = (
                    changed or key is None or key.mtime_ns >= self._since_ns - _CLOCK_MARGIN_NS
                )
            self._known[path] = key
        return changed
