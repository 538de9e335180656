"""A repository's own git config, read as data: what it sets, and which files it pulls in.

git reads a repository's config (``config``, ``config.worktree``) and every
file it includes (``include.path``, ``includeIf.<condition>.path``) whenever
it runs there, and there is no switch to make it skip the includes of one
scope. So before git runs in a repository we read those files ourselves,
with git's own parser (``git config --file F --no-includes --list``, run
where it finds no repository, so nothing but ``F`` and the user's config is
read), and follow each include by hand: one that leads outside the
repository is refused (:class:`OutsideInclude`) before git could read it.
Conditions are not evaluated: an include is vetted whether or not it would
apply.

Only what matters to that vetting is kept (:data:`WATCHED_WORDS`): a file
that does not even contain one of those words is not given to git at all,
so a plain repository costs no process.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from providers.repository.sources import read_prefix

MAX_CONFIG_BYTES = 1024 * 1024
"""Bigger than any real config: a larger file (or ``/dev/zero``) is refused unread."""
MAX_INCLUDE_DEPTH = 10
"""git's own limit (it fails past it)."""

WATCHED_WORDS = (b"include", b"filter", b"worktree", b"excludesfile", b"attributesfile")
"""Every key we act on contains one of these in its section or name, which git's config
syntax spells out whole (letters, case ignored): a file without any of them sets none."""

ReadConfig = Callable[[Path], bytes]
"""Runs ``git config --file PATH --no-includes --list -z`` and returns its output."""

Entry = tuple[str, str | None]
"""A key as git prints it (section and name lowercased) and its value (None: no ``=``)."""


class OutsideInclude(Exception):
    """A repository config file includes (or is) a file outside the repository."""


@dataclass(frozen=True)
class RepoConfig:
    """Every entry of a repository's config files, includes followed, in git's order."""

    entries: tuple[Entry, ...]
    files: tuple[Path, ...]
    """The files read: their keys say whether anything changed."""

    def last(self, key: str) -> str | None:
        """The value git uses for a single-valued ``key`` (lowercase), None when unset."""
        for name, value in reversed(self.entries):
            if name == key:
                return value if value is not None else "true"
        return None


def parse_list(output: bytes) -> list[Entry]:
    """``git config --list -z`` output as entries (``key NL value NUL``, or ``key NUL``)."""
    entries: list[Entry] = []
    for record in os.fsdecode(output).split("\0"):
        if not record:
            continue
        key, newline, value = record.partition("\n")
        entries.append((key, value if newline else None))
    return entries


USER_SCOPES = ("system", "global")
USER_CONFIG_ARGS = ("config", "--show-scope", "--includes", "--list", "-z")
"""Every scope with its name; :func:`user_values` keeps the user's own."""


def user_values(output: bytes) -> dict[str, str]:
    """The user's own settings (system, then global) from ``USER_CONFIG_ARGS`` output:
    ``scope NUL key NL value NUL``; the last value of each key (``true`` without one)."""
    fields = os.fsdecode(output).split("\0")
    values: dict[str, str] = {}
    for scope, record in zip(fields[0::2], fields[1::2], strict=False):
        if scope in USER_SCOPES:
            key, newline, value = record.partition("\n")
            values[key] = value if newline else "true"
    return values


def read_repo_config(
    files: Sequence[Path], inside: Sequence[Path], read: ReadConfig, home: str | None
) -> RepoConfig:
    """The entries of ``files`` (those that exist), their includes followed; every file
    read must resolve inside one of ``inside`` (else :class:`OutsideInclude`)."""
    entries: list[Entry] = []
    read_files: list[Path] = []
    allowed = [Path(os.path.realpath(p)) for p in inside]
    for path in files:
        if os.path.lexists(path):
            entries.extend(_read(path, allowed, read, home, read_files, 0))
    return RepoConfig(tuple(entries), tuple(read_files))


def _read(
    path: Path,
    allowed: list[Path],
    read: ReadConfig,
    home: str | None,
    read_files: list[Path],
    depth: int,
    via: str = "",
) -> Iterator[Entry]:
    """``path``'s entries, its includes followed; ``via`` says how it was reached."""
    if depth > MAX_INCLUDE_DEPTH:
        raise OutsideInclude(f"{path}: includes nested deeper than {MAX_INCLUDE_DEPTH}")
    real = Path(os.path.realpath(path))
    if not any(real == root or root in real.parents for root in allowed):
        raise OutsideInclude(f"{via or path} is outside the repository")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return  # git skips a missing include
    except OSError as exc:
        raise OutsideInclude(f"{path} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_CONFIG_BYTES:
        raise OutsideInclude(f"{path} is not a regular file of at most 1 MiB")
    read_files.append(real)
    raw = read_prefix(real, MAX_CONFIG_BYTES + 1)
    if raw is None or len(raw) > MAX_CONFIG_BYTES:
        raise OutsideInclude(f"{path} is not a regular file of at most 1 MiB")
    lowered = raw.lower()
    if not any(word in lowered for word in WATCHED_WORDS):
        return
    for key, value in parse_list(read(real)):
        if not any(word.decode() in key for word in WATCHED_WORDS):
            continue
        yield key, value
        if value and _is_include(key):
            target = _include_target(value, path.parent, home)
            via = f"{target} (the {key} of {path})"
            yield from _read(target, allowed, read, home, read_files, depth + 1, via)


def _is_include(key: str) -> bool:
    return key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))


def _include_target(value: str, directory: Path, home: str | None) -> Path:
    """An include path as git resolves it: ``~`` is the home directory, relative paths are
    relative to the directory of the including file as named (``..`` then climbs out of
    where that directory really is, as the kernel resolves it for git)."""
    if value == "~" or value.startswith("~/"):
        if home is None:
            raise OutsideInclude(f"include {value!r}: no home directory to expand")
        value = home + value[1:]
    elif value.startswith("~"):
        raise OutsideInclude(f"include {value!r} names another user's home directory")
    path = Path(value)
    return path if path.is_absolute() else directory / path


__all__ = [
    "MAX_CONFIG_BYTES",
    "USER_CONFIG_ARGS",
    "WATCHED_WORDS",
    "Entry",
    "OutsideInclude",
    "ReadConfig",
    "RepoConfig",
    "parse_list",
    "read_repo_config",
    "user_values",
]
