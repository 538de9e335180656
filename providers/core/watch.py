"""The only watchfiles import: a background thread that marks what changed, nothing more.

Providers keep caches; this tells them which paths to recompute. Watching only
invalidates: the next Contribute does the work for what is dirty. When the
watcher cannot run (no inotify, too many watches, the root vanished) or too
much changed at once, ``drain`` reports ``overflow`` and the caller recomputes
everything, which is always correct, only slower.

Latency: a change is seen about ``step_ms`` to ``debounce_ms`` after it happens.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

WatchFn = Callable[..., Iterator[set[tuple[Any, str]]]]
"""``watchfiles.watch``'s shape; tests inject their own generator."""

_GIT_NOISE = ("/.git/objects/", "/.git/logs/")
"""Object and reflog writes (background ``git gc``, fetches) change no provider's output;
refs, HEAD and the index, which do, live elsewhere in ``.git``."""

MAX_RESTARTS = 3
"""A watcher that dies (watchfiles gives up on a name that is not UTF-8, say) is replaced
this many times in a session; then the provider does without one."""


class RestartBudget:
    """What a provider asks before replacing a dead watcher (at most :data:`MAX_RESTARTS`)."""

    def __init__(self) -> None:
        self.used = 0

    def take(self, root: Path) -> bool:
        """Whether the dead watch on ``root`` may be replaced; says which in the log (once
        when refused)."""
        if self.used > MAX_RESTARTS:
            return False
        self.used += 1
        if self.used > MAX_RESTARTS:
            log.warning("the watch on %s stopped again; going on without one", root)
            return False
        log.warning(
            "the watch on %s stopped; starting it again (%d of %d) once this answer is out",
            root,
            self.used,
            MAX_RESTARTS,
        )
        return True


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
                self._ready.set()
                if batch:
                    self._record(path for _, path in batch if not _is_git_noise(path))
                if self._stop.is_set():
                    break
        except Exception as exc:  # the watcher is an optimisation; failing must not kill us
            log.warning("file watcher for %s stopped (%s); recomputing every turn", self._root, exc)
        finally:
            self._failed = True
            self._ready.set()

    def _record(self, paths: Iterator[str]) -> None:
        with self._lock:
            if self._overflow:
                return
            self._pending.update(paths)
            if len(self._pending) > MAX_PENDING:
                self._pending.clear()
                self._overflow = True


def _is_git_noise(path: str) -> bool:
    return any(part in path for part in _GIT_NOISE)
