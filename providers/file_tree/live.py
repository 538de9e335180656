"""Keeping the listing current: one full listing, then only what the watcher says changed.

Each turn calls :meth:`LiveListing.refresh`, which asks the watch
(:class:`~providers.watch.WatchLifecycle`) what it can vouch for:

- in place, nothing reported and no rule file changed (a few ``stat`` calls):
  the cached listing, with no walk and no git call;
- in place, paths reported: :func:`incremental.apply_changes` edits the tree
  in place, or says a full re-list is needed;
- just in place: one full re-list, for what changed before it was;
- still being set up: the cached listing (the first one, whose answer must
  not wait for the watch), unless a rule file or directory time changed;
- no watch (``watch = false``, it failed, or it died and waits to be
  replaced): the listed directories' times against those stamped after the
  last listing (:mod:`stamps`); unchanged, the cached listing;
- a walk that stopped early (``Listing.partial``: started in ``/`` or a home
  directory): the cached listing, with no watch and no stamps.

A changed git excludes file or our ignore file always means a full re-list.
A change of git's index alone (a commit, a file staged or unstaged) does
not: one ``ls-files --cached`` lists the tracked files, their hashes
(:mod:`tracked`) say where they changed, and :func:`incremental.apply_index`
edits the tree there.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterable
from pathlib import Path

from providers.file_tree.incremental import Relist, apply_changes, apply_index
from providers.file_tree.listing import Listing, ListingOptions, list_again, settle_missing
from providers.file_tree.memory import return_free_memory
from providers.file_tree.stamps import DirStamps
from providers.file_tree.tracked import TRACKED_ARGS, TrackedBlocks
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import GITIGNORE
from providers.repository.ignored_dirs import IgnoredDirs
from providers.repository.sources import FileKey, file_keys
from providers.watch import WatcherFactory, WatchLifecycle, WatchStatus

log = logging.getLogger(__name__)

_KeyState = tuple[FileKey | None, ...]

_TRIM_AFTER_FILES = 20_000
"""Listings this big leave megabytes of freed heap behind; smaller ones are not worth a call."""


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
        # What git ignores is neither listed nor watched (nothing in it is shown).
        self._watch = WatchLifecycle(
            (root,), watcher_factory, ignored=lambda: IgnoredDirs(root, runner)
        )
        self._stamps: DirStamps | None = None
        self._listing: Listing | None = None
        self._keys: _KeyState = ()
        self._generation = 0

    @property
    def version(self) -> tuple[int, int]:
        """Changes whenever the listing may have changed (a new listing or an edit in place)."""
        tree_version = self._listing.tree.version if self._listing is not None else -1
        return self._generation, tree_version

    def refresh(self) -> Listing:
        """The current listing. Raises ``OSError`` when the root cannot be read."""
        if self._listing is None:
            # Setting up a recursive watch takes seconds on a big tree: the first
            # listing's answer does not wait for it (nor for directory stamps).
            listing = self._relist(stamp=not self._watch.watching)
            self._watch.answer_computed()
            return listing
        if self._listing.pending is not None:
            settle_missing(self._listing)
        if self._listing.partial:
            # A walk that stopped early (the file system from /, a home directory) is kept
            # as it is: no watch on all of that, no stamps, listed again only when a rule
            # file changes.
            return self._relist(stamp=False) if self._keys_changed() else self._listing
        report = self._watch.poll()
        if report.status is WatchStatus.JUST_READY:
            return self._relist(stamp=False)
        if report.status is WatchStatus.READY:
            return self._apply(report.changes.paths, report.changes.overflow)
        if self._keys_changed():
            return self._relist(stamp=True)
        if self._stamps is not None:
            return self._listing if not self._stamps.changed() else self._relist(stamp=True)
        if report.status is WatchStatus.SETTING_UP:
            return self._listing  # the first listing, until the watch is in place
        return self._relist(stamp=True)

    def answer_sent(self) -> None:
        """Start what the last listing left for later; called once its answer is sent.

        That is the search for deleted tracked files (a ``stat`` per tracked
        file) and the watcher. Both compete for the CPU, and watchfiles holds
        the interpreter lock while it walks the tree (1.6 s at 100k files),
        so neither may run while the answer is still on its way.
        """
        pending = self._listing.pending if self._listing is not None else None
        if pending is not None:
            with contextlib.suppress(GitError):  # settle_missing tries again, and says why
                pending.start_missing()
        if self._listing is None or not self._listing.partial:
            self._watch.answer_sent()

    def close(self) -> None:
        self._watch.stop()
        if self._listing is not None and self._listing.pending is not None:
            self._listing.pending.cancel()
            self._listing.pending = None

    def _apply(self, paths: Iterable[str], overflow: bool) -> Listing:
        listing = self._listing
        assert listing is not None
        if overflow or self._keys_changed():
            return self._relist(stamp=False)
        if paths:
            try:
                apply_changes(listing, self._runner, paths)
            except Relist as why:
                log.debug("file tree: full re-list (%s)", why)
                return self._relist(stamp=False)
        return listing

    def _relist(self, *, stamp: bool) -> Listing:
        """List everything again; an unchanged result keeps the tree (and its version).

        ``stamp``: take directory stamps after it, for turns without a watch.
        """
        previous, self._listing = self._listing, None
        started_ns = time.time_ns()
        listing, unchanged = list_again(self.root, self._options, self._runner, previous)
        del previous
        self._stamps = _stamps_of(listing, started_ns) if stamp and not listing.partial else None
        if not unchanged:
            self._generation += 1
        _trim_after(listing)
        self._listing = listing
        self._keys = _key_state(listing.key_files)
        return listing

    def _keys_changed(self) -> bool:
        """Whether a rule file changed so that only a full listing can say what is listed.

        When only git's index changed, one quick ``ls-files --cached`` says what
        the tracked files are now, and the listing is edited where they changed
        (a commit, or staging a file already tracked, changes nothing).
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
        if changed != {listing.index} or listing.tracked is None:
            return True
        try:
            out = self._runner.run(self.root, TRACKED_ARGS)[1]
        except GitError:
            return True
        tracked = TrackedBlocks.of(out)
        if not listing.tracked.same(tracked):
            try:
                apply_index(listing, self._runner, listing.tracked.span(tracked, out))
            except Relist as why:
                log.debug("file tree: full re-list (%s)", why)
                return True
            listing.tracked = tracked
        self._keys = state  # taken before git read the index: a later change shows again
        return False


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
