"""The watchfiles backend: the recursive watch off Linux (on Linux, ``watch.inotify``).

watchfiles sets up its recursive watch in Rust; its events are filtered of
git's own noise and recorded until the next drain.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from providers.watch.changes import MAX_PENDING, Changes, is_git_noise

log = logging.getLogger(__name__)

WatchFn = Callable[..., Iterator[set[tuple[Any, str]]]]
"""``watchfiles.watch``'s shape; tests inject their own generator."""


def _default_watch_fn() -> WatchFn:
    import watchfiles  # heavy import: only when a watcher actually starts

    return watchfiles.watch


class ChangeWatcher:
    """Records changed paths under ``root`` from a daemon thread."""

    def __init__(
        self,
        root: Path,
        *,
        watch_fn: WatchFn | None = None,
        step_ms: int = 10,
        debounce_ms: int = 40,
    ) -> None:
        self._root = root
        self._watch_fn = watch_fn
        self._step_ms = step_ms
        self._debounce_ms = debounce_ms
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._overflow = False
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed = False
        self.exhausted = False
        """The system ran out of inotify watches: a new watch would fail too, so the
        lifecycle does not replace this one."""

    @property
    def alive(self) -> bool:
        """True while the thread runs and has not failed."""
        return self._thread is not None and self._thread.is_alive() and not self._failed

    def start(self, timeout: float = 5.0) -> bool:
        """Start watching; return once the watch is in place (True) or failed (False).

        Anything that changes after a True return will be reported by ``drain``.
        """
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"watch:{self._root}", daemon=True
            )
            self._thread.start()
        self._ready.wait(timeout)
        return self.alive and self._ready.is_set()

    def stop(self) -> None:
        self._stop.set()

    def drain(self) -> Changes:
        """Take what changed since the previous drain (overflow if the watcher is not alive)."""
        with self._lock:
            paths = frozenset(self._pending)
            overflow = self._overflow or not self.alive
            self._pending.clear()
            self._overflow = False
        return Changes(paths, overflow)

    def _run(self) -> None:
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
                    self._give_up_exhausted("cannot see everything")
                    break
                self._ready.set()
                if batch:
                    self._record(path for _, path in batch if not is_git_noise(path))
                    if self._lost_new_directory(batch):
                        break
                if self._stop.is_set():
                    break
        except Exception as exc:  # the watcher is an optimisation; failing must not kill us
            self.exhausted = _WATCH_LIMIT in str(exc)
            why = _WATCH_LIMIT_ADVICE if self.exhausted else str(exc)
            log.warning("file watcher for %s stopped (%s); recomputing every turn", self._root, why)
        finally:
            self._failed = True
            self._ready.set()

    def _lost_new_directory(self, batch: set[tuple[Any, str]]) -> bool:
        """Whether a directory this batch created may have gone unwatched.

        inotify watches are a per-user system limit. When they run out, the
        watch already in place keeps running but cannot add the directories
        created since: their changes would never be reported. One probe per
        batch (adding a watch of our own on the first new directory) tells.
        """
        for change, path in batch:
            if int(change) == _ADDED and os.path.isdir(path) and not _watch_possible(path):
                self._give_up_exhausted("can no longer see everything")
                return True
            if int(change) == _ADDED and os.path.isdir(path):
                return False  # one probe per batch is enough
        return False

    def _give_up_exhausted(self, what: str) -> None:
        self.exhausted = True
        log.warning(
            "file watcher for %s %s (%s); recomputing every turn",
            self._root,
            what,
            _WATCH_LIMIT_ADVICE,
        )

    def _record(self, paths: Iterator[str]) -> None:
        with self._lock:
            if self._overflow:
                return
            self._pending.update(paths)
            if len(self._pending) > MAX_PENDING:
                self._pending.clear()
                self._overflow = True


_ADDED = 1
"""``watchfiles.Change.added``."""
_WATCH_LIMIT = "watch limit"
"""In watchfiles' error when inotify has no watches left ("OS file watch limit reached")."""
_WATCH_LIMIT_ADVICE = "inotify watches ran out; raise fs.inotify.max_user_watches"
_ENOSPC = 28
_IN_ATTRIB = 0x4
_IN_NONBLOCK_CLOEXEC = 0o4000 | 0o2000000
_inotify: Any = None


def _watch_possible(path: str) -> bool:
    """Whether one more inotify watch can be added now (Linux; elsewhere assumed so)."""
    global _inotify
    if _inotify is None:
        try:
            import ctypes  # only once a directory was created under a watch

            _inotify = ctypes.CDLL(None, use_errno=True)
            _inotify.inotify_init1  # noqa: B018  # no inotify (not Linux): no such symbol
        except (OSError, AttributeError):
            _inotify = False
    if not _inotify:
        return True
    import ctypes

    fd = _inotify.inotify_init1(_IN_NONBLOCK_CLOEXEC)
    if fd < 0:
        return ctypes.get_errno() not in (_ENOSPC, 24)  # 24: EMFILE, no instances left
    try:
        wd = _inotify.inotify_add_watch(fd, os.fsencode(path), _IN_ATTRIB)
        return wd >= 0 or ctypes.get_errno() != _ENOSPC
    finally:
        os.close(fd)
