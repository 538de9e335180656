"""One inotify instance per process, shared by every watcher in it.

The kernel allows a user 128 inotify instances by default (``fs.inotify.max_user_instances``):
one instance per watcher, three watchers per repository, and about forty open
repositories use them all. A :class:`Hub` holds one instance (one file
descriptor) and one reader thread for the whole process; each watcher is a
:class:`Subscriber` of it.

Watch descriptors are the kernel's, and the kernel gives the same one for the
same directory (the same inode) however often it is added: so two watchers of
one directory share one watch. The hub counts who holds each descriptor and
removes the watch when the last holder lets go. Each holder keeps its own path
for the descriptor (two roots may reach one directory by different paths), and
every event is handed to each holder with that path.

The reader thread only reads and routes: a subscriber's :meth:`Subscriber.deliver`
must be quick (record the path, queue a walk for its own thread). When the
kernel's queue overflows, every subscriber hears of it. The instance is closed
by the reader thread once no subscriber is left, and opened again for the next.
"""

from __future__ import annotations

import ctypes
import logging
import os
import select
import struct
import threading
from typing import Any, Protocol

log = logging.getLogger(__name__)

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000

MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
    | IN_EXCL_UNLINK
)
"""The same for every watch: the kernel keeps one mask per watch, so all holders agree."""

_EVENT = struct.Struct("iIII")
_READ_SIZE = 64 * 1024
_POLL_S = 0.1

_libc: Any = None


def lib() -> Any:
    """libc with inotify's calls typed, or None when this is not Linux."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
            _libc.inotify_init1  # noqa: B018  # not Linux: no such symbol
            _libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc.inotify_add_watch.restype = ctypes.c_int
            _libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
            _libc.inotify_rm_watch.restype = ctypes.c_int
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


class Subscriber(Protocol):
    """What the hub tells a watcher, on the reader thread."""

    def deliver(self, directory: str, mask: int, name: bytes) -> None:
        """An event in ``directory`` (the subscriber's own path for the watch); ``name``
        is the entry's (empty for the directory itself)."""

    def lost_track(self) -> None:
        """Events were lost: the kernel's queue overflowed."""

    def detached(self) -> None:
        """The reader failed and dropped every watch: this subscriber sees nothing more."""


class Hub:
    """One inotify instance and its reader thread, for any number of subscribers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd = -1
        self._thread: threading.Thread | None = None
        self._holders: dict[int, dict[Subscriber, str]] = {}
        """Watch descriptor -> each holder's path for it."""
        self._held: dict[Subscriber, set[int]] = {}

    @property
    def fd(self) -> int:
        """The instance's descriptor (-1 when none is open): tests read its fdinfo."""
        return self._fd

    def subscribe(self, subscriber: Subscriber) -> None:
        """Join; opens the instance and starts the reader when this is the first.
        Raises ``OSError`` when no instance can be opened."""
        with self._lock:
            if self._fd < 0:
                libc = lib()
                if libc is None:
                    raise OSError("inotify is not available")
                fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
                if fd < 0:
                    code = ctypes.get_errno()
                    raise OSError(code, f"inotify_init1 failed: {os.strerror(code)}")
                self._fd = fd
            self._held.setdefault(subscriber, set())
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._read_loop, args=(self._fd,), name="inotify-hub", daemon=True
                )
                self._thread.start()

    def add(self, subscriber: Subscriber, directory: str) -> int:
        """Watch ``directory`` for ``subscriber``: the descriptor (>= 0), or ``-errno``."""
        with self._lock:
            held = self._held.get(subscriber)
            if held is None or self._fd < 0:
                return -9  # EBADF: not subscribed
            wd = int(lib().inotify_add_watch(self._fd, os.fsencode(directory), MASK))
            if wd < 0:
                return -ctypes.get_errno()
            self._holders.setdefault(wd, {})[subscriber] = directory
            held.add(wd)
            return wd

    def release(self, subscriber: Subscriber, wd: int) -> None:
        """``subscriber`` lets go of ``wd``; the watch goes when no one holds it."""
        with self._lock:
            self._release(subscriber, wd)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Let go of everything ``subscriber`` holds; the reader closes the instance once
        no one is left."""
        with self._lock:
            for wd in self._held.pop(subscriber, set()):
                self._release(subscriber, wd, keep_held=True)

    def held(self, subscriber: Subscriber) -> frozenset[int]:
        """The descriptors ``subscriber`` holds."""
        with self._lock:
            return frozenset(self._held.get(subscriber, ()))

    def count(self, subscriber: Subscriber) -> int:
        """How many descriptors ``subscriber`` holds."""
        with self._lock:
            return len(self._held.get(subscriber, ()))

    @property
    def watches(self) -> int:
        """Directories watched in the instance (each once, whoever holds it)."""
        with self._lock:
            return len(self._holders)

    def _release(self, subscriber: Subscriber, wd: int, *, keep_held: bool = False) -> None:
        holders = self._holders.get(wd)
        if not keep_held:
            self._held.get(subscriber, set()).discard(wd)
        if holders is None or holders.pop(subscriber, None) is None or holders:
            return
        del self._holders[wd]
        if self._fd >= 0:
            lib().inotify_rm_watch(self._fd, wd)  # fails harmlessly if the kernel dropped it

    # -- the reader thread --------------------------------------------------

    def _read_loop(self, fd: int) -> None:
        try:
            while self._keep_reading(fd):
                ready, _, _ = select.select([fd], [], [], _POLL_S)
                if ready:
                    self._read(fd)
        except Exception as exc:  # the watch is an optimisation: say so, and lose track
            log.warning("inotify reader stopped (%s); recomputing every turn", exc)
            with self._lock:
                everyone = list(self._held)
                self._holders.clear()
                self._held.clear()
                self._close(fd)
            for subscriber in everyone:
                subscriber.detached()

    def _keep_reading(self, fd: int) -> bool:
        """False (and the instance closed) once no subscriber is left."""
        with self._lock:
            if self._held:
                return True
            self._close(fd)
            return False

    def _close(self, fd: int) -> None:
        """Close ``fd`` (on the reader thread, under the lock: no select on a closed fd)."""
        if self._fd == fd:
            self._fd = -1
            self._holders.clear()
            self._thread = None
        os.close(fd)

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, _READ_SIZE)
        except BlockingIOError:
            return
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            self._route(wd, mask, name)

    def _route(self, wd: int, mask: int, name: bytes) -> None:
        with self._lock:
            if mask & IN_Q_OVERFLOW:
                targets = [(s, "") for s in self._held]
            else:
                targets = list(self._holders.get(wd, {}).items())
                if mask & IN_IGNORED:  # the kernel dropped the watch (directory gone)
                    self._holders.pop(wd, None)
                    for subscriber, _ in targets:
                        self._held.get(subscriber, set()).discard(wd)
                    return
        for subscriber, directory in targets:
            if mask & IN_Q_OVERFLOW:
                subscriber.lost_track()
            else:
                subscriber.deliver(directory, mask, name)


_process_hub: Hub | None = None
_process_lock = threading.Lock()


def process_hub() -> Hub:
    """The hub every watcher in this process shares (made on first use)."""
    global _process_hub
    with _process_lock:
        if _process_hub is None:
            _process_hub = Hub()
        return _process_hub


def _forget_in_child() -> None:
    """A forked child has the parent's descriptor but not its reader thread: it starts
    afresh (its own instance, on first use)."""
    global _process_hub, _process_lock
    _process_hub = None
    _process_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)
