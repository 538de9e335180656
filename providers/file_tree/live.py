"""Keeping the listing current: one full listing, then only what the watcher says changed.

Each turn calls :meth:`LiveListing.refresh`:

- nothing reported and no rule file changed (a few ``stat`` calls): the cached
  listing, with no walk and no git call;
- paths created or deleted: each is checked against the ignore rules
  (``core.ignore``, which agrees with git; tracked files are remembered) and
  added to or removed from the tree in place, without running git;
- a changed ``.gitignore`` (outside ignored directories) or ignore file,
  git's index or excludes file, a repository appearing or vanishing or a
  watcher overflow: a full re-list, which is always correct, only slower.

Without a watcher (``watch = false``, or it failed) each turn compares the
listed directories' times with those stamped after the last listing
(:mod:`stamps`): unchanged, the cached listing; changed, a full re-list.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from providers.core.ignore import GITIGNORE
from providers.core.sources import FileKey, file_keys
from providers.core.watch import Changes, ChangeWatcher, RestartBudget
from providers.file_tree.listing import (
    Listing,
    ListingOptions,
    list_again,
    rules_for,
    settle_missing,
)
from providers.file_tree.memory import return_free_memory
from providers.file_tree.stamps import DirStamps
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.layout import git_dir, is_nested_repository
from providers.repository.listing import tracked_digest
from providers.repository.walk import walk

log = logging.getLogger(__name__)


class Watcher(Protocol):
    """What :class:`~providers.core.watch.ChangeWatcher` offers; tests inject their own.

    ``start(0)`` starts without waiting and says whether the watch is in place yet.
    """

    @property
    def alive(self) -> bool: ...

    def start(self, timeout: float = ...) -> bool: ...

    def drain(self) -> Changes: ...

    def stop(self) -> None: ...


WatcherFactory = Callable[[Path], Watcher]


def default_watcher(root: Path) -> Watcher:
    return ChangeWatcher(root)


_KeyState = tuple[FileKey | None, ...]

_TRIM_AFTER_FILES = 20_000
"""Listings this big leave megabytes of freed heap behind; smaller ones are not worth a call."""

READY_TIMEOUT_S = 60.0
"""A watcher not in place after this long (a huge tree) is given up: list every turn."""


class _Relist(Exception):
    """An incremental update cannot be trusted: list everything again."""


class LiveListing:
    """The listing of one root, current as of the last :meth:`refresh`."""

    def __init__(
        self,
        root: Path,
        options: ListingOptions,
        runner: GitRunner,
        watcher_factory: WatcherFactory | None,
    ) -> None:
        self.root = root
        self._options = options
        self._runner = runner
        self._factory = watcher_factory
        self._watcher: Watcher | None = None
        self._watch_wanted = False  # the first listing is done; the watcher waits for the answer
        self._by_stamps = watcher_factory is None  # no watcher: directory times say what changed
        self._stamps: DirStamps | None = None
        self._watching = False  # the watch was in place before the current listing began
        self._restarts = RestartBudget()
        self._started_at = 0.0
        self._listing: Listing | None = None
        self._keys: _KeyState = ()
        self._generation = 0
        self.full_listings = 0
        self.incremental_updates = 0

    @property
    def version(self) -> tuple[int, int]:
        """Changes whenever the listing may have changed (a new listing or an edit in place)."""
        tree_version = self._listing.tree.version if self._listing is not None else -1
        return self._generation, tree_version

    def refresh(self) -> Listing:
        """The current listing. Raises ``OSError`` when the root cannot be read.

        Setting up a recursive watch takes seconds on a big tree, so the first
        listing does not wait for it. Until the watch is in place, turns reuse
        that listing (changes to the rule files still count); the first turn
        after, lists once more to catch what changed in between.
        """
        if self._listing is None:
            listing = self._relist()
            self._watch_wanted = self._factory is not None
            return listing
        self.start_watching()  # no one said the answer went out: start now
        if self._listing.pending is not None:
            settle_missing(self._listing)
        watcher = self._watcher
        if watcher is not None and self._watching and not watcher.alive:
            self._give_up_watching()  # directory times until a new watch is in place
            self._watch_wanted = self._restarts.take(self.root)
            watcher = None
        if watcher is None:
            if self._stamps is not None and not self._stamps.changed() and not self._keys_changed():
                return self._listing
            return self._relist()
        if not self._watching:
            if watcher.start(0.0):
                self._watching = True
                self._by_stamps = False
                watcher.drain()
                return self._relist()
            if watcher.alive and time.monotonic() - self._started_at < READY_TIMEOUT_S:
                if self._keys_changed():
                    return self._relist()
                return self._listing
            log.warning("the watch on %s did not start; checking directory times", self.root)
            self._give_up_watching()
            return self._relist()
        changes = watcher.drain()
        if changes.overflow or self._keys_changed():
            return self._relist()
        if changes.paths:
            try:
                self._apply(self._listing, changes.paths)
            except _Relist as why:
                log.debug("file tree: full re-list (%s)", why)
                return self._relist()
            self.incremental_updates += 1
        return self._listing

    def start_watching(self) -> None:
        """Start what the first listing left for later; called once its answer is sent.

        That is the search for deleted tracked files (a ``stat`` per tracked
        file) and the watcher. Both compete for the CPU, and watchfiles holds
        the interpreter lock while it walks the tree (1.6 s at 100k files),
        so neither may run while the first answer is still on its way.
        """
        pending = self._listing.pending if self._listing is not None else None
        if pending is not None:
            with contextlib.suppress(GitError):  # settle_missing tries again, and says why
                pending.start_missing()
        if self._watch_wanted:
            self._watch_wanted = False
            self._start_watcher()

    def close(self) -> None:
        self._watch_wanted = False
        if self._listing is not None and self._listing.pending is not None:
            self._listing.pending.cancel()
            self._listing.pending = None
        self._stop_watcher()

    def _give_up_watching(self) -> None:
        self._stop_watcher()
        self._by_stamps = True

    def _stop_watcher(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self._watching = False

    def _start_watcher(self) -> None:
        if self._factory is None:
            return
        self._watcher = self._factory(self.root)
        self._started_at = time.monotonic()
        self._watcher.start(0.0)
        self._watching = False  # the listing predates the watch: catch up once it is in place

    def _relist(self) -> Listing:
        """List everything again; an unchanged result keeps the tree (and its version)."""
        previous, self._listing = self._listing, None
        started_ns = time.time_ns()
        listing, unchanged = list_again(self.root, self._options, self._runner, previous)
        del previous
        self._stamps = None
        if self._by_stamps:
            self._stamps = _stamps_of(listing, started_ns)
        if not unchanged:
            self._generation += 1
        _trim_after(listing)
        self._listing = listing
        self._keys = _key_state(listing.key_files)
        self.full_listings += 1
        return listing

    def _keys_changed(self) -> bool:
        """Whether a rule file changed so that only a full listing can say what is listed.

        When only git's index changed, one quick ``ls-files --cached`` decides
        (:func:`tracked_digest`): a commit, or staging a file already
        tracked, lists the same files.
        """
        listing = self._listing
        assert listing is not None
        state = _key_state(listing.key_files)
        if state == self._keys:
            return False
        changed = {
            path
            for path, was, now in zip(listing.key_files, self._keys, state, strict=True)
            if was != now
        }
        if changed != {listing.index} or not listing.tracked_digest:
            return True
        try:
            same = tracked_digest(self._runner, self.root) == listing.tracked_digest
        except GitError:
            return True
        _trim_after(listing)
        if same:
            self._keys = state  # taken before git read the index: a later change shows again
        return not same

    def _apply(self, listing: Listing, paths: Iterable[str]) -> None:
        """Bring the tree up to date with ``paths`` (absolute), or raise :class:`_Relist`."""
        prefix = str(self.root).rstrip("/") + "/"
        tree = listing.tree
        files: list[str] = []
        dirs: list[str] = []
        for path in sorted(paths):  # parents before children
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix) :]
            parts = rel.split("/")
            if ".git" in parts:
                self._git_dir_changed(listing, parts, path)
                continue
            if tree.inside_nested_repository(rel):
                continue
            own_file = listing.ignore_file is not None and path == str(listing.ignore_file)
            if own_file or (
                parts[-1] == GITIGNORE and not self._ignored_dir(listing, "/".join(parts[:-1]))
            ):
                raise _Relist(f"{rel} changed")
            try:
                st = os.lstat(path)
            except OSError:
                if tree.remove(rel):
                    listing.known.add(rel)
                continue
            if stat.S_ISDIR(st.st_mode):
                if tree.contains(rel) and tree.find_dir(rel) is None:
                    tree.remove(rel)  # a file became a directory
                if tree.find_dir(rel) is not None or tree.contains(rel + "/"):
                    continue
                if is_nested_repository(path):
                    files.append(rel + "/")
                else:
                    dirs.append(rel)
            elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                if tree.find_dir(rel) is not None:
                    tree.remove(rel)  # a directory became a file
                if not tree.contains(rel):
                    files.append(rel)
        for rel in self._admit(listing, files, dirs):
            tree.add(rel)

    def _ignored_dir(self, listing: Listing, rel_dir: str) -> bool:
        """Whether ``rel_dir`` is ignored (so a ``.gitignore`` in it changes nothing)."""
        if not rel_dir:
            return False
        rules = rules_for(listing, self._runner)
        return listing.own.excluded_path(rel_dir, True) or rules.excluded_path(rel_dir, True)

    def _git_dir_changed(self, listing: Listing, parts: list[str], path: str) -> None:
        at = parts.index(".git")
        if at == 0:
            # Our own repository: index and excludes are stat-checked each turn.
            if not listing.in_git and git_dir(self.root) is not None:
                raise _Relist("the root became a repository")
            return
        owner = "/".join(parts[:at])
        known = listing.tree.contains(owner + "/") or listing.tree.contains(owner)
        if known and len(parts) > at + 1:
            return  # activity inside a nested repository we list as one entry
        if known != is_nested_repository(str(self.root / owner)):
            raise _Relist(f"{owner} became or stopped being a repository")

    def _admit(self, listing: Listing, files: list[str], dirs: list[str]) -> list[str]:
        """The candidates (new files, and the contents of new directories) git would list."""
        if not files and not dirs:
            return []
        rules = rules_for(listing, self._runner)
        own = listing.own
        found: list[str] = []
        for rel in dirs:
            if own.excluded_path(rel, True) or rules.excluded_path(rel, True):
                continue
            try:
                found.extend(walk(self.root, rules, start=rel, own=own).entries())
            except OSError:
                continue
        for rel in files:
            key, is_dir = rel.rstrip("/"), rel.endswith("/")
            if own.excluded_path(key, is_dir):
                continue
            if rel in listing.known or not rules.excluded_path(key, is_dir):
                found.append(rel)
        return found


def _trim_after(listing: Listing) -> None:
    """Hand back the heap that reading git's output for ``listing`` left free."""
    if listing.tree.leaves >= _TRIM_AFTER_FILES:
        return_free_memory()


def _stamps_of(listing: Listing, started_ns: int) -> DirStamps:
    tree = listing.tree
    return DirStamps.take(listing.root, tree.directories(), tree.named(GITIGNORE), started_ns)


def _key_state(paths: Iterable[Path]) -> _KeyState:
    """The key of each rule file, or None when absent."""
    return file_keys(paths)
