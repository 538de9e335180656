"""A snapshot's sizes, measured around its ``git status`` run so they add little wait.

Before status: line counts start (:mod:`providers.git_status.numstat`) for what
changed since the last snapshot's were taken (:mod:`providers.git_status.countcache`
keeps the rest): the index's when the index file changed (at the first snapshot too: it
reads no work tree file), the work tree's for the files the last snapshot named whose
version changed. Never every work tree file early: that would walk the work tree a second
time, alongside status, on machines short of cores. On the first snapshot, git is also
asked where its global excludes file is. Once status has answered: line counts start for
the files it named that nothing covers yet, the untracked folders are counted by a walk
in this process meanwhile (:mod:`providers.git_status.folders`), and the counts are
collected.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from pathlib import Path

from providers.core.errors import ProviderError
from providers.git_status.countcache import CountCache
from providers.git_status.folders import count_files, untracked_folders
from providers.git_status.git import Git, GitRun
from providers.git_status.numstat import MAX_FILES, Counts, LineCounts, changed_paths
from providers.git_status.porcelain import Status
from providers.git_status.sizes import Sizes
from providers.repository.excludes import (
    EXCLUDES_FILE_ARGS,
    excludes_file_from,
    global_excludes,
)
from providers.repository.ignore import IgnoreRules, default_global_excludes
from providers.repository.sources import FileKey, file_key

log = logging.getLogger(__name__)


class Measure:
    """One repository's measuring, across snapshots (what it learnt once is kept)."""

    def __init__(self, git: Git, toplevel: Path, git_dir: Path, common_dir: Path) -> None:
        self._git = git
        self._toplevel = toplevel
        self._index = git_dir / "index"
        self._info_exclude = common_dir / "info" / "exclude"
        self._excludes: tuple[Path | None] | None = None
        """Where git's global excludes file is, once asked (the config is read once)."""
        self._cache = CountCache()
        self._last: LineCounts | None = None
        """The last snapshot's line counts: which files it named on each side."""
        self._head: str | None = None

    def start(self, *, untracked: bool, lfs_off: bool) -> Measuring:
        """Call right before ``git status`` starts. ``untracked``: status lists untracked
        files (so folders may need counting)."""
        taken_ns = time.time_ns()
        index = file_key(self._index)
        last = self._last
        previous = last.unstaged if last is not None else []
        keys = {path: file_key(self._toplevel / path, follow=False) for path in previous}
        known = self._cache.files(index, keys)
        stale = tuple(path for path in previous if path not in known)
        early_index = last is None or (
            last.named[0] <= MAX_FILES and self._cache.staged(index, self._head) is None
        )
        counts = LineCounts(
            self._git, self._toplevel, index=early_index, work_tree=stale or None, lfs_off=lfs_off
        )
        excludes = None
        if untracked and self._excludes is None:
            try:
                excludes = self._git.start(self._toplevel, *EXCLUDES_FILE_ARGS)
            except ProviderError as exc:
                log.debug("cannot ask git for core.excludesFile: %s", exc)
        return Measuring(counts, excludes, index, keys, known, taken_ns)

    def status_is(self, measuring: Measuring, status: Status, *, lfs_off: bool) -> None:
        """Start measuring what ``status`` names that nothing covers yet."""
        counts, index = measuring.counts, measuring.index
        measuring.head = status.branch.oid
        measuring.staged = self._cache.staged(index, measuring.head)
        keys = measuring.keys
        for path in changed_paths(status)[1]:
            if path not in keys:
                keys[path] = file_key(self._toplevel / path, follow=False)
        known = measuring.known
        counts.status_is(
            status, lfs_off=lfs_off, index_known=measuring.staged is not None, known=known
        )

    def finish(self, measuring: Measuring, status: Status) -> Sizes:
        """The sizes of what ``status`` names (after :meth:`status_is`): the untracked
        folders counted while the last line counts run, then those collected."""
        counts, index, head = measuring.counts, measuring.index, measuring.head
        self._last, self._head = counts, head
        if measuring.excludes is not None:
            self._excludes = (self._excludes_from(measuring.excludes),)
        folders = untracked_folders(status)
        counted = count_files(self._toplevel, folders, self._rules()) if folders else ()
        staged, ran = counts.result()
        if measuring.staged is not None:
            staged = measuring.staged
        elif counts.whole[0]:
            self._cache.keep_staged(index, head, staged)
        found: dict[str, tuple[int, int] | None] = {p: (a, d) for p, a, d in ran}
        found |= {p: measuring.known[p] for p in counts.unstaged if p in measuring.known}
        keys = measuring.keys
        kept = {path: keys[path] for path in counts.unstaged} if counts.whole[1] else {}
        self._cache.keep_files(index, kept, found, measuring.taken_ns)
        unstaged = tuple((p, *c) for p, c in sorted(found.items()) if c is not None)
        return Sizes(staged, unstaged, counted)

    def _excludes_from(self, run: GitRun) -> Path | None:
        try:
            code, out, _ = run.result()
            configured = excludes_file_from(code, out, self._toplevel)
        except ProviderError as exc:
            log.debug("cannot ask git for core.excludesFile: %s", exc)
            configured = None
        return configured or default_global_excludes(self._git.runner.environ)

    def _rules(self) -> IgnoreRules:
        """git's ignore rules, read afresh (a ``.gitignore`` may have changed)."""
        if self._excludes is None:  # status listed no untracked files when asked first
            self._excludes = (global_excludes(self._git.runner, self._toplevel),)
        return IgnoreRules(
            self._toplevel, info_exclude=self._info_exclude, global_excludes=self._excludes[0]
        )


class Measuring:
    """What one snapshot started before its ``git status`` and what it saw then (the
    index's key, the keys and kept counts of the files the last snapshot named); stop
    what it started if the snapshot fails."""

    def __init__(
        self,
        counts: LineCounts,
        excludes: GitRun | None,
        index: FileKey | None,
        keys: dict[str, FileKey | None],
        known: Mapping[str, tuple[int, int] | None],
        taken_ns: int,
    ) -> None:
        self.counts = counts
        self.excludes = excludes
        self.index = index
        self.keys = keys
        """Each named work tree file's key, taken before its count."""
        self.known = known
        self.taken_ns = taken_ns
        self.head: str | None = None
        self.staged: Counts | None = None
        """The index's counts, when kept from the last snapshot."""

    def cancel(self) -> None:
        self.counts.cancel()
        if self.excludes is not None:
            self.excludes.kill()
