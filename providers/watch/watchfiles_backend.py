"""The watchfiles backend: the recursive watch off Linux (on Linux, ``watch.inotify``).

watchfiles sets up its recursive watch in Rust; its first yield says the
watch is in place, and every batch after it is recorded until the next drain
(:class:`~providers.watch.backend.Backend` leaves git's noise out).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from providers.watch.backend import Backend

WatchFn = Callable[..., Iterator[set[tuple[Any, str]]]]
"""``watchfiles.watch``'s shape; tests inject their own generator."""

_WATCH_LIMIT = "watch limit"
"""In watchfiles' error when inotify has no watches left ("OS file watch limit reached").
Only watchfiles' inotify backend raises it: this backend runs on Linux too when Python
cannot reach libc's inotify (``inotify.available()`` is false), and then it is the only
word that a new watch would run out as well."""


def _default_watch_fn() -> WatchFn:
    import watchfiles  # heavy import: only when a watcher actually starts

    return watchfiles.watch


class ChangeWatcher(Backend):
    """Records changed paths under ``root`` from a daemon thread, through watchfiles."""

    def __init__(
        self,
        root: Path,
        *,
        watch_fn: WatchFn | None = None,
        step_ms: int = 10,
        debounce_ms: int = 40,
    ) -> None:
        super().__init__(root)
        self._watch_fn = watch_fn
        self._step_ms = step_ms
        self._debounce_ms = debounce_ms

    def _watch(self) -> None:
        watch_fn = self._watch_fn or _default_watch_fn()
        try:
            for batch in watch_fn(
                self._root,
                watch_filter=None,
                step=self._step_ms,
                debounce=self._debounce_ms,
                rust_timeout=20,  # the first (empty) yield says the watch is in place
                yield_on_timeout=True,
                stop_event=self._stop,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                if not self._ready.is_set() and not _watch_possible(os.fspath(self._root)):
                    # Set up without a word (watchfiles ignores "no watches left" along
                    # with permission errors), but with none left it may see only part.
                    self._run_out("cannot see everything")
                    break
                self._in_place()
                if batch:
                    self._record(path for _, path in batch)
                    if self._lost_new_directory(batch):
                        break
                if self._stop.is_set():
                    break
        except Exception as exc:
            if _WATCH_LIMIT not in str(exc):
                raise
            self._run_out("stopped")

    def _lost_new_directory(self, batch: set[tuple[Any, str]]) -> bool:
        """Whether a directory this batch created may have gone unwatched.

        inotify watches are a per-user system limit. When they run out, the
        watch already in place keeps running but cannot add the directories
        created since: their changes would never be reported. One probe per
        batch (adding a watch of our own on the first new directory) tells.
        """
        for change, path in batch:
            if int(change) == _ADDED and os.path.isdir(path) and not _watch_possible(path):
                self._run_out("can no longer see everything")
                return True
            if int(change) == _ADDED and os.path.isdir(path):
                return False  # one probe per batch is enough
        return False


_ADDED = 1
"""``watchfiles.Change.added``."""
_ENOSPC = 28
_IN_ATTRIB = 0x4
_IN_NONBLOCK_CLOEXEC = 0o4000 | 0o2000000


def _watch_possible(path: str) -> bool:
    """Whether one more inotify watch can be added now (Linux; elsewhere assumed so)."""
    import ctypes  # only once a directory was created under a watch

    from providers.watch.inotify import _lib  # the one libc handle

    lib = _lib()
    if lib is None:
        return True
    fd = lib.inotify_init1(_IN_NONBLOCK_CLOEXEC)
    if fd < 0:
        return ctypes.get_errno() not in (_ENOSPC, 24)  # 24: EMFILE, no instances left
    try:
        wd = lib.inotify_add_watch(fd, os.fsencode(path), _IN_ATTRIB)
        return wd >= 0 or ctypes.get_errno() != _ENOSPC
    finally:
        os.close(fd)
