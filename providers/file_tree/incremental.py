"""What a watcher's changed paths mean for the listing: edits in place, or "list again".

Paths created or deleted are each checked against the ignore rules
(``repository.ignore``, which agrees with git; tracked files are remembered in
``Listing.known``) and added to or removed from the tree without running git.
A changed ``.gitignore`` (outside ignored directories) or our own ignore
file, or a repository appearing or vanishing, cannot be applied path by
path: :class:`Relist` says so and the caller lists everything again.

A change of git's index (:func:`apply_index`) is applied the same way: a
newly tracked file is listed whatever the rules say, one no longer tracked
only when they do not ignore it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from providers.file_tree.listing import Listing, rules_for
from providers.file_tree.packed import encode
from providers.file_tree.tracked import Span
from providers.repository.gitexec import GitRunner
from providers.repository.ignore import GITIGNORE
from providers.repository.layout import DOT_GIT, git_dir, is_nested_repository
from providers.repository.walk import walk


class Relist(Exception):
    """An incremental update cannot be trusted: list everything again."""


def apply_changes(listing: Listing, runner: GitRunner, paths: Iterable[str]) -> None:
    """Bring ``listing``'s tree up to date with ``paths`` (absolute), or raise :class:`Relist`."""
    root = listing.root
    prefix = str(root).rstrip("/") + "/"
    tree = listing.tree
    files: list[str] = []
    dirs: list[str] = []
    for path in sorted(paths):  # parents before children
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        parts = rel.split("/")
        if DOT_GIT in parts:
            _git_dir_changed(listing, parts)
            continue
        if tree.inside_nested_repository(rel):
            continue
        own_file = any(path == str(file) for file in listing.ignore_files)
        if own_file or (
            parts[-1] == GITIGNORE and not _ignored_dir(listing, runner, "/".join(parts[:-1]))
        ):
            raise Relist(f"{rel} changed")
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
    for rel in _admitted(listing, runner, files, dirs):
        tree.add(rel)


SPAN_MOST = 20_000
"""Listed paths in an index change's span beyond which listing everything again is as quick."""


def apply_index(listing: Listing, runner: GitRunner, span: Span) -> None:
    """Bring ``listing`` up to date with git's index, whose tracked files changed within
    ``span`` only (:meth:`TrackedBlocks.span`), or raise :class:`Relist`."""
    tree = listing.tree
    listed = tree.leaves_between(span.after, span.before, SPAN_MOST)
    if listed is None:
        raise Relist("the index changed in too many places")
    tracked = span.paths
    for rel in sorted(tracked.difference(listed)):  # newly tracked
        if tree.inside_nested_repository(rel) or listing.own.excluded_path(rel, False):
            continue
        try:
            st = os.lstat(listing.root / rel)
        except OSError:
            listing.known.add(rel)  # deleted: listed again whatever the rules say if it returns
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            raise Relist(f"{rel} is tracked and is not a file")
        tree.add(rel)
    untracked = [rel for rel in listed if rel not in tracked and not tree.is_repository(rel)]
    if untracked:
        rules = rules_for(listing, runner)
        for rel in untracked:
            if rules.excluded_path(rel, False):
                tree.remove(rel)
    after = encode(span.after) if span.after is not None else None
    before = encode(span.before) if span.before is not None else None
    listing.known.difference_update(
        [
            rel
            for rel in listing.known
            if rel not in tracked
            and (after is None or encode(rel) > after)
            and (before is None or encode(rel) < before)
        ]
    )


def _ignored_dir(listing: Listing, runner: GitRunner, rel_dir: str) -> bool:
    """Whether ``rel_dir`` is ignored (so a ``.gitignore`` in it changes nothing)."""
    if not rel_dir:
        return False
    rules = rules_for(listing, runner)
    return listing.own.excluded_path(rel_dir, True) or rules.excluded_path(rel_dir, True)


def _git_dir_changed(listing: Listing, parts: list[str]) -> None:
    at = parts.index(DOT_GIT)
    root = listing.root
    if at == 0:
        # Our own repository: index and excludes are stat-checked each turn.
        if not listing.in_git and git_dir(root) is not None:
            raise Relist("the root became a repository")
        return
    owner = "/".join(parts[:at])
    known = listing.tree.contains(owner + "/") or listing.tree.contains(owner)
    if known and len(parts) > at + 1:
        return  # activity inside a nested repository we list as one entry
    if known != is_nested_repository(str(Path(root) / owner)):
        raise Relist(f"{owner} became or stopped being a repository")


def _admitted(listing: Listing, runner: GitRunner, files: list[str], dirs: list[str]) -> list[str]:
    """The candidates (new files, and the contents of new directories) git would list."""
    if not files and not dirs:
        return []
    rules = rules_for(listing, runner)
    own = listing.own
    found: list[str] = []
    for rel in dirs:
        if own.excluded_path(rel, True) or rules.excluded_path(rel, True):
            continue
        try:
            found.extend(walk(listing.root, rules, start=rel, own=own).entries())
        except OSError:
            continue
    for rel in files:
        key, is_dir = rel.rstrip("/"), rel.endswith("/")
        if own.excluded_path(key, is_dir):
            continue
        if rel in listing.known or not rules.excluded_path(key, is_dir):
            found.append(rel)
    return found
