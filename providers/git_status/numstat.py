"""Line counts of the changed files (``+40 -3``): ``git diff --numstat``, bounded,
running no program of the repository's.

Two sides: the index against HEAD (``git diff --cached``) and the work tree against the
index (``git diff-files``: ``git diff`` would refresh the index and write it when a
file's stat changed but not its content, ``--no-optional-locks`` or not). Each is
measured early, alongside ``git status``, when that is likely to be worth it
(:mod:`providers.git_status.measure` decides): the index for every staged file, the work
tree for the files the last snapshot named; what status then names is kept. An early run
not done when status is (a huge staged set, a mass of files whose stat changed) is
stopped. What no early run covered is measured late, once status has named the files,
limited to them (literal pathspecs), so git reads only those. Early or late, the counts
are the same.

Bounded: past :data:`MAX_FILES` files on a side, that side gets no counts; a file over
:data:`MAX_FILE_BYTES` counts as binary (``core.bigFileThreshold``: git does not diff
it), and work tree files past :data:`MAX_TOTAL_BYTES` in all (by ``lstat``) get no
count. Binary files (counted ``-`` by git) and submodules get none either. ``--no-ext-diff
--no-textconv``: no configured diff program runs (the filters are
:mod:`providers.repository.gitexec`'s to neutralise, like every git run's). A failed or
timed-out run costs only its counts: those lines then say nothing about size.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Sequence
from pathlib import Path

from providers.core.errors import ProviderError
from providers.git_status.git import LFS_OFF, Git, GitRun
from providers.git_status.porcelain import EntryKind, Status

log = logging.getLogger(__name__)

MAX_FILES = 256
"""More changed files than this on a side: no line counts for it (a page lists far fewer)."""
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20

OPTIONS = ("--numstat", "-z", "--no-color", "--no-ext-diff", "--no-textconv")
BOUNDED = (
    *("-c", f"core.bigFileThreshold={MAX_FILE_BYTES}"),
    *("-c", "core.preloadIndex=false"),  # threads to stat a few files cost more than they save
    "--literal-pathspecs",
)
INDEX = ("diff", "--cached", *OPTIONS, "--ignore-submodules=all")
"""The index against HEAD (an unborn HEAD: against nothing, which ``diff-index`` refuses)."""
WORK_TREE = ("diff-files", *OPTIONS, "--ignore-submodules=all")
"""The work tree against the index, never writing it."""

Counts = tuple[tuple[str, int, int], ...]
"""``(path, added, deleted)``, sorted by path."""

_CHANGED = (EntryKind.ORDINARY, EntryKind.RENAMED, EntryKind.COPIED)


def changed_paths(status: Status) -> tuple[list[str], list[str]]:
    """The files worth a count: (staged, unstaged); a rename by its new name."""
    staged: list[str] = []
    unstaged: list[str] = []
    for entry in status.entries:
        if entry.kind not in _CHANGED or entry.submodule != "N...":
            continue
        if entry.index != ".":
            staged.append(entry.path)
        if entry.worktree != ".":
            unstaged.append(entry.path)
    return staged, unstaged


def small_enough(toplevel: Path, paths: Sequence[str]) -> list[str]:
    """``paths`` whose work tree file is small, in order until the total is spent; a path
    with no file (deleted) costs nothing."""
    found: list[str] = []
    total = 0
    for path in paths:
        try:
            size = os.lstat(toplevel / path).st_size
        except OSError:
            size = 0
        if size > MAX_FILE_BYTES or total + size > MAX_TOTAL_BYTES:
            continue
        total += size
        found.append(path)
    return found


class LineCounts:
    """Both sides' runs: made right before ``git status`` starts, told its answer
    (:meth:`status_is`), then asked for the counts (:meth:`result`); or cancelled."""

    def __init__(
        self,
        git: Git,
        toplevel: Path,
        *,
        index: bool,
        work_tree: Sequence[str] | None,
        lfs_off: bool,
    ) -> None:
        """Start the early runs: the ``index`` (every staged file), the ``work_tree`` for
        these files (``()``: every file; None: none early)."""
        self._git = git
        self._toplevel = toplevel
        self._index = self._start(INDEX, ()) if index else None
        self._early = None
        self._covers: set[str] | None = None
        """What the early work tree run measures; None: every file."""
        if work_tree is not None:
            self._early = self._start(WORK_TREE, work_tree, LFS_OFF if lfs_off else ())
            self._covers = set(work_tree) if work_tree else None
        self._late: GitRun | None = None
        self._kept: tuple[set[str], set[str]] = (set(), set())
        self.named = (0, 0)
        """How many files status named on each side (index, work tree)."""
        self.unstaged: list[str] = []
        """The work tree's files worth a count, as status named them."""
        self.whole = [True, True]
        """Whether each side (index, work tree) got every count it asked for: no run
        failed, timed out or could not start (a passing failure: not to be kept)."""

    def status_is(
        self,
        status: Status,
        *,
        lfs_off: bool,
        index_known: bool = False,
        known: Collection[str] = (),
    ) -> None:
        """Keep the early runs that are done, and start what is missing, for what status
        named: not the index when its counts are ``index_known``, nor the work tree files
        ``known`` (the caller has their counts).

        ``lfs_off``: the work tree's runs compare LFS files as they are (see
        :data:`~providers.git_status.git.LFS_OFF`); the index's runs no filter at all.
        """
        staged, unstaged = changed_paths(status)
        self.named = (len(staged), len(unstaged))
        wanted = 0 < len(staged) <= MAX_FILES and not index_known
        if self._index is not None and not (wanted and self._index.done()):
            self._index.kill()  # nothing to count, known, too much, or slower than status
            self._index = None
        if self._index is None and wanted:
            renamed = [e.orig_path for e in status.entries if e.orig_path and e.index != "."]
            self._index = self._start(INDEX, [*staged, *renamed])
            self.whole[0] = self._index is not None
        small = small_enough(self._toplevel, unstaged) if len(unstaged) <= MAX_FILES else []
        self.unstaged = small
        if self._early is not None and not (small and self._early.done()):
            self._early.kill()
            self._early = None
        covers = set(known)
        if self._early is not None:
            covers |= self._covers if self._covers is not None else set(small)
        missing = [path for path in small if path not in covers]
        if missing:
            self._late = self._start(WORK_TREE, missing, LFS_OFF if lfs_off else ())
            self.whole[1] = self._late is not None
        self._kept = (set(staged), set(small))

    def result(self) -> tuple[Counts, Counts]:
        """(staged, unstaged) counts; none from a run that failed (see :attr:`whole`)."""
        staged = self._counts(0, self._index)
        unstaged = self._counts(1, self._early) + self._counts(1, self._late)
        return staged, tuple(sorted(set(unstaged)))

    def _counts(self, side: int, run: GitRun | None) -> Counts:
        """What ``run`` counted for the files kept on ``side`` (0: index, 1: work tree)."""
        if run is None:
            return ()
        try:
            counted = parse_numstat(run.output())
        except (ProviderError, ValueError) as exc:
            log.debug("no line counts: %s", exc)
            self.whole[side] = False
            return ()
        return tuple(found for found in counted if found[0] in self._kept[side])

    def running(self) -> bool:
        """Whether a run started has not finished yet."""
        return any(run is not None and not run.done() for run in self._runs())

    def cancel(self) -> None:
        for run in self._runs():
            if run is not None:
                run.kill()

    def _runs(self) -> tuple[GitRun | None, ...]:
        return (self._index, self._early, self._late)

    def _start(
        self, command: Sequence[str], paths: Sequence[str], options: Sequence[str] = ()
    ) -> GitRun | None:
        try:
            return self._git.start(self._toplevel, *options, *BOUNDED, *command, "--", *paths)
        except ProviderError as exc:
            log.debug("no line counts: %s", exc)
            return None


def parse_numstat(output: bytes) -> Counts:
    """``added TAB deleted TAB path NUL`` records (a rename: an empty path, then ``old NUL
    new NUL``), keyed by the path status shows (a rename's new one); binary files,
    ``- TAB -``, are left out. Raises ``ValueError`` on anything else."""
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(fields):
        record = fields[i]
        i += 1
        if not record:
            continue
        added, deleted, path = record.split("\t", 2)
        if not path:
            if i + 1 >= len(fields):
                raise ValueError(f"rename without its paths: {record!r}")
            path = fields[i + 1]
            i += 2
        if added == "-" and deleted == "-":
            continue
        found[path] = (int(added), int(deleted))
    return tuple((path, *found[path]) for path in sorted(found))
