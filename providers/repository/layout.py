"""Where a repository is on disk: its root, its git directory, nested repositories.

The one copy of each rule, answered with ``stat`` calls and small reads (no
process): the root is the nearest directory upwards holding ``.git`` (a
directory, or the file a linked worktree or submodule has); ``git_dir``
follows that file; ``common_dir`` is where a linked worktree's shared files
(refs, ``info/exclude``) live. Questions only git can answer (``rev-parse``
for bare repositories, ``core.worktree``) are the git status provider's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from providers.repository.sources import read_prefix

DOT_GIT = ".git"

_POINTER_READ = 4096


def upwards(directory: Path) -> Iterator[Path]:
    """``directory`` resolved, then each of its parents up to ``/``."""
    start = directory.resolve()
    yield start
    yield from start.parents


def dot_git_above(directory: Path) -> Path | None:
    """The nearest ``.git`` (directory, file or link) at or above ``directory``."""
    for candidate in upwards(directory):
        dot_git = candidate / DOT_GIT
        if os.path.lexists(dot_git):
            return dot_git
    return None


def find_root(working_directory: Path) -> Path:
    """The repository root for ``working_directory``: the nearest directory holding
    ``.git``; without one, the working directory itself (resolved)."""
    dot_git = dot_git_above(working_directory)
    return dot_git.parent if dot_git is not None else working_directory.resolve()


def is_repository_root(root: Path) -> bool:
    return os.path.lexists(os.path.join(root, DOT_GIT))


class RepoRoots:
    """:func:`find_root` memoised per working directory, for the per-turn path.

    A remembered root stays valid while its ``.git`` is there; a directory
    that was no repository stays so until a ``.git`` appears in it. (A
    ``git init`` in some parent during the session is noticed when the
    provider is reconfigured.)
    """

    def __init__(self) -> None:
        self._roots: dict[str, tuple[Path, bool]] = {}

    def root(self, working_directory: Path) -> Path:
        key = os.fspath(working_directory)
        known = self._roots.get(key)
        if known is not None and is_repository_root(known[0]) == known[1]:
            return known[0]
        root = find_root(working_directory)
        self._roots[key] = (root, is_repository_root(root))
        return root


def looks_like_git_dir(path: Path | str) -> bool:
    """What git checks before it takes a directory for a repository: HEAD, objects, refs."""
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and os.path.isdir(os.path.join(path, "refs"))
    )


def _pointer(dot_git_file: Path | str) -> str | None:
    """The target of a ``gitdir: <path>`` file as written, or None."""
    head = read_prefix(dot_git_file, _POINTER_READ)
    if head is None or not head.startswith(b"gitdir: "):  # git's own test, space included
        return None
    return os.fsdecode(head.split(b"\n", 1)[0][8:]).strip()


def is_nested_repository(directory: str) -> bool:
    """Whether git would treat ``directory`` as a repository of its own (not descend into it).

    A ``.git`` directory git would accept, or a ``.git`` file pointing
    elsewhere (``gitdir:``), is what ``git init`` and submodules make.
    """
    dot_git = os.path.join(directory, DOT_GIT)
    if os.path.isdir(dot_git):
        return looks_like_git_dir(dot_git)
    return _pointer(dot_git) is not None


def git_dir(root: Path) -> Path | None:
    """The repository directory of work tree ``root``: ``.git``, or where a ``.git`` file points."""
    dot_git = root / DOT_GIT
    if os.path.isdir(dot_git):
        return dot_git
    target = _pointer(dot_git)
    if target is None:
        return None
    path = Path(target)
    return path if path.is_absolute() else root / path


def common_dir(gitdir: Path) -> Path:
    """Where a linked worktree's shared files (``info/exclude``, refs) live."""
    pointer = read_prefix(gitdir / "commondir", _POINTER_READ)
    if pointer is None or not pointer.strip():
        return gitdir
    target = Path(os.fsdecode(pointer.strip()))
    return target if target.is_absolute() else gitdir / target


def info_exclude(gitdir: Path) -> Path:
    """``$GIT_COMMON_DIR/info/exclude``: the repository's own ignore file."""
    return common_dir(gitdir) / "info" / "exclude"


def head_commit(gitdir: Path) -> str | None:
    """The commit HEAD points at, read from git's files (loose ref or ``packed-refs``);
    None when unborn, or stored where files do not say (reftable): ask git then."""
    head = read_prefix(gitdir / "HEAD", _POINTER_READ)
    if head is None:
        return None
    text = head.decode("ascii", "replace").strip()
    if not text.startswith("ref:"):
        return text if _is_sha(text) else None
    ref = text.removeprefix("ref:").strip()
    common = common_dir(gitdir)
    loose = read_prefix(common / ref, _POINTER_READ) or read_prefix(gitdir / ref, _POINTER_READ)
    if loose is not None:
        sha = loose.decode("ascii", "replace").strip()
        return sha if _is_sha(sha) else None
    packed = read_prefix(common / "packed-refs", _PACKED_REFS_READ)
    if packed is None:
        return None
    wanted = b" " + os.fsencode(ref)
    for line in packed.split(b"\n"):
        if line.endswith(wanted):
            sha = line[: -len(wanted)].decode("ascii", "replace")
            return sha if _is_sha(sha) else None
    return None


_PACKED_REFS_READ = 64 * 1024 * 1024


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
