"""The watchfiles backend: the recursive watch off Linux (on Linux, ``watch.inotify``).

watchfiles sets up its recursive watch in Rust; its first yield says the
watch is in place, and every batch after it is recorded until the next drain
(:class:`~providers.watch.backend.Backend` leaves git's noise out).
"""

from __future__ import annotations

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
                self._in_place()
                if batch:
                    self._record(path for _, path in batch)
                if self._stop.is_set():
                    break
        except Exception as exc:
            if _WATCH_LIMIT not in str(exc):
                raise
            self._run_out("stopped")
