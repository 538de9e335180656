"""Path normalisation and confinement: the only copy of each rule.

Where the repository root is belongs to :mod:`providers.repository.layout`.

Confinement is decided on *resolved* paths, so a symlink that points out of
the repository is outside it, however innocent its own name looks.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

log = logging.getLogger(__name__)


def confine(root: Path, candidate: Path, *, allowed: Iterable[Path] = ()) -> Path | None:
    """``candidate`` fully resolved, if it lies inside ``root`` (or an allowed root).

    ``root`` must already be resolved. Returns ``None`` for anything outside,
    including symlinks whose target is outside.
    """
    try:
        resolved = (root / candidate).resolve()
    except (OSError, RuntimeError):  # RuntimeError: symlink loop on older Pythons
        return None
    for base in (root, *allowed):
        if resolved == base or resolved.is_relative_to(base):
            return resolved
    return None


def ancestors(path: str) -> list[str]:
    """Directories holding ``path`` (repo-relative POSIX), deepest first, without the root:
    ``a/b/c`` -> ``a/b``, ``a``. The one such walk (ignore rules, scoped docs, explain)."""
    found: list[str] = []
    end = path.rfind("/")
    while end > 0:
        found.append(path[:end])
        end = path.rfind("/", 0, end)
    return found


def repo_relative(root: Path, path: Path) -> str:
    """POSIX path of ``path`` relative to ``root`` (both resolved); "." for the root."""
    rel = path.relative_to(root)
    return PurePosixPath(*rel.parts).as_posix() if rel.parts else "."


@dataclass(frozen=True)
class TouchedPaths:
    """``files_touched`` split into repo-relative POSIX paths and rejected entries."""

    inside: tuple[str, ...]
    outside: tuple[str, ...]


def normalise_touched(
    root: Path,
    working_directory: Path,
    entries: Iterable[str],
    memo: dict[str, str | None] | None = None,
) -> TouchedPaths:
    """Normalise ``files_touched`` entries (absolute or relative to the working directory).

    Paths are normalised lexically (``..`` collapsed) and then, when they
    exist, through symlinks; files that do not exist yet still count (the
    agent is about to create them). Entries outside the root are returned
    separately and logged, never read. ``memo`` (entry -> repo-relative path, or
    None when outside), kept by a caller for one root and working directory,
    spares the kernel's growing list being resolved again every turn.
    """
    inside: dict[str, None] = {}  # ordered set: first occurrence wins
    outside: list[str] = []
    base, top = os.fspath(working_directory), os.fspath(root)
    under = top.rstrip("/") + "/"
    real_dirs: dict[str, str] = {}  # 100,000 paths in a few directories: each resolved once
    memo = {} if memo is None else memo
    for entry in entries:
        if entry in memo:
            rel = memo[entry]
        elif not entry or "\x00" in entry or _impossible(entry):
            outside.append(entry if len(entry) <= 80 else entry[:60] + "...")
            continue
        else:
            lexical = os.path.normpath(os.path.join(base, entry))  # an absolute entry stays
            real = _resolve_existing_prefix(lexical, real_dirs)
            rel = "" if real == top else real[len(under) :] if real.startswith(under) else None
            memo[entry] = rel
        if rel:
            inside.setdefault(rel)
        elif rel is None:
            outside.append(entry)
    if outside:
        log.warning("ignoring files_touched outside the repository: %s", ", ".join(outside))
    return TouchedPaths(tuple(inside), tuple(outside))


PATH_MAX = 4096
NAME_MAX = 255
"""Linux's limits: a longer path or name can neither exist nor be created."""


def _impossible(entry: str) -> bool:
    if len(entry) > PATH_MAX:
        return True
    return any(len(os.fsencode(part)) > NAME_MAX for part in entry.split("/"))


def _resolve_existing_prefix(path: str, real_dirs: dict[str, str]) -> str:
    """Resolve symlinks in the part of ``path`` (absolute, normalised) that exists; keep
    the rest as written. The directory is resolved once (``real_dirs`` remembers it),
    the name by one ``lstat``: only a symlink needs more."""
    directory, name = os.path.split(path)
    real_dir = real_dirs.get(directory)
    if real_dir is None:
        real_dir = real_dirs[directory] = _realpath(directory)
    joined = os.path.join(real_dir, name) if name else real_dir
    return _realpath(joined) if os.path.islink(joined) else joined


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, RuntimeError, ValueError):
        return path
