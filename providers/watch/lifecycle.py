"""The one lifecycle of every provider's watchers: started after an answer, replaced when dead.

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
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from providers.watch.changes import Changes, IgnoredFactory, Watcher, WatcherFactory

log = logging.getLogger(__name__)

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


def default_watcher(root: Path) -> Watcher:
    """inotify driven from Python on Linux (its set-up never holds up a turn), watchfiles
    elsewhere."""
    from providers.watch import inotify  # its imports are light; only when a watch starts

    if inotify.available():
        return inotify.InotifyWatcher(root)
    from providers.watch.watchfiles_backend import ChangeWatcher

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
        ignored: IgnoredFactory | None = None,
    ) -> None:
        """``start_timeout``: how long starting may wait for a watch to be in place (0:
        not at all; tests make it deterministic with a few seconds). ``ignored``: the
        directories to leave unwatched (what git ignores), for a watcher that can
        (``leave_out``); the provider then learns of no change in them."""
        self._slots = [_Slot(root) for root in roots]
        self._factory = factory
        self._ignored = ignored
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
                slot.watcher = watcher = self._factory(slot.root)
                leave_out = getattr(watcher, "leave_out", None)
                if self._ignored is not None and leave_out is not None:
                    leave_out(self._ignored)
                slot.started_at = time.monotonic()
                watcher.start(self._start_timeout)

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
