"""A snapshot's sizes, measured around its ``git status`` run so they add little wait.

Before status: the line counts start for what the last snapshot had changed
(:mod:`providers.git_status.numstat`; at the first snapshot, the index's, which reads no
work tree file), and on the first snapshot, git is asked where its global excludes file
is. Never every work tree file early: that would walk the work tree a second time,
alongside status, on machines short of cores. Once status has answered: line counts
start for the files it named that no early run covers, the untracked folders are counted
by a walk in this process meanwhile (:mod:`providers.git_status.folders`), and the
counts are collected.
"""

from __future__ import annotations

import logging
from pathlib import Path

from providers.core.errors import ProviderError
from providers.git_status.folders import count_files, untracked_folders
from providers.git_status.git import Git, GitRun
from providers.git_status.numstat import MAX_FILES, LineCounts
from providers.git_status.porcelain import Status
from providers.git_status.sizes import Sizes
from providers.repository.excludes import (
    EXCLUDES_FILE_ARGS,
    excludes_file_from,
    global_excludes,
)
from providers.repository.ignore import IgnoreRules, default_global_excludes

log = logging.getLogger(__name__)


class Measure:
    """One repository's measuring, across snapshots (what it learnt once is kept)."""

    def __init__(self, git: Git, toplevel: Path, common_dir: Path) -> None:
        self._git = git
        self._toplevel = toplevel
        self._info_exclude = common_dir / "info" / "exclude"
        self._excludes: tuple[Path | None] | None = None
        """Where git's global excludes file is, once asked (the config is read once)."""
        self._last: LineCounts | None = None
        """The last snapshot's line counts: which files it named on each side."""

    def start(self, *, untracked: bool, lfs_off: bool) -> Measuring:
        """Call right before ``git status`` starts. ``untracked``: status lists untracked
        files (so folders may need counting)."""
        index, work_tree = True, None  # first: staged files unknown, but cheap to find
        if self._last is not None:
            index = 0 < self._last.named[0] <= MAX_FILES
            work_tree = tuple(self._last.unstaged) or None
        counts = LineCounts(
            self._git, self._toplevel, index=index, work_tree=work_tree, lfs_off=lfs_off
        )
        excludes = None
        if untracked and self._excludes is None:
            try:
                excludes = self._git.start(self._toplevel, *EXCLUDES_FILE_ARGS)
            except ProviderError as exc:
                log.debug("cannot ask git for core.excludesFile: %s", exc)
        return Measuring(counts, excludes)

    def finish(self, measuring: Measuring, status: Status, *, lfs_off: bool) -> Sizes:
        """The sizes of what ``status`` names."""
        counts = measuring.counts
        counts.status_is(status, lfs_off=lfs_off)
        self._last = counts
        if measuring.excludes is not None:
            self._excludes = (self._excludes_from(measuring.excludes),)
        folders = untracked_folders(status)
        counted = count_files(self._toplevel, folders, self._rules()) if folders else ()
        staged, unstaged = counts.result()
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
    """What one snapshot started before its ``git status``: stop it if the snapshot fails."""

    def __init__(self, counts: LineCounts, excludes: GitRun | None) -> None:
        self.counts = counts
        self.excludes = excludes

    def cancel(self) -> None:
        self.counts.cancel()
        if self.excludes is not None:
            self.excludes.kill()
