"""What both watcher backends share: a daemon thread that records changed paths until drained.

A backend (``inotify`` on Linux, ``watchfiles_backend`` elsewhere) differs
only in how it watches. Its :meth:`Backend._watch` runs on the thread, calls
``_in_place()`` once the whole tree is watched, hands what changed to
``_record`` and returns once ``_stop`` is set. Everything the lifecycle
relies on is written here once, so it sees the same
:class:`~providers.watch.changes.Watcher` whichever backend runs: starting
and waiting for the watch to be in place, liveness, the pending set with its
overflow rule, git's noise left out, and what a failure means (``drain``
says ``overflow`` from then on; ``exhausted`` when watches ran out, so that
no new watcher is tried).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from pathlib import Path

from providers.watch.changes import MAX_PENDING, Changes, IgnoredFactory, is_git_noise

log = logging.getLogger(__name__)

WATCH_LIMIT_ADVICE = "inotify watches ran out; raise fs.inotify.max_user_watches"
"""Said once when watches run out: the one thing the user can do about it."""


class Backend:
    """Records changed paths under ``root`` from a daemon thread; subclasses say how."""

    thread_name = "watch"
    """Prefix of the thread's name (the root follows), to tell the backends apart in a dump."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._overflow = False
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed = False
        self.exhausted = False
        """The system ran out of inotify watches: a new watcher would run out too, so the
        lifecycle does not replace this one."""
        self._ignored: IgnoredFactory | None = None

    def leave_out(self, ignored: IgnoredFactory) -> None:
        """Before :meth:`start`: the directories not to watch (a backend that cannot leave
        any out watches them all)."""
        self._ignored = ignored

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
                target=self._run, name=f"{self.thread_name}:{self._root}", daemon=True
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

    # -- for the backends, on the thread ------------------------------------

    def _watch(self) -> None:
        """Watch until ``_stop`` is set; call ``_in_place()`` once everything is watched."""
        raise NotImplementedError

    def _in_place(self) -> None:
        self._ready.set()

    def _record(self, paths: Iterable[str]) -> None:
        """Mark ``paths`` changed (git's noise left out); too many at once is an overflow."""
        with self._lock:
            if self._overflow:
                return
            self._pending.update(path for path in paths if not is_git_noise(path))
            if len(self._pending) > MAX_PENDING:
                self._pending.clear()
                self._overflow = True

    def _lost_track(self) -> None:
        """Something changed that cannot be named (the queue overflowed, the root went)."""
        with self._lock:
            self._overflow = True

    def _run_out(self, what: str, advice: str = WATCH_LIMIT_ADVICE) -> None:
        """Watches ran out: stop, say so once, and let no new watcher be tried."""
        self.exhausted = True
        self._stop.set()
        log.warning("file watcher for %s %s (%s); recomputing every turn", self._root, what, advice)

    def _run(self) -> None:
        try:
            self._watch()
        except Exception as exc:  # the watcher is an optimisation; failing must not kill us
            log.warning("file watcher for %s stopped (%s); recomputing every turn", self._root, exc)
        finally:
            self._failed = True
            self._ready.set()
