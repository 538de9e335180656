"""Safe reads of repository files: confined, size-capped, text only.

A file that cannot be used becomes an :class:`Unavailable` value naming the
path and the reason (``source_unavailable`` in the spec's words) instead of an
exception, so one bad file never fails a turn.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from providers.repository.paths import confine, repo_relative

DEFAULT_MAX_BYTES = 1024 * 1024
"""Convention and rule files are small; anything larger is refused unread."""

_BINARY_SNIFF = 8192


class FileKey(NamedTuple):
    """What identifies a file's version cheaply: device, inode, size, mtime, mode.

    The one answer to "has this file changed?" for every provider: equal keys
    mean the same version (a write changes size or mtime, a replacement the
    inode, a ``chmod`` or a file turned directory the mode). A named tuple, not a
    frozen dataclass: warm turns make one per file they check (60 a turn for repo
    conventions), and a frozen dataclass costs about three times as much to make.
    """

    device: int
    inode: int
    size: int
    mtime_ns: int
    mode: int = 0

    @classmethod
    def of(cls, st: os.stat_result) -> FileKey:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


def file_key(path: str | os.PathLike[str], *, follow: bool = True) -> FileKey | None:
    """The :class:`FileKey` of ``path`` now, or ``None`` when it cannot be stat'ed.

    No confinement and no type check: for paths the caller already trusts
    (git's own files, files it listed); :func:`stat_key` is the confined form.
    """
    try:
        return FileKey.of(os.stat(path, follow_symlinks=follow))
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return None


def file_keys(paths: Iterable[str | os.PathLike[str]]) -> tuple[FileKey | None, ...]:
    """:func:`file_key` of each path: compare two results to see whether any changed."""
    return tuple(file_key(path) for path in paths)


@dataclass(frozen=True)
class SourceText:
    """A file's decoded text (BOM removed), with its repo-relative path and key."""

    path: str
    absolute: Path
    text: str
    key: FileKey


@dataclass(frozen=True)
class Unavailable:
    """Why a file could not be used; ``path`` as the user would write it."""

    path: str
    reason: str

    def describe(self) -> str:
        return f"{self.path}: {self.reason}"


def read_prefix(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """Up to ``limit`` bytes of a regular file; ``None`` for anything else or on error.

    Opened non-blocking and checked with ``fstat`` before reading, so a FIFO
    or device where a small file (``.git``, ``commondir``, ``HEAD``) was
    expected never blocks a turn.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def stat_key(root: Path, path: Path, *, allowed: tuple[Path, ...] = ()) -> FileKey | None:
    """The :class:`FileKey` of a confined regular file, or ``None`` (cheap change check)."""
    resolved = confine(root, path, allowed=allowed)
    if resolved is None:
        return None
    key = file_key(resolved)
    return key if key is not None and stat.S_ISREG(key.mode) else None


def read_text(
    root: Path,
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allowed: tuple[Path, ...] = (),
    display: str | None = None,
) -> SourceText | Unavailable:
    """Read ``path`` (relative to ``root`` or absolute) as UTF-8 text, safely.

    Refuses, with a reason: paths that resolve outside ``root`` (and the
    ``allowed`` roots), non-regular files, files over ``max_bytes`` (never
    loaded), binary content (a NUL byte), invalid UTF-8, and OS errors.
    """
    shown = display or _display(root, path)
    resolved = confine(root, path, allowed=allowed)
    if resolved is None:
        return Unavailable(shown, "resolves outside the repository")
    try:
        fd = os.open(resolved, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except FileNotFoundError:
        return Unavailable(shown, "does not exist")
    except PermissionError:
        return Unavailable(shown, "permission denied")
    except OSError as exc:
        return Unavailable(shown, exc.strerror or str(exc))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Unavailable(shown, "not a regular file")
        if st.st_size > max_bytes:
            return Unavailable(shown, f"too large ({st.st_size} bytes; limit {max_bytes})")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        return Unavailable(shown, exc.strerror or str(exc))
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        return Unavailable(shown, f"too large (over {max_bytes} bytes)")
    if b"\x00" in data[:_BINARY_SNIFF]:
        return Unavailable(shown, "binary content")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Unavailable(shown, f"not valid UTF-8 (byte {exc.start})")
    return SourceText(shown, resolved, text.removeprefix("\ufeff"), FileKey.of(st))


def _display(root: Path, path: Path) -> str:
    absolute = path if path.is_absolute() else root / path
    try:
        return repo_relative(root, Path(os.path.normpath(absolute)))
    except ValueError:
        return str(path)
