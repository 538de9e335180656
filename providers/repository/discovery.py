"""Which repository git will use from a directory, found as git finds it, and whether it is ours.

git climbs from its working directory to the first directory holding a
``.git`` (a directory, a ``gitdir:`` file or a link to either), or that is
a git directory itself (cwd inside ``.git``, or a bare repository). We climb
the same way, a little more willingly (any ``.git`` entry stops us; any
``HEAD`` that could be git's makes a git directory), and then forbid git to
climb past the place we stopped (``GIT_CEILING_DIRECTORIES``): git either
uses the repository we looked at or none.

A repository is ours when its git directory and work tree belong to the
directory we found, as every layout git makes itself does:

- ``.git`` is a directory inside the work tree (not a link leading out);
- a linked worktree's git dir lies in the main repository's
  ``.git/worktrees/`` and names our ``.git`` back (its ``gitdir`` file);
- a submodule's git dir names our directory back with ``core.worktree``;
- a git dir kept apart (``git init --separate-git-dir``) names nothing back:
  it is followed as git's own data unless it is plainly someone else's.

A ``.git`` leading to another checkout's ``.git`` (``gitdir:
/home/me/secret/.git``, or a symlink there), to another checkout's linked
worktree or to a bare repository, a ``commondir`` borrowing another
repository's refs, or a ``core.worktree`` elsewhere would make git show
another directory's files or history as this one's: :class:`NotOurs` says
which, and git is not run there.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from providers.repository.sources import read_prefix

DOT_GIT = ".git"
_SMALL = 4096
_GITFILE = re.compile(rb"gitdir: ([^\r\n\0]+)(?:\r?\n)*")
_HEX = re.compile(rb"[0-9a-f]{40}")


class NotOurs(Exception):
    """git would use a git directory or work tree that is not this directory's own."""


@dataclass(frozen=True)
class Found:
    """Where git stops climbing, and what it will use there.

    ``top`` is the directory holding ``.git`` (then ``work_tree`` is ``top``
    unless ``core.worktree`` says otherwise), or the git directory itself
    (``work_tree`` None). ``git_dir`` is None when git will find nothing
    usable at ``top`` (a ``.git`` that is no repository): it fails there.
    """

    top: Path
    git_dir: Path | None
    common_dir: Path | None
    work_tree: Path | None
    via: str
    """``dir`` (a ``.git`` directory), ``file`` (``gitdir:``), ``link`` (a symlinked
    ``.git``) or ``git dir`` (``top`` is the git directory)."""


def find(cwd: Path) -> Found | None:
    """Where git run in ``cwd`` finds its repository; None where it finds none."""
    start = Path(os.path.realpath(cwd))
    for directory in (start, *start.parents):
        dot = directory / DOT_GIT
        try:
            st = os.lstat(dot)
        except OSError:
            st = None
        if st is not None:
            return _through_dot_git(directory, dot, st)
        if could_be_git_dir(directory):
            git_dir = directory
            return Found(directory, git_dir, common_dir_of(git_dir), None, "git dir")
    return None


def could_be_git_dir(path: Path) -> bool:
    """git's test for a git directory (``is_git_directory``), a little more willing:
    a ``HEAD`` that is a link or starts like a ref or an object id, and ``objects``
    and ``refs`` git may enter, in the common directory when ``commondir`` names one."""
    head = path / "HEAD"
    try:
        st = os.lstat(head)
    except OSError:
        return False
    if stat.S_ISREG(st.st_mode):
        text = read_prefix(head, 64) or b""
        if not (text.startswith(b"ref:") or _HEX.match(text)):
            return False
    elif not stat.S_ISLNK(st.st_mode):
        return False
    common = common_dir_of(path)
    if common is None:
        return True  # an unreadable commondir: git's view is unknown, so take it
    return os.access(common / "objects", os.X_OK) and os.access(common / "refs", os.X_OK)


def common_dir_of(git_dir: Path) -> Path | None:
    """``git_dir/commondir`` resolved as git reads it (trailing whitespace trimmed, relative
    to ``git_dir``); ``git_dir`` without one; None when it exists but is no regular file."""
    path = git_dir / "commondir"
    if not os.path.lexists(path):
        return git_dir
    data = read_prefix(path, _SMALL)
    if data is None:
        return None
    target = Path(os.fsdecode(data.rstrip()))
    return target if target.is_absolute() else git_dir / target


def through_dot_git(top: Path) -> Found | None:
    """What git finds through ``top/.git`` (a submodule's checkout); None without one."""
    dot = top / DOT_GIT
    try:
        st = os.lstat(dot)
    except OSError:
        return None
    return _through_dot_git(top, dot, st)


def _through_dot_git(top: Path, dot: Path, st: os.stat_result) -> Found:
    git_dir: Path | None = None
    via = "dir"
    if stat.S_ISDIR(st.st_mode):
        git_dir = dot
    elif stat.S_ISLNK(st.st_mode):
        via = "link"
        if os.path.isdir(dot):
            git_dir = Path(os.path.realpath(dot))
        elif os.path.isfile(dot):
            via, git_dir = "file", gitfile_target(dot)
    elif stat.S_ISREG(st.st_mode):
        via, git_dir = "file", gitfile_target(dot)
    if git_dir is None or not could_be_git_dir(git_dir):
        return Found(top, None, None, None, via)
    return Found(top, git_dir, common_dir_of(git_dir), top, via)


def gitfile_target(dot: Path) -> Path | None:
    """Where a ``gitdir:`` file points; None unless it is one line of that form (git would
    take a path with a newline or a trailing blank in it; we take no such file)."""
    data = read_prefix(dot, _SMALL + 1)
    if data is None or len(data) > _SMALL:
        return None
    match = _GITFILE.fullmatch(data)
    if match is None or match.group(1) != match.group(1).strip():
        return None
    target = Path(os.fsdecode(match.group(1)))
    return target if target.is_absolute() else dot.parent / target


def check_ours(found: Found, core_worktree: str | None, bare: Callable[[], bool]) -> None:
    """Raise :class:`NotOurs` unless ``found``'s git directory and work tree are its own.

    ``core_worktree``: the repository's ``core.worktree``, as written (relative to the
    git directory), or None when unset; ``bare()``: its ``core.bare`` (asked only for a
    git directory elsewhere that does not name us back).
    """
    git_dir, common = found.git_dir, found.common_dir
    if git_dir is None:
        return
    if common is None:
        raise NotOurs(f"{git_dir / 'commondir'} is not a regular file")
    real_git = Path(os.path.realpath(git_dir))
    real_common = Path(os.path.realpath(common))
    linked = real_common != real_git
    if linked and real_git.parent != real_common / "worktrees":
        raise NotOurs(
            f"{git_dir} borrows the refs and config of {common} "
            "(commondir) without being one of its worktrees"
        )
    wanted = _wanted_work_tree(found, core_worktree)
    if found.work_tree is None:
        if wanted is not None and _git_dir_of(wanted) != real_git:
            raise NotOurs(f"core.worktree of {git_dir} points at {wanted}, which is not its own")
        return
    top = Path(os.path.realpath(found.top))
    if wanted is not None and wanted != top:
        raise NotOurs(f"core.worktree in {git_dir} points at {wanted}, not at {found.top}")
    if _inside(real_git, top):
        return
    if linked:
        back = read_prefix(git_dir / "gitdir", _SMALL)
        named = git_dir / os.fsdecode(back.strip()) if back else None  # relative: to git_dir
        if named is not None and Path(os.path.realpath(named)) == top / DOT_GIT:
            return
        raise NotOurs(
            f"{found.top / DOT_GIT} leads to the worktree {git_dir} of another directory "
            "(its gitdir file does not name this one)"
        )
    if wanted is None and (real_git.name == DOT_GIT or bare()):
        whose = "another checkout's .git" if real_git.name == DOT_GIT else "a bare repository"
        raise NotOurs(f"{found.top / DOT_GIT} leads to {git_dir}, {whose}")
    # Else a git dir kept apart (git init --separate-git-dir): followed as git's own data.


def _wanted_work_tree(found: Found, core_worktree: str | None) -> Path | None:
    if core_worktree is None or found.git_dir is None:
        return None
    path = Path(core_worktree)  # taken as written: git expands no ``~`` here
    if not path.is_absolute():
        path = found.git_dir / path
    return Path(os.path.realpath(path))


def _git_dir_of(work_tree: Path) -> Path | None:
    dot = work_tree / DOT_GIT
    if os.path.isdir(dot):
        return Path(os.path.realpath(dot))
    target = gitfile_target(dot)
    return Path(os.path.realpath(target)) if target is not None else None


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


__all__ = [
    "DOT_GIT",
    "Found",
    "NotOurs",
    "check_ours",
    "common_dir_of",
    "could_be_git_dir",
    "find",
    "gitfile_target",
    "through_dot_git",
]
