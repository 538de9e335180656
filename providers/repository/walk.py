"""Listing a directory that is not a git repository the way git would list it after ``git init``.

An iterative ``os.scandir`` walk: symlinks are entries, never followed (a
symlink to a directory is a file, as in git); ignored directories are never
entered; sockets and fifos are skipped (git skips them); a directory holding
a repository of its own is one entry ``name/``; ``.git`` never appears.
Unreadable directories are skipped and counted; a directory already visited
(same device and inode, e.g. through a bind mount) is not entered twice.

The walk is bounded: an agent started in ``/`` or a home directory would
otherwise walk the whole file system (``/proc`` included). It goes breadth
first, so when it stops (:data:`MAX_ENTRIES` entries seen, or
:data:`MAX_SECONDS`) what it has is every level down to where it stopped,
and ``WalkResult.stopped`` says so. File systems that hold no files but the
kernel's (``/proc``, ``/sys``, ``/dev``, cgroups: :data:`PSEUDO_FILE_SYSTEMS`)
are not entered.
"""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from providers.repository.ignore import DEFAULT_EXCLUDES, IgnoreRules, PatternSet
from providers.repository.layout import is_nested_repository

PSEUDO_FILE_SYSTEMS = frozenset(
    {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
        "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore",
        "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs",
    }
)  # fmt: skip
"""Mount types whose entries are the kernel's state, not anyone's files."""
MOUNTS = "/proc/self/mounts"

MAX_ENTRIES = 200_000
"""Directory entries a walk looks at, at most: far more than a project holds."""
MAX_SECONDS = 5.0
"""How long a walk may take, at most (a slow or network file system)."""


@dataclass
class WalkResult:
    """Repo-relative files, nested repositories, and unreadable directories."""

    paths: list[str] = field(default_factory=list)
    repos: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    stopped: str | None = None
    """Why the walk ended before it saw everything (``after 200,000 entries``), if it did."""

    def entries(self) -> list[str]:
        """Files and repositories as the tree adds them (a repository as ``name/``)."""
        return [*self.paths, *(r + "/" for r in self.repos)]


def pseudo_mount_points(mounts: str = MOUNTS) -> frozenset[str]:
    """Where :data:`PSEUDO_FILE_SYSTEMS` are mounted (none known without ``/proc``)."""
    try:
        with open(mounts, "rb") as handle:
            lines = handle.read(1 << 20).decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return frozenset()
    found = set()
    for line in lines:
        fields = line.split(" ")
        if len(fields) > 2 and fields[2] in PSEUDO_FILE_SYSTEMS:
            # Spaces and the like are octal escapes in the file (\040).
            found.add(fields[1].encode("latin-1", "surrogateescape").decode("unicode_escape"))
    return frozenset(found)


def walk(
    root: Path,
    rules: IgnoreRules | None,
    *,
    start: str = "",
    own: PatternSet | None = None,
    max_files: int | None = None,
    max_entries: int | None = None,
    max_seconds: float | None = None,
) -> WalkResult:
    """Everything under ``root/start`` that git would list; ``rules`` None ignores nothing.

    ``own`` patterns prune too (an excluded directory is never entered).
    ``max_files`` stops the walk once that many files are found (the rest unseen);
    ``max_entries`` and ``max_seconds`` (default :data:`MAX_ENTRIES`,
    :data:`MAX_SECONDS`) once that many entries were looked at or that long has
    passed (``stopped`` says which). ``start`` ("" for the root)
    must itself be a directory that is not ignored. Raises ``OSError`` only when
    ``start`` itself cannot be read.
    """
    result = WalkResult()
    seen: set[tuple[int, int]] = set()
    top = os.path.join(root, start) if start else os.fspath(root)
    st = os.stat(top)
    seen.add((st.st_dev, st.st_ino))
    pending: deque[tuple[str, str, int]] = deque([(start, top, st.st_dev)])
    pseudo: frozenset[str] | None = None
    first = True
    visited = 0
    max_entries = MAX_ENTRIES if max_entries is None else max_entries
    max_seconds = MAX_SECONDS if max_seconds is None else max_seconds
    deadline = time.monotonic() + max_seconds
    while pending:
        if not first and visited >= max_entries:
            result.stopped = f"after {max_entries:,} entries"
            break
        if not first and time.monotonic() >= deadline:
            result.stopped = f"after {max_seconds:g} s"
            break
        rel_dir, directory, device = pending.popleft()
        prefix = rel_dir + "/" if rel_dir else ""
        matcher = rules.matcher(rel_dir) if rules is not None else None
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            if first:
                raise
            result.unreadable.append(rel_dir)
            continue
        first = False
        visited += len(listed)
        for entry in listed:
            name = entry.name
            if name in DEFAULT_EXCLUDES:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and (
                    entry.is_file(follow_symlinks=False) or entry.is_symlink()
                )
            except OSError:
                continue
            if not (is_dir or is_file):
                continue
            if matcher is not None and matcher.excluded(name, is_dir):
                continue
            rel = prefix + name
            if own and own.excluded(rel, is_dir):
                continue
            if is_file:
                result.paths.append(rel)
                if max_files is not None and len(result.paths) >= max_files:
                    result.stopped = f"after {max_files:,} files"
                    return result
                continue
            if is_nested_repository(entry.path):
                result.repos.append(rel)
                continue
            try:
                inner = entry.stat(follow_symlinks=False)
            except OSError:
                result.unreadable.append(rel)
                continue
            key = (inner.st_dev, inner.st_ino)
            if key in seen:
                continue
            seen.add(key)
            if inner.st_dev != device:  # a mount point: not the kernel's own state
                pseudo = pseudo_mount_points() if pseudo is None else pseudo
                if os.path.realpath(entry.path) in pseudo:
                    continue
            pending.append((rel, entry.path, inner.st_dev))
    return result
