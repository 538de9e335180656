"""A recursive watch built on Linux's inotify directly, set up without stalling a turn.

watchfiles sets up a recursive watch in Rust while holding the interpreter
lock: a turn that arrives meanwhile waits (1.6 s at 100k files, 3.3 s at
300k). Here the directories are walked and watched from a Python thread;
each system call (``inotify_add_watch`` through ctypes, ``scandir``)
releases the lock, and the interpreter switches threads every few
milliseconds, so a turn waits milliseconds at most.

Like :class:`providers.watch.watchfiles_backend.ChangeWatcher` it is a
:class:`~providers.watch.backend.Backend` (the thread, ``start``, ``alive``,
``drain``, ``stop``, ``exhausted``) and marks what changed, nothing more. A
directory created later is watched when its creation is read, and scanned
once watched, so nothing made in between is missed. When the kernel's queue
overflows, ``drain`` reports ``overflow``; when watches run out (``ENOSPC``)
the watcher stops as exhausted: the caller checks another way. Git's noise
(:data:`~providers.watch.changes.GIT_NOISE`) is not even watched: background
gc and fetches change nothing any provider shows.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
from pathlib import Path
from typing import Any

from providers.watch.backend import Backend
from providers.watch.changes import is_git_noise

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


class InotifyWatcher(Backend):
    """Records changed paths under ``root`` from a daemon thread (Linux only)."""

    thread_name = "inotify"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._top = os.fspath(root)
        self._fd = -1
        self._paths: dict[int, str] = {}
        self.watched = 0
        """How many directories are watched (for tests and benchmarks)."""

    def _watch(self) -> None:
        lib = _lib()
        if lib is None:
            raise OSError("inotify is not available")
        self._fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        try:
            self._add_tree(self._top, report=False)
            if not self._stop.is_set():  # stopped (or out of watches): never in place
                self._in_place()
            while not self._stop.is_set():
                self._read_events()
        finally:
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
                        if is_dir and not is_git_noise(path):
                            pending.append(path)
            except OSError:
                continue  # gone or unreadable: its parent's events still say so

    def _add(self, directory: str) -> bool:
        lib = _lib()
        wd = lib.inotify_add_watch(self._fd, os.fsencode(directory), _MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code == errno.ENOSPC:
                self._run_out("cannot see everything")
            return False
        self._paths[wd] = directory
        self.watched = len(self._paths)
        return True

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
                self._lost_track()
                continue
            directory = self._paths.get(wd)
            if directory is None:
                continue
            if mask & _IN_IGNORED:
                self._paths.pop(wd, None)
                continue
            if mask & _IN_DELETE_SELF and directory == self._top:
                self._lost_track()  # the root itself went: recompute everything
                continue
            path = os.path.join(directory, os.fsdecode(raw)) if raw else directory
            self._record((path,))
            created = mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO)
            if created and not is_git_noise(path):
                self._add_tree(path, report=True)
