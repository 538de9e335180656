"""What git would show in a work tree: ``git ls-files``, read the way every provider needs it.

Processes are started by the shared runner (:mod:`gitexec`), which applies
the safety settings for a repository we do not trust; this module only says
what to run and how to read the answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from providers.repository.gitexec import GitError, GitRunner, Running
from providers.repository.sources import Unavailable, read_text

_UNREADABLE = re.compile(rb"could not open directory '")


@dataclass(frozen=True)
class GitListing:
    """Repo-relative files git shows, nested repositories, unreadable directories."""

    paths: list[str]
    repos: list[str]
    unreadable: int


TRACKED_ARGS = ("ls-files", "-z", "-t", "--cached")
"""The tracked files, read from the index (fast: no walk)."""

_TAGS = ("\0H ", "\0M ")
"""``ls-files -t --cached`` tags that keep the entry: cached, unmerged."""
_SKIPPED = re.compile(rb"(?:^|\0)S ([^\0]*)")


class AlreadyTaken(RuntimeError):
    """A listing handed over once was asked for again (it is not kept, to save memory)."""


T = TypeVar("T")


class Handover(Generic[T]):
    """A result that is handed over once: the run keeps no copy once it is taken.

    At 300k files a listing is megabytes; a run kept for :meth:`ListingRun.missing`
    must not hold it too. A second :meth:`take` raises instead of silently
    returning nothing.
    """

    __slots__ = ("_taken", "_value", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self._value: T | None = None
        self._taken = False

    @property
    def ready(self) -> bool:
        return self._value is not None or self._taken

    def put(self, value: T) -> None:
        self._value = value

    def take(self) -> T:
        if self._taken:
            raise AlreadyTaken(f"the {self.what} were already handed over")
        value, self._value = self._value, None
        if value is None:
            raise AlreadyTaken(f"the {self.what} are not read yet")
        self._taken = True
        return value


OutputHook = Callable[[int], None]
"""Told the size of git's output before it is decoded (the file tree tunes its
allocator for large listings)."""


class ListingRun:
    """Tracked plus untracked-not-ignored files; tracked files missing from the work tree apart.

    Three ``ls-files`` processes, together as costly as the one
    ``ls-files -co`` they replace but mostly at the same time: the tracked
    files (``--cached``, read from the index: fast) and the untracked ones
    (``--others``, a walk of the work tree: the slow part) start at once, so
    the caller models the tracked files while the walk runs. The tracked
    files deleted from the work tree (``--deleted``, a ``stat`` per tracked
    file, as costly as the walk) start only when :meth:`start_missing` or
    :meth:`missing` asks, so they do not compete with the listing. ``-t``
    marks entries outside a sparse checkout (``S``): those count as missing
    unless they exist. Submodules and nested repositories are single entries.

    The listings are :class:`Handover` results: each is taken once.
    """

    def __init__(
        self, runner: GitRunner, root: Path, *, on_output: OutputHook | None = None
    ) -> None:
        self._runner = runner
        self._root = root
        self._on_output = on_output
        self._skipped: list[str] = []
        self._hash = hashlib.blake2b(digest_size=16)
        self._tracked_digest = b""
        self._tracked: Handover[list[str]] = Handover("tracked files")
        self._untracked: Handover[GitListing] = Handover("untracked files")
        self._missing: frozenset[str] | None = None
        self._deleted: Running | None = None
        # Each is dropped once waited for: a finished Popen keeps what it read.
        self._cached: Running | None = runner.start(root, TRACKED_ARGS)
        try:
            self._others: Running | None = runner.start(
                root, ["ls-files", "-z", "--others", "--exclude-standard"]
            )
        except GitError:
            self._cached.kill()
            raise

    def take_tracked(self) -> list[str]:
        """The tracked files (waits for the index's listing only); may include missing ones."""
        self._read_tracked()
        return self._tracked.take()

    def _read_tracked(self) -> None:
        if self._tracked.ready:
            return
        assert self._cached is not None
        out = self._wait(self._cached)[1]
        self._cached = None
        if self._on_output is not None:
            self._on_output(len(out))
        self._tracked_digest = tracked_digest_of(out)
        self._hash.update(self._tracked_digest)  # each byte of the output is hashed once
        if out.startswith(b"S ") or b"\0S " in out:
            self._skipped = [os.fsdecode(p) for p in _SKIPPED.findall(out)]
        text = "\0" + os.fsdecode(out)
        del out
        if self._skipped:
            text = text.replace("\0S ", "\0")
        unmerged = "\0M " in text
        for tag in _TAGS:
            text = text.replace(tag, "\0")
        paths = text[1:].split("\0")
        if paths[-1] == "":
            paths.pop()
        if unmerged:  # one entry per conflict stage
            paths = list(dict.fromkeys(paths))
        self._tracked.put(paths)

    def take_untracked(self) -> GitListing:
        """Untracked files git does not ignore (waits for the walk); ``name/`` are repositories."""
        self._read_untracked()
        return self._untracked.take()

    def _read_untracked(self) -> None:
        if self._untracked.ready:
            return
        self._read_tracked()  # the digest covers both, in this order
        assert self._others is not None
        _, out, err = self._wait(self._others)
        self._others = None
        self._hash.update(b"\0\0")
        self._hash.update(out)
        paths = os.fsdecode(out).split("\0")
        del out
        if paths[-1] == "":
            paths.pop()
        repos = [p[:-1] for p in paths if p.endswith("/")]
        if repos:
            paths = [p for p in paths if not p.endswith("/")]
        self._untracked.put(GitListing(paths, repos, len(_UNREADABLE.findall(err))))

    def tracked_digest(self) -> bytes:
        """A hash of the tracked files' listing (waits for it): see :func:`tracked_digest`."""
        self._read_tracked()
        return self._tracked_digest

    def digest(self) -> bytes:
        """A hash of what both listings printed (waits for them): same digest, same listing."""
        self._read_untracked()
        return self._hash.digest()

    def take_listing(self) -> GitListing:
        """Tracked and untracked files together (both taken); may still hold files
        :meth:`missing` names."""
        untracked = self.take_untracked()
        paths = self.take_tracked()
        paths.extend(untracked.paths)
        return GitListing(paths, untracked.repos, untracked.unreadable)

    def start_missing(self) -> None:
        """Start looking for deleted tracked files (once the listing is done with the CPU)."""
        if self._deleted is None and self._missing is None:
            self._deleted = self._runner.start(self._root, ["ls-files", "-z", "--deleted"])

    def missing(self) -> frozenset[str]:
        """Listed tracked files that are not in the work tree (waits for the listing too)."""
        if self._missing is None:
            self._read_tracked()
            self.start_missing()
            assert self._deleted is not None
            out = self._wait(self._deleted)[1]
            self._deleted = None
            gone = {p for p in os.fsdecode(out).split("\0") if p}
            gone.update(p for p in self._skipped if not os.path.lexists(self._root / p))
            self._missing = frozenset(gone)
        return self._missing

    def cancel(self) -> None:
        """Kill whatever git runs are still going (their results are not wanted)."""
        for running in (self._cached, self._others, self._deleted):
            if running is not None:
                with contextlib.suppress(OSError):
                    running.kill()

    def _wait(self, running: Running) -> tuple[int, bytes, bytes]:
        try:
            return running.wait()
        except GitError:
            self.cancel()
            raise


def tracked_digest_of(listing: bytes) -> bytes:
    """The hash :func:`tracked_digest` and :meth:`ListingRun.tracked_digest` compare."""
    return hashlib.blake2b(listing, digest_size=16).digest()


def tracked_digest(runner: GitRunner, root: Path) -> bytes:
    """A hash of the tracked files as the index lists them now (one quick ``ls-files``).

    When git's index changes but this does not (a commit, or staging a file
    already tracked), the listing is the same: which files are untracked, or
    missing, follows from the tracked ones and the work tree, and the watcher
    reports the work tree.
    """
    return tracked_digest_of(runner.run(root, TRACKED_ARGS)[1])


def submodule_paths(root: Path) -> set[str]:
    """Paths named in ``.gitmodules`` (``path = ...`` lines), so gitlinks list as ``name/``."""
    loaded = read_text(root, Path(".gitmodules"))
    if isinstance(loaded, Unavailable):
        return set()
    found: set[str] = set()
    for line in loaded.text.split("\n"):
        key, sep, value = line.strip().partition("=")
        if sep and key.strip().lower() == "path":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value:
                found.add(value.strip("/"))
    return found


__all__ = [
    "AlreadyTaken",
    "GitListing",
    "Handover",
    "ListingRun",
    "submodule_paths",
    "tracked_digest",
]


TRACKED_IGNORED_ARGS = ("ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
"""The tracked files that git's ignore rules match (added with ``git add -f``, or ignored
after they were added): git still shows their changes."""


def tracked_ignored(runner: GitRunner, root: Path) -> list[str]:
    """Repo-relative paths of the tracked files that git's ignore rules match (one
    ``ls-files``; usually none)."""
    out = runner.run(root, TRACKED_IGNORED_ARGS)[1]
    return [os.fsdecode(path) for path in out.split(b"\0") if path]
