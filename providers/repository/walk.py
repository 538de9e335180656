"""Listing a directory that is not a git repository the way git would list it after ``git init``.

An iterative ``os.scandir`` walk: symlinks are entries, never followed (a
symlink to a directory is a file, as in git); ignored directories are never
entered; sockets and fifos are skipped (git skips them); a directory holding
a repository of its own is one entry ``name/``; ``.git`` never appears.
Unreadable directories are skipped and counted; a directory already visited
(same device and inode, e.g. through a bind mount) is not entered twice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from providers.repository.ignore import DEFAULT_EXCLUDES, IgnoreRules, PatternSet
from providers.repository.layout import is_nested_repository


@dataclass
class WalkResult:
    """Repo-relative files, nested repositories, and unreadable directories."""

    paths: list[str] = field(default_factory=list)
    repos: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    def entries(self) -> list[str]:
        """Files and repositories as the tree adds them (a repository as ``name/``)."""
        return [*self.paths, *(r + "/" for r in self.repos)]


def walk(
    root: Path,
    rules: IgnoreRules | None,
    *,
    start: str = "",
    own: PatternSet | None = None,
    max_files: int | None = None,
) -> WalkResult:
    """Everything under ``root/start`` that git would list; ``rules`` None ignores nothing.

    ``own`` patterns prune too (an excluded directory is never entered).
    ``max_files`` stops the walk once that many files are found (the rest unseen).
    ``start`` ("" for the root) must itself be a directory that is not
    ignored. Raises ``OSError`` only when ``start`` itself cannot be read.
    """
    result = WalkResult()
    seen: set[tuple[int, int]] = set()
    top = os.path.join(root, start) if start else os.fspath(root)
    st = os.stat(top)
    seen.add((st.st_dev, st.st_ino))
    stack: list[tuple[str, str]] = [(start, top)]
    first = True
    while stack:
        rel_dir, directory = stack.pop()
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
            if key not in seen:
                seen.add(key)
                stack.append((rel, entry.path))
    return result
