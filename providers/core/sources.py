"""Safe reads of repository files: confined, size-capped, text only.

A file that cannot be used becomes an :class:`Unavailable` value naming the
path and the reason (``source_unavailable`` in the spec's words) instead of an
exception, so one bad file never fails a turn.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from providers.core.paths import confine, repo_relative

DEFAULT_MAX_BYTES = 1024 * 1024
"""Convention and rule files are small; anything larger is refused unread."""

_BINARY_SNIFF = 8192


@dataclass(frozen=True)
class FileKey:
    """What identifies a file's version cheaply: device, inode, size, mtime."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileKey:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


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


def stat_key(root: Path, path: Path, *, allowed: tuple[Path, ...] = ()) -> FileKey | None:
    """The :class:`FileKey` of a confined regular file, or ``None`` (cheap change check)."""
    resolved = confine(root, path, allowed=allowed)
    if resolved is None:
        return None
    try:
        st = resolved.stat()
    except OSError:
        return None
    return FileKey.of(st) if stat.S_ISREG(st.st_mode) else None


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
