"""A recursive watch built on Linux's inotify directly, set up without stalling a turn.

watchfiles sets up a recursive watch in Rust while holding the interpreter
lock: a turn that arrives meanwhile waits (1.6 s at 100k files, 3.3 s at
300k). Here the directories are walked and watched from a Python thread;
each system call (``inotify_add_watch`` through ctypes, ``scandir``)
releases the lock, and the interpreter switches threads every few
milliseconds, so a turn waits milliseconds at most.

Like :class:`providers.watch.watchfiles_backend.ChangeWatcher` it is a
:class:`~providers.watch.backend.Backend` (the thread, ``start``, ``alive``,
``drain``, ``stop``, ``exhausted``) and marks what changed, nothing more.

What it costs, and its bounds:

- **One inotify instance per process**: every watcher is a subscriber of the
  process's :class:`~providers.watch.inotify_hub.Hub`, which reads all events
  on one thread and shares one watch among the watchers of a directory.
- **No watch in what git ignores**: given the repository's ignore rules
  (:meth:`~providers.watch.backend.Backend.leave_out`), a directory git ignores
  is not watched, nor anything below it (a ``node_modules`` of 6,000
  directories costs nothing). An edit to a ``.gitignore`` (an event) or to
  ``info/exclude`` or the global excludes file (checked every
  :data:`RULES_CHECK_S`) reads the rules again and walks the tree again:
  newly ignored directories lose their watch, and when any directory gains
  one, ``drain`` reports ``overflow`` (what changed in it went unseen).
  ``.git`` stays watched as before, minus git's noise
  (:data:`~providers.watch.changes.GIT_NOISE`).
- **At most** :func:`watch_cap` **directories per watcher** (10,000, or an eighth of
  the user's watches up to 50,000): a tree with
  more (outside what git ignores) is not watched at all; the watcher stops as
  ``exhausted`` and the provider checks another way, as when the system's
  watches run out (``ENOSPC``). The providers of one repository watch the
  same directories and share the watches, so a repository holds about that
  many at most.

A directory created later is watched when its creation is read, and scanned
once watched, so nothing made in between is missed. When the kernel's queue
overflows, ``drain`` reports ``overflow``.
"""

from __future__ import annotations

import errno
import os
import queue
import time
from pathlib import Path

from providers.watch.backend import Backend
from providers.watch.changes import Ignored, is_git_noise
from providers.watch.inotify_hub import (
    IN_CREATE,
    IN_DELETE_SELF,
    IN_ISDIR,
    IN_MOVED_TO,
    Hub,
    lib,
    process_hub,
)

MAX_WATCHES = 10_000
"""Directories one watcher watches at most (outside what git ignores), unless the
system allows many watches (:func:`watch_cap`). Each watch costs the kernel about 1 KB;
past the cap the watcher gives up (``exhausted``) rather than hold tens of megabytes of
kernel memory for one repository, or most of what the user may watch."""

MOST_WATCHES = 50_000
"""The cap however many watches the system allows (50 MB of kernel memory)."""

_USER_LIMIT = "/proc/sys/fs/inotify/max_user_watches"


def watch_cap(limit_file: str = _USER_LIMIT) -> int:
    """A watcher's cap: an eighth of the watches the user may hold, never below
    :data:`MAX_WATCHES` nor above :data:`MOST_WATCHES`. A large tree (300k files in
    15,000 directories) is watched where the system allows it (modern kernels allow
    several hundred thousand watches), and a system left at 8,192 or 65,536 keeps most of
    its watches for other tools."""
    try:
        with open(limit_file, encoding="ascii") as handle:
            limit = int(handle.read().strip())
    except (OSError, ValueError):
        return MAX_WATCHES
    return max(MAX_WATCHES, min(MOST_WATCHES, limit // 8))


RULES_CHECK_S = 1.0
"""How often the ignore files no event reports (``info/exclude``, the global excludes
file) are checked by ``stat``."""

CAP_ADVICE = (
    "the watch cap per repository (an eighth of fs.inotify.max_user_watches, 10,000 to "
    "50,000: watch_cap in providers/watch/inotify.py)"
)

_RULES = ""
"""Work item: the ignore rules changed (any other item is a directory to watch)."""
_WAKE = "\0"
"""Work item: look at the stop flag."""


def available() -> bool:
    """Whether this system has inotify (Linux with glibc or musl)."""
    return lib() is not None


class InotifyWatcher(Backend):
    """Records changed paths under ``root`` from a daemon thread (Linux only).

    ``hub``: the inotify instance to share (default: the process's);
    ``max_watches``: the cap (default :func:`watch_cap`).
    """

    thread_name = "inotify"

    def __init__(
        self, root: Path, *, hub: Hub | None = None, max_watches: int | None = None
    ) -> None:
        super().__init__(root)
        self._top = os.fspath(root)
        self._hub = hub if hub is not None else process_hub()
        self._max = watch_cap() if max_watches is None else max_watches
        self._work: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._skip: Ignored | None = None
        self._detached = False

    @property
    def watched(self) -> int:
        """How many directories are watched (for tests and benchmarks)."""
        return self._hub.count(self)

    def stop(self) -> None:
        super().stop()
        self._work.put(_WAKE)

    # -- from the hub's reader thread ---------------------------------------

    def deliver(self, directory: str, mask: int, name: bytes) -> None:
        if mask & IN_DELETE_SELF and directory == self._top:
            self._lost_track()  # the root itself went: recompute everything
            return
        path = os.path.join(directory, os.fsdecode(name)) if name else directory
        self._record((path,))
        if name and self._skip is not None and self._skip.rule_file(path):
            self._work.put(_RULES)
        if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO) and not is_git_noise(path):
            self._work.put(path)

    def lost_track(self) -> None:
        self._lost_track()

    def detached(self) -> None:
        self._detached = True
        self._work.put(_WAKE)

    # -- on the watcher's own thread ----------------------------------------

    def _watch(self) -> None:
        self._hub.subscribe(self)
        try:
            self._skip = self._ignored() if self._ignored is not None else None
            self._add_tree(self._top, report=False)
            if not self._stop.is_set():  # stopped (or out of watches): never in place
                self._in_place()
            self._serve()
        finally:
            self._hub.unsubscribe(self)

    def _serve(self) -> None:
        """Watch what is created, and walk again when the ignore rules change."""
        next_check = time.monotonic() + RULES_CHECK_S
        while not self._stop.is_set():
            try:
                item = self._work.get(timeout=max(0.0, next_check - time.monotonic()))
            except queue.Empty:
                item = _WAKE
            if self._detached:
                raise OSError("the inotify reader stopped")
            rules_changed = item == _RULES
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + RULES_CHECK_S
                rules_changed = rules_changed or (self._skip is not None and self._skip.stale())
            if rules_changed:
                self._walk_again()
            elif item != _WAKE and not self._skipped(item):
                self._add_tree(item, report=True)

    def _walk_again(self) -> None:
        """Read the rules again and watch what they leave in, no more: a directory that
        gains a watch may have changed unseen (overflow)."""
        while True:  # one walk for a burst of rule edits
            try:
                item = self._work.get_nowait()
            except queue.Empty:
                break
            if item not in (_RULES, _WAKE):
                self._record((item,))  # walked below anyway, if it is still to be watched
        if self._ignored is not None:
            self._skip = self._ignored()
        before = self._hub.held(self)
        seen: set[int] = set()
        self._add_tree(self._top, report=False, seen=seen)
        if self._stop.is_set():
            return
        for wd in before - seen:
            self._hub.release(self, wd)
        if seen - before:
            self._lost_track()

    def _skipped(self, directory: str) -> bool:
        return is_git_noise(directory) or (
            self._skip is not None and directory != self._top and self._skip.skip(directory)
        )

    def _add_tree(self, top: str, *, report: bool, seen: set[int] | None = None) -> None:
        """Watch ``top`` and every directory below it that is not skipped; ``report`` what
        is already there (a directory created after the watch started: its contents may
        predate its watch); ``seen`` collects the descriptors."""
        pending = [top]
        while pending and not self._stop.is_set():
            directory = pending.pop()
            wd = self._add(directory)
            if wd < 0:
                continue
            if seen is not None:
                seen.add(wd)
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

    def _add(self, directory: str) -> int:
        wd = self._hub.add(self, directory)
        if wd < 0:
            if wd == -errno.ENOSPC:
                self._run_out("cannot see everything")
            return -1
        if self._hub.count(self) > self._max:
            self._hub.release(self, wd)
            self._run_out(f"passed {self._max:,} directories", CAP_ADVICE)
            return -1
        return wd
