"""The file tree's git commands: the ``ls-files`` listing and git's excludes file.

Processes are started by the shared runner (:mod:`providers.gitexec`), which
applies the safety settings for a repository we do not trust; this module
only says what to run and how to read the answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from providers.core.sources import Unavailable, read_text
from providers.gitexec import GitError, GitRunner, Running

_UNREADABLE = re.compile(rb"could not open directory '")


@dataclass(frozen=True)
class GitListing:
    """Repo-relative files git shows, nested repositories, unreadable directories."""

    paths: list[str]
    repos: list[str]
    unreadable: int


_TAGS = ("\0H ", "\0? ", "\0M ")
"""``ls-files -t`` tags that keep the entry: cached, untracked, unmerged."""
_SKIPPED = re.compile(rb"(?:^|\0)S ([^\0]*)")


class ListingRun:
    """Tracked plus untracked-not-ignored files; tracked files missing from the work tree apart.

    Two processes at once: the listing (``-co``) and the tracked files that
    were deleted (``--deleted``: a ``stat`` per tracked file, as costly as the
    listing itself). The caller builds its model from :meth:`listing` while
    the second one runs, then takes :meth:`missing` out. ``-t`` marks entries
    outside a sparse checkout (``S``): those count as missing unless they
    exist. Submodules and nested repositories are single entries.
    """

    def __init__(self, runner: GitRunner, root: Path) -> None:
        self._root = root
        self._skipped: list[str] = []
        self._output: tuple[bytes, bytes] | None = None
        self._digest = b""
        self._missing: frozenset[str] | None = None
        self._deleted = runner.start(root, ["ls-files", "-z", "--deleted"])
        try:
            self._listing = runner.start(
                root, ["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard"]
            )
        except GitError:
            self._deleted.kill()
            raise

    def digest(self) -> bytes:
        """A hash of what ``-co`` printed (waits for it): same digest, same listing."""
        if self._output is None:
            try:
                _, out, err = self._listing.wait()
            except GitError:
                self.cancel()
                raise
            self._output = (out, err)
            self._digest = hashlib.blake2b(out, digest_size=16).digest()
            if out.startswith(b"S ") or b"\0S " in out:
                self._skipped = [os.fsdecode(p) for p in _SKIPPED.findall(out)]
        return self._digest

    def listing(self) -> GitListing:
        """What ``-co`` lists (waits for it); may still hold files :meth:`missing` names."""
        self.digest()
        assert self._output is not None
        out, err = self._output
        self._output = (b"", err)
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
        repos: list[str] = []
        if "/\0" in text:  # nested repositories (``--others`` lists them as ``name/``)
            repos = [p[:-1] for p in paths if p.endswith("/")]
            paths = [p for p in paths if not p.endswith("/")]
        return GitListing(paths, repos, len(_UNREADABLE.findall(err)))

    def missing(self) -> frozenset[str]:
        """Listed tracked files that are not in the work tree (waits for both processes)."""
        self.digest()
        if self._missing is None:
            _, out, _ = self._deleted.wait()
            gone = {p for p in os.fsdecode(out).split("\0") if p}
            gone.update(p for p in self._skipped if not os.path.lexists(self._root / p))
            self._missing = frozenset(gone)
        return self._missing

    def cancel(self) -> None:
        for running in (self._deleted, self._listing):
            with contextlib.suppress(OSError):
                running.kill()


def excludes_file(runner: GitRunner, cwd: Path) -> Path | None:
    """``core.excludesFile`` from git's config, ``~`` expanded; None when unset."""
    code, out, _ = runner.run(
        cwd, ["config", "--path", "--get", "core.excludesFile"], ok_codes=(0, 1)
    )
    value = os.fsdecode(out).rstrip("\n")
    if code != 0 or not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else cwd / path


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


def git_dir(root: Path) -> Path | None:
    """The repository directory of work tree ``root``: ``.git``, or where a ``.git`` file points."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        with dot_git.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    first = head.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else root / target


def common_dir(gitdir: Path) -> Path:
    """Where a linked worktree's shared files (``info/exclude``) live."""
    try:
        pointer = (gitdir / "commondir").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return gitdir
    target = Path(pointer)
    return target if target.is_absolute() else gitdir / target


__all__ = [
    "GitError",
    "GitListing",
    "GitRunner",
    "ListingRun",
    "Running",
    "common_dir",
    "excludes_file",
    "git_dir",
    "submodule_paths",
]
