"""A recursive watch built on Linux's inotify directly, set up without stalling a turn.

watchfiles sets up a recursive watch in Rust while holding the interpreter
lock: a turn that arrives meanwhile waits (1.6 s at 100k files, 3.3 s at
300k). Here the directories are walked and watched from a Python thread;
each system call (``inotify_add_watch`` through ctypes, ``scandir``)
releases the lock, and the interpreter switches threads every few
milliseconds, so a turn waits milliseconds at most.

It offers what :class:`providers.watch.watchfiles_backend.ChangeWatcher` offers (``start``,
``alive``, ``drain``, ``stop``, ``exhausted``) and marks what changed,
nothing more. A directory created later is watched when its creation is
read, and scanned once watched, so nothing made in between is missed. When
the kernel's queue overflows, ``drain`` reports ``overflow``; when watches
run out (``ENOSPC``) the watcher stops as exhausted: the caller checks
another way. ``.git/objects`` and ``.git/logs`` are not watched (background
gc and fetches change nothing any provider shows).
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import select
import struct
import threading
from pathlib import Path
from typing import Any

from providers.watch.changes import MAX_PENDING, Changes

log = logging.getLogger(__name__)

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_EXCL_UNLINK = 0x04000000
_IN_ISDIR = 0x40000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000

_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
    | _IN_EXCL_UNLINK
)
_EVENT = struct.Struct("iIII")
_SKIPPED = (".git/objects", ".git/logs")
_READ_SIZE = 64 * 1024
_POLL_MS = 100

_libc: Any = None


def available() -> bool:
    """Whether this system has inotify (Linux with glibc or musl)."""
    return _lib() is not None


def _lib() -> Any:
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
            _libc.inotify_init1  # noqa: B018  # not Linux: no such symbol
            _libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc.inotify_add_watch.restype = ctypes.c_int
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


class InotifyWatcher:
    """Records changed paths under ``root`` from a daemon thread (Linux only)."""

    def __init__(self, root: Path) -> None:
        self._root = os.fspath(root)
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._overflow = False
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed = False
        self._fd = -1
        self._paths: dict[int, str] = {}
        self.exhausted = False
        """The system ran out of inotify watches: a new watcher would run out too."""
        self.watched = 0
        """How many directories are watched (for tests and benchmarks)."""

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._failed

    def start(self, timeout: float = 5.0) -> bool:
        """Start watching; return once every directory is watched (True) or it failed."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"inotify:{self._root}", daemon=True
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

    # -- the thread -------------------------------------------------------

    def _run(self) -> None:
        lib = _lib()
        try:
            if lib is None:
                raise OSError("inotify is not available")
            self._fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            if self._fd < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1 failed")
            self._add_tree(self._root, report=False)
            self._ready.set()
            while not self._stop.is_set() and not self.exhausted:
                self._read_events()
        except Exception as exc:  # the watcher is an optimisation; failing must not kill us
            log.warning("file watcher for %s stopped (%s); recomputing every turn", self._root, exc)
        finally:
            self._failed = True
            self._ready.set()
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def _add_tree(self, top: str, *, report: bool) -> None:
        """Watch ``top`` and every directory below it; ``report`` what is already there
        (a directory created after the watch started: its contents may predate its watch)."""
        pending = [top]
        while pending and not self._stop.is_set():
            directory = pending.pop()
            if not self._add(directory):
                continue
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        path = entry.path
                        if report:
                            self._record((path,))
                        try:
                            is_dir = entry.is_dir(follow_symlinks=False)
                        except OSError:
                            continue
                        if is_dir and not self._skipped(path):
                            pending.append(path)
            except OSError:
                continue  # gone or unreadable: its parent's events still say so

    def _add(self, directory: str) -> bool:
        lib = _lib()
        wd = lib.inotify_add_watch(self._fd, os.fsencode(directory), _MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code == errno.ENOSPC:
                self.exhausted = True
                log.warning(
                    "file watcher for %s cannot see everything (inotify watches ran out; "
                    "raise fs.inotify.max_user_watches); recomputing every turn",
                    self._root,
                )
                self._stop.set()
            return False
        self._paths[wd] = directory
        self.watched = len(self._paths)
        return True

    def _skipped(self, path: str) -> bool:
        rel = path[len(self._root) :].lstrip("/")
        return any(rel == s or rel.startswith(s + "/") or f"/{s}" in rel for s in _SKIPPED)

    def _read_events(self) -> None:
        ready, _, _ = select.select([self._fd], [], [], _POLL_MS / 1000)
        if not ready:
            return
        try:
            data = os.read(self._fd, _READ_SIZE)
        except BlockingIOError:
            return
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & _IN_Q_OVERFLOW:
                with self._lock:
                    self._overflow = True
                continue
            directory = self._paths.get(wd)
            if directory is None:
                continue
            if mask & _IN_IGNORED:
                self._paths.pop(wd, None)
                continue
            if mask & _IN_DELETE_SELF and directory == self._root:
                with self._lock:
                    self._overflow = True  # the root itself went: recompute everything
                continue
            path = os.path.join(directory, os.fsdecode(raw)) if raw else directory
            self._record((path,))
            created = mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO)
            if created and not self._skipped(path):
                self._add_tree(path, report=True)

    def _record(self, paths: tuple[str, ...]) -> None:
        with self._lock:
            if self._overflow:
                return
            self._pending.update(paths)
            if len(self._pending) > MAX_PENDING:
                self._pending.clear()
                self._overflow = True
