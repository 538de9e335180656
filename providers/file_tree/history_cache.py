"""The mined history kept between sessions, so that a session's first answer ranks with it.

Where: ``$XDG_CACHE_HOME/context-providers/file-tree-history/`` (``~/.cache`` when
``XDG_CACHE_HOME`` is unset, empty or relative, as the XDG spec says), one file per
repository and HEAD, ``<key>-<head>.hist``, where ``key`` is a hash of the root's real
path (:mod:`history_file` is what is in it). Which commit a file holds is in its name, so
the miner finds a file for an ancestor of HEAD among the repository's files and extends
it with the new commits only; whether that commit is in the repository, and an ancestor
of HEAD, git says (a repository cloned anew at the same path does not have it).

Bounded: :data:`MAX_PER_REPOSITORY` files and :data:`MAX_REPOSITORY_BYTES` per
repository, :data:`MAX_TOTAL_BYTES` in all; the least recently used go first (a read
touches a file). Safe to delete, and safe against whatever else is there:

- a missing, cut short, damaged or foreign file is ignored, and replaced the next time
  the history is mined;
- written to a temporary file and renamed into place: a reader sees a whole file or none;
- every name is opened relative to our directory, itself opened without following a
  symlink, and files with ``O_NOFOLLOW``: a symlink planted there is never followed (a
  write replaces it), and only regular files owned by the user are read;
- directories 0700, files 0600: only the user can read them;
- never inside the repository: a cache directory under the root (a repository in the home
  directory, with ``~/.cache`` in it) is not used for that root.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from providers.file_tree.history import History
from providers.file_tree.history_file import decode, encode

log = logging.getLogger(__name__)

CACHE_HOME_ENV = "XDG_CACHE_HOME"
HOME_ENV = "HOME"
PLACE = ("context-providers", "file-tree-history")
"""Our directories under the cache home."""

MAX_PER_REPOSITORY = 3
"""HEADs kept per repository (the branches one works on)."""
MAX_REPOSITORY_BYTES = 24 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 16 * 1024 * 1024
"""A history bigger than this, compressed, is not kept (it is mined again next session)."""
STALE_TEMP_S = 600.0
"""A temporary file this old was left by a process that died while writing: removed."""

_NAME = re.compile(r"^([0-9a-f]{16})-([0-9a-f]{40}|[0-9a-f]{64})\.hist$")
_TEMP = re.compile(r"^\.tmp-[0-9a-f]{16}-[0-9]+-[0-9a-f]{8}$")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def cache_home(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CACHE_HOME``, else ``$HOME/.cache``; None when neither is an absolute path."""
    xdg = environ.get(CACHE_HOME_ENV, "")
    if os.path.isabs(xdg):
        return Path(xdg)
    home = environ.get(HOME_ENV, "")
    return Path(home) / ".cache" if os.path.isabs(home) else None


class HistoryCache:
    """Histories by repository root and HEAD under ``home`` (:func:`cache_home`; None:
    nothing is kept); the bounds are the module's unless given."""

    def __init__(
        self,
        home: Path | None,
        *,
        per_repository: int = MAX_PER_REPOSITORY,
        repository_bytes: int = MAX_REPOSITORY_BYTES,
        total_bytes: int = MAX_TOTAL_BYTES,
    ) -> None:
        self.home = home
        self.directory = home.joinpath(*PLACE) if home is not None else None
        self._per_repository = per_repository
        self._repository_bytes = repository_bytes
        self._total_bytes = total_bytes

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> HistoryCache:
        return cls(cache_home(environ))

    def load(self, root: Path, head: str) -> History | None:
        """The history kept for ``root`` at ``head``; None when there is none to trust."""
        with self._opened(root, create=False) as fd:
            if fd is None:
                return None
            try:
                data = _read(fd, _file_name(root, head))
            except (OSError, ValueError):
                return None  # missing, or not a regular file of ours
            return decode(data, str(_real(root)), head) if data is not None else None
        return None

    def heads(self, root: Path) -> list[str]:
        """The HEADs kept for ``root``, the most recently used first."""
        with self._opened(root, create=False) as fd:
            if fd is None:
                return []
            key = _key(root)
            found = [
                (_mtime_ns(entry), match.group(2))
                for entry in _entries(fd)
                if (match := _NAME.match(entry.name))
                and match.group(1) == key
                and entry.is_file(follow_symlinks=False)
            ]
            return [head for _, head in sorted(found, reverse=True)]
        return []

    def store(self, root: Path, head: str, history: History) -> None:
        """Keep ``history`` for ``root`` at ``head``, then evict beyond the bounds."""
        if self.home is None:
            return
        data = encode(str(_real(root)), head, history)
        if len(data) > MAX_FILE_BYTES:
            log.debug("history of %s not kept: %d bytes", root, len(data))
            return
        with self._opened(root, create=True) as fd:
            if fd is None:
                return
            temp = f".tmp-{_key(root)}-{os.getpid()}-{os.urandom(4).hex()}"
            try:
                with os.fdopen(os.open(temp, _WRITE_FLAGS, 0o600, dir_fd=fd), "wb") as out:
                    out.write(data)
                os.rename(temp, _file_name(root, head), src_dir_fd=fd, dst_dir_fd=fd)
            except (OSError, ValueError) as exc:
                log.debug("cannot keep the history of %s: %s", root, exc)
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=fd)
                return
            self._evict(fd)

    @contextlib.contextmanager
    def _opened(self, root: Path, *, create: bool) -> Iterator[int | None]:
        """Our directory, opened without following symlinks; None when it cannot be used."""
        fd = self._open_directory(root, create)
        try:
            yield fd
        finally:
            if fd is not None:
                os.close(fd)

    def _open_directory(self, root: Path, create: bool) -> int | None:
        if self.home is None or self.directory is None:
            return None
        home, real_root = _real(self.home), _real(root)
        directory = home.joinpath(*PLACE)
        if directory == real_root or real_root in directory.parents:
            return None  # inside the repository: never
        try:
            if create:
                os.makedirs(home, mode=0o700, exist_ok=True)
            fd = os.open(home, _DIR_FLAGS)  # the cache home itself may be a link: the user's
        except OSError:
            return None
        for name in PLACE:
            try:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o700, dir_fd=fd)
                child = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:  # missing, or a symlink (ELOOP) or a file planted there
                os.close(fd)
                return None
            os.close(fd)
            fd = child
            info = os.fstat(fd)
            if info.st_uid != os.geteuid():
                os.close(fd)
                return None
            if info.st_mode & 0o077:
                with contextlib.suppress(OSError):
                    os.fchmod(fd, 0o700)
        return fd

    def _evict(self, fd: int) -> None:
        """Remove files beyond the bounds, least recently used first, and stale temporary
        files and symlinks by our names."""
        now = time.time()
        kept: list[tuple[int, int, str, str]] = []  # (mtime_ns, size, key, name)
        for entry in _entries(fd):
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            match = _NAME.match(entry.name)
            stale = _TEMP.match(entry.name) and now - info.st_mtime > STALE_TEMP_S
            if stale or (match and not stat.S_ISREG(info.st_mode)):
                _remove(fd, entry.name)  # unlinked, never followed
            elif match:
                kept.append((info.st_mtime_ns, info.st_size, match.group(1), entry.name))
        kept.sort(reverse=True)
        per_repository: dict[str, tuple[int, int]] = {}
        total = 0
        for _, size, key, name in kept:
            files, used = per_repository.get(key, (0, 0))
            over = files >= self._per_repository or used + size > self._repository_bytes
            if over or total + size > self._total_bytes:
                _remove(fd, name)
            else:
                per_repository[key] = (files + 1, used + size)
                total += size


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _key(root: Path) -> str:
    return hashlib.sha256(os.fsencode(_real(root))).hexdigest()[:16]


def _file_name(root: Path, head: str) -> str:
    name = f"{_key(root)}-{head}.hist"
    if not _NAME.match(name):
        raise ValueError(f"not a commit id: {head!r}")
    return name


def _entries(fd: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(fd) as entries:
            return list(entries)
    except OSError:
        return []


def _mtime_ns(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat(follow_symlinks=False).st_mtime_ns
    except OSError:
        return 0  # gone meanwhile: last


def _read(fd: int, name: str) -> bytes | None:
    """A regular file of ours, whole (``O_NOFOLLOW``: a symlink is refused, not followed)."""
    with os.fdopen(os.open(name, _READ_FLAGS, dir_fd=fd), "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            return None
        if info.st_size > MAX_FILE_BYTES:
            return None
        with contextlib.suppress(OSError):
            os.utime(file.fileno())  # recently used: evicted last
        return file.read(MAX_FILE_BYTES + 1)


def _remove(fd: int, name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=fd)
