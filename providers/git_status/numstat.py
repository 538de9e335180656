"""Line counts of the changed files (``+40 -3``): ``git diff --numstat``, bounded, running no
program of the repository's.

Once ``git status`` has said which files changed, two runs start at once: the
index against HEAD (``git diff --cached``) and the work tree against the index
(``git diff-files``: ``git diff`` would refresh the index and write it when a
file's stat changed but not its content, ``--no-optional-locks`` or not), each
limited to those files (literal pathspecs), so git reads only them. Bounded:
no run when more than :data:`MAX_FILES` files changed, and a file over
:data:`MAX_FILE_BYTES` (by ``lstat``), or past :data:`MAX_TOTAL_BYTES` in all,
is left out of them. Binary files (``-\\t-``) and submodules get no count.
``--no-ext-diff --no-textconv``: no configured diff program runs (the
filters are :mod:`providers.repository.gitexec`'s to neutralise, like every
git run's). A failed or timed-out run costs only its counts: those lines
then say nothing about size.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from providers.core.errors import ProviderError
from providers.git_status.git import LFS_OFF, Git, GitRun
from providers.git_status.porcelain import EntryKind, Status

log = logging.getLogger(__name__)

MAX_FILES = 256
"""More changed files than this: no line counts at all (a page lists far fewer)."""
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20

OPTIONS = ("--numstat", "-z", "--no-color", "--no-ext-diff", "--no-textconv")
INDEX = ("diff", "--cached", *OPTIONS, "--ignore-submodules=all")
"""The index against HEAD (an unborn HEAD: against nothing, which ``diff-index`` refuses)."""
WORK_TREE = ("diff-files", *OPTIONS, "--ignore-submodules=all")
"""The work tree against the index, never writing it."""

Counts = tuple[tuple[str, int, int], ...]
"""``(path, added, deleted)``, sorted by path."""

_CHANGED = (EntryKind.ORDINARY, EntryKind.RENAMED, EntryKind.COPIED)


def counted_paths(toplevel: Path, status: Status) -> tuple[list[str], list[str]]:
    """The files worth a count: (index against HEAD, work tree against the index).

    A rename's pathspec names both sides, so git pairs them as status did.
    """
    staged: list[str] = []
    unstaged: list[str] = []
    for entry in status.entries:
        if entry.kind not in _CHANGED or entry.submodule != "N...":
            continue
        if entry.index != ".":
            staged.append(entry.path)
            if entry.orig_path is not None:
                staged.append(entry.orig_path)
        if entry.worktree != ".":
            unstaged.append(entry.path)
    if len(staged) + len(unstaged) > MAX_FILES:
        return [], []
    small = _small_enough(toplevel, sorted({*staged, *unstaged}))
    return [p for p in staged if p in small], [p for p in unstaged if p in small]


def _small_enough(toplevel: Path, paths: Sequence[str]) -> set[str]:
    """``paths`` whose work tree file is small, in path order until the total is spent;
    a path with no file (deleted) costs nothing to stat."""
    found: set[str] = set()
    total = 0
    for path in paths:
        try:
            size = os.lstat(toplevel / path).st_size
        except OSError:
            size = 0
        if size > MAX_FILE_BYTES or total + size > MAX_TOTAL_BYTES:
            continue
        total += size
        found.add(path)
    return found


class LineCounts:
    """The two ``git diff --numstat`` runs, started; :meth:`result` waits for them."""

    def __init__(self, git: Git, toplevel: Path, status: Status, *, lfs_off: bool) -> None:
        staged, unstaged = counted_paths(toplevel, status)
        options = (*(LFS_OFF if lfs_off else ()), "--literal-pathspecs")
        self._runs: list[GitRun | None] = []
        for command, paths in ((INDEX, staged), (WORK_TREE, unstaged)):
            run = None
            if paths:
                try:
                    run = git.start(toplevel, *options, *command, "--", *paths)
                except ProviderError as exc:
                    log.debug("no line counts: %s", exc)
            self._runs.append(run)

    def result(self) -> tuple[Counts, Counts]:
        """(staged, unstaged) counts; empty for a run that failed."""
        staged, unstaged = (_counts(run) for run in self._runs)
        return staged, unstaged


def _counts(run: GitRun | None) -> Counts:
    if run is None:
        return ()
    try:
        return parse_numstat(run.output())
    except (ProviderError, ValueError) as exc:
        log.debug("no line counts: %s", exc)
        return ()


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
