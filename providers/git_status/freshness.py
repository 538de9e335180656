"""Has the repository changed since the last snapshot? Answered without running git.

Two signals, either one means "recompute":

1. the file watchers (``watch.WatchLifecycle``), one per root: the
   working tree, plus the git dir and common dir when they live elsewhere
   (linked worktrees, submodules). They start once the first snapshot's
   answer is out; until they report ready, every turn recomputes. Overflow
   or a dead watcher means "assume changed"; a dead one is started again
   after the next answer (at most :data:`watch.MAX_RESTARTS` times).
2. a stat guard that covers the watcher's latency (a change shows up tens of
   milliseconds late): ``HEAD`` (read), the stats of the index, HEAD's branch
   ref file, ``packed-refs``, and the request's ``files_touched``. A touched path never
   seen before counts as changed when it was modified after the last snapshot
   began (less a margin for coarse file-system clocks) or does not exist.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from providers.git_status.git import RepoLayout
from providers.repository.gitexec import GitRunner
from providers.repository.ignored_dirs import IgnoredDirs
from providers.repository.sources import FileKey, file_key, read_prefix
from providers.watch import IgnoredFactory, WatcherFactory, WatchLifecycle

_CLOCK_MARGIN_NS = 100_000_000
"""File mtimes come from a coarse kernel clock; treat this much before a snapshot as after."""

_MAX_KNOWN = 10_000


def watch_roots(layout: RepoLayout) -> tuple[Path, ...]:
    """The fewest directories whose recursive watch covers the tree and all of git's state."""
    candidates = sorted(
        {p for p in (layout.toplevel, layout.git_dir, layout.common_dir) if p is not None}
    )
    roots: list[Path] = []
    for path in candidates:  # sorted: a parent comes before anything inside it
        if not any(path.is_relative_to(root) for root in roots):
            roots.append(path)
    return tuple(roots)


def _ignored(toplevel: Path | None, runner: GitRunner | None) -> IgnoredFactory | None:
    """What git ignores in the work tree goes unwatched: ``git status`` shows none of it
    (tracked files there excepted, and those stay watched); ``.git`` stays watched."""
    if toplevel is None:
        return None
    return lambda: IgnoredDirs(toplevel, runner)


class Freshness:
    """Per repository: the watch lifecycle plus the stat guard; ``changed()`` once per turn."""

    def __init__(
        self, layout: RepoLayout, factory: WatcherFactory | None, runner: GitRunner | None = None
    ) -> None:
        self._layout = layout
        self._watch = WatchLifecycle(
            watch_roots(layout), factory, ignored=_ignored(layout.toplevel, runner)
        )
        self._guard: tuple[object, ...] | None = None
        self._known: dict[Path, FileKey | None] = {}
        self._since_ns = 0
        self._dirty = True

    def answer_computed(self) -> None:
        """A snapshot is out: the watchers may start after its answer is sent."""
        self._watch.answer_computed()

    def answer_sent(self) -> None:
        """Start the watchers (new, or replacing dead ones) now that the answer is out.

        Setting up a recursive watch holds the GIL while it walks the tree (1.6 s
        for 100k files), so starting it during the cold turn would stall that
        turn; started after its answer is sent, it only delays the moment turns
        stop recomputing.
        """
        self._watch.answer_sent()

    def changed(self, touched: Iterable[Path]) -> bool:
        """Whether to take a new snapshot; call right before taking it (drains the watchers).

        Until every watch is in place, and on the turn that finds them all in
        place, changes may have gone unseen: recompute.
        """
        report = self._watch.poll()
        result = self._dirty or not report.complete or report.changes.any
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
        self._watch.stop()

    def _guard_key(self) -> tuple[object, ...]:
        """HEAD's content, and the stats of the index, packed-refs and HEAD's branch ref."""
        git_dir, common = self._layout.git_dir, self._layout.common_dir
        head = read_prefix(git_dir / "HEAD", 4096) or b""
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
