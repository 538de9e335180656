"""The only watchfiles import: threads that mark what changed, and their one lifecycle.

Providers keep caches; this tells them which paths to recompute. Watching only
invalidates: the next Contribute does the work for what is dirty. When the
watcher cannot run (no inotify, too many watches, the root vanished) or too
much changed at once, ``drain`` reports ``overflow`` and the caller recomputes
everything, which is always correct, only slower.

:class:`WatchLifecycle` is what providers hold: it starts the watchers once
an answer is out (setting up a recursive watch holds the interpreter lock for
seconds on a large tree), says each turn whether the changes it reports are
complete, replaces a dead watcher (at most :data:`MAX_RESTARTS` times a
session) and stops everything on shutdown. Providers differ only in what a
change means to them.

Latency: a change is seen about ``step_ms`` to ``debounce_ms`` after it happens.
"""

from __future__ import annotations

import enum
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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
                    self._record(path for _, path in batch if not _is_git_noise(path))
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


def _is_git_noise(path: str) -> bool:
    return any(part in path for part in _GIT_NOISE)


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


def default_watcher(root: Path) -> Watcher:
    """inotify driven from Python on Linux (its set-up never holds up a turn), watchfiles
    elsewhere."""
    from providers.core import inotify  # its imports are light; only when a watch starts

    if inotify.available():
        return inotify.InotifyWatcher(root)
    return ChangeWatcher(root)


READY_TIMEOUT_S = 60.0
"""A watch not in place after this long (a huge tree) is given up for the session."""


class WatchStatus(enum.Enum):
    """What a turn may conclude from the watch (see :meth:`WatchLifecycle.poll`)."""

    OFF = "off"
    """No watch to rely on (none configured, given up, or dead and waiting to be
    replaced): the caller checks another way."""
    SETTING_UP = "setting up"
    """Started, not in place yet: changes may go unseen."""
    JUST_READY = "just ready"
    """In place since this poll: what changed before it is unknown; recompute once."""
    READY = "ready"
    """In place since before the previous poll: ``changes`` holds everything that changed."""


@dataclass(frozen=True)
class WatchReport:
    status: WatchStatus
    changes: Changes
    """What changed since the previous poll; complete only when ``status`` is READY."""

    @property
    def complete(self) -> bool:
        return self.status is WatchStatus.READY


_NOTHING = Changes(frozenset(), overflow=False)


class _Slot:
    """One root's watcher: made when wanted, replaced when it dies."""

    __slots__ = ("root", "started_at", "watcher")

    def __init__(self, root: Path) -> None:
        self.root = root
        self.watcher: Watcher | None = None
        self.started_at = 0.0


class WatchLifecycle:
    """The watchers of one provider's roots, from the first answer to shutdown.

    ``factory`` None means no watching (``watch = false``): :meth:`poll` always
    says OFF. The provider calls :meth:`answer_computed` when it has an answer,
    :meth:`answer_sent` once gRPC has sent it, :meth:`poll` at the start of
    each turn (which also starts what no ``answer_sent`` started: in-process
    nothing calls it), and :meth:`stop` on shutdown or reconfiguration.
    """

    def __init__(
        self,
        roots: Sequence[Path],
        factory: WatcherFactory | None,
        *,
        ready_timeout: float = READY_TIMEOUT_S,
        start_timeout: float = 0.0,
    ) -> None:
        """``start_timeout``: how long starting may wait for a watch to be in place (0:
        not at all; tests make it deterministic with a few seconds)."""
        self._slots = [_Slot(root) for root in roots]
        self._factory = factory
        self._ready_timeout = ready_timeout
        self._start_timeout = start_timeout
        self._restarts = RestartBudget()
        self._wanted = False
        self._given_up = factory is None
        self._trusted = False

    @property
    def watching(self) -> bool:
        """Whether a watch is wanted at all (configured and not given up)."""
        return not self._given_up

    def answer_computed(self) -> None:
        """An answer exists: the watchers may start once it is out."""
        self._wanted = not self._given_up

    def answer_sent(self) -> None:
        """Start the watchers that are wanted and not running (new, or replacing dead ones)."""
        if not self._wanted or self._given_up or self._factory is None:
            return
        for slot in self._slots:
            if slot.watcher is None:
                slot.watcher = self._factory(slot.root)
                slot.started_at = time.monotonic()
                slot.watcher.start(self._start_timeout)

    def poll(self) -> WatchReport:
        """Whether this turn can trust the watch, and what it saw since the previous poll."""
        self.answer_sent()  # no one said the last answer went out: start now
        if self._given_up or any(slot.watcher is None for slot in self._slots):
            return self._untrusted(WatchStatus.OFF)
        if self._replace_dead():
            return self._untrusted(WatchStatus.OFF)
        waiting = [slot for slot in self._slots if not self._in_place(slot)]
        if waiting:
            if any(time.monotonic() - s.started_at > self._ready_timeout for s in waiting):
                log.warning(
                    "the watch on %s did not start within %g s; going on without one",
                    waiting[0].root,
                    self._ready_timeout,
                )
                self._give_up()
                return self._untrusted(WatchStatus.OFF)
            return self._untrusted(WatchStatus.SETTING_UP)
        drained = [slot.watcher.drain() for slot in self._slots if slot.watcher is not None]
        if not self._trusted:
            self._trusted = True
            return WatchReport(WatchStatus.JUST_READY, _NOTHING)
        paths = frozenset().union(*(c.paths for c in drained))
        return WatchReport(WatchStatus.READY, Changes(paths, any(c.overflow for c in drained)))

    def stop(self) -> None:
        """Stop every watcher; nothing starts again until :meth:`answer_computed`."""
        self._wanted = False
        self._trusted = False
        for slot in self._slots:
            if slot.watcher is not None:
                slot.watcher.stop()
                slot.watcher = None

    def _untrusted(self, status: WatchStatus) -> WatchReport:
        self._trusted = False
        return WatchReport(status, _NOTHING)

    @staticmethod
    def _in_place(slot: _Slot) -> bool:
        return slot.watcher is not None and slot.watcher.start(0.0)

    def _replace_dead(self) -> bool:
        """Stop dead watchers; each is started again after the next answer while the
        restart budget lasts, else watching ends. True when any was dead."""
        dead = False
        for slot in self._slots:
            watcher = slot.watcher
            if watcher is None or watcher.alive:
                continue
            dead = True
            watcher.stop()
            slot.watcher = None
            if getattr(watcher, "exhausted", False):
                self._give_up()  # a new watch would run out too
                break
            if not self._restarts.take(slot.root):
                self._give_up()
                break
        return dead

    def _give_up(self) -> None:
        self.stop()
        self._given_up = True
