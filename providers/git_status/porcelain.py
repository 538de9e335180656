"""Parser for ``git status --porcelain=v2 --branch --show-stash -z``.

Pure: bytes in, frozen values out. ``-z`` is what makes paths with spaces,
newlines or quotes unambiguous: every record ends in NUL, paths are never
quoted, and a rename's original path is the next NUL-terminated field. Paths
are decoded with ``surrogateescape`` so non-UTF-8 names survive the round trip;
display code decides how to show them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class PorcelainError(ValueError):
    """Output we do not understand: a newer git or a bug, never a user problem."""


class EntryKind(enum.Enum):
    """The record type (``1``, ``2``, ``u``, ``?``, ``!``); renames and copies split."""

    ORDINARY = "ordinary"
    RENAMED = "renamed"
    COPIED = "copied"
    UNMERGED = "unmerged"
    UNTRACKED = "untracked"
    IGNORED = "ignored"


@dataclass(frozen=True, slots=True)
class Entry:
    """One changed path.

    ``index``/``worktree`` are the X and Y status letters (``.`` for
    unchanged; ``?``/``!`` for untracked/ignored). ``submodule`` is git's
    ``<sub>`` field (``N...`` for a plain file, ``S<c><m><u>`` for a submodule).
    ``orig_path`` and ``score`` are set for renames and copies only.
    """

    kind: EntryKind
    path: str
    index: str = "."
    worktree: str = "."
    submodule: str = "N..."
    orig_path: str | None = None
    score: int | None = None


@dataclass(frozen=True)
class Branch:
    """The ``# branch.*`` headers. ``oid`` None: unborn; ``head`` None: detached.

    ``ahead``/``behind`` are None when there is no upstream or it is gone.
    """

    oid: str | None = None
    head: str | None = None
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None


@dataclass(frozen=True)
class Status:
    """Everything one porcelain run says, entries in git's order."""

    branch: Branch
    stash: int
    entries: tuple[Entry, ...]


_FIELDS = {"2": 10, "u": 11}
"""Space-separated fields per record type; the last one is the path (may hold spaces)."""


def parse(output: bytes) -> Status:
    """Parse one run's NUL-separated records; raise :class:`PorcelainError` on garbage."""
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    if fields and fields[-1] == "":
        fields.pop()
    branch = Branch()
    stash = 0
    entries: list[Entry] = []
    ordinary = EntryKind.ORDINARY
    i = 0
    while i < len(fields):
        record = fields[i]
        i += 1
        kind = record[:2]
        if kind == "1 ":  # the common case, inline: 100k-entry repositories exist
            parts = record.split(" ", 8)
            if len(parts) != 9 or len(parts[1]) != 2 or not parts[8]:
                raise PorcelainError(f"bad ordinary record: {record!r}")
            xy = parts[1]
            entries.append(Entry(ordinary, parts[8], xy[0], xy[1], parts[2]))
        elif kind == "# ":
            branch, stash = _header(record[2:], branch, stash)
        elif kind == "2 ":
            if i >= len(fields):
                raise PorcelainError(f"rename record without its original path: {record!r}")
            entries.append(_renamed(record, fields[i]))
            i += 1
        elif kind == "u ":
            entries.append(_unmerged(record))
        elif kind in ("? ", "! ") and len(record) > 2:
            kind_ = EntryKind.UNTRACKED if record[0] == "?" else EntryKind.IGNORED
            entries.append(Entry(kind_, record[2:], record[0], record[0]))
        else:
            raise PorcelainError(f"unknown porcelain v2 record: {record!r}")
    return Status(branch, stash, tuple(entries))


def _header(text: str, branch: Branch, stash: int) -> tuple[Branch, int]:
    """Apply one ``# name value`` header; unknown headers are skipped (git may add more)."""
    name, _, value = text.partition(" ")
    if name == "branch.oid":
        return replace(branch, oid=None if value == "(initial)" else value), stash
    if name == "branch.head":
        return replace(branch, head=None if value == "(detached)" else value), stash
    if name == "branch.upstream":
        return replace(branch, upstream=value), stash
    if name == "branch.ab":
        ahead, _, behind = value.partition(" ")
        if not (ahead.startswith("+") and behind.startswith("-")):
            raise PorcelainError(f"bad branch.ab header: {value!r}")
        return replace(branch, ahead=_int(ahead[1:]), behind=_int(behind[1:])), stash
    if name == "stash":
        return branch, _int(value)
    return branch, stash


def _unmerged(record: str) -> Entry:
    """``u`` records: only XY, sub and path matter to us."""
    parts = _split(record)
    xy = _xy(parts[1])
    return Entry(EntryKind.UNMERGED, parts[-1], xy[0], xy[1], parts[2])


def _renamed(record: str, orig_path: str) -> Entry:
    parts = _split(record)
    xy = _xy(parts[1])
    score_field = parts[8]
    if len(score_field) < 2 or score_field[0] not in "RC":
        raise PorcelainError(f"bad rename score field: {score_field!r}")
    kind = EntryKind.RENAMED if score_field[0] == "R" else EntryKind.COPIED
    return Entry(kind, parts[9], xy[0], xy[1], parts[2], orig_path, _int(score_field[1:]))


def _split(record: str) -> list[str]:
    count = _FIELDS[record[0]]
    parts = record.split(" ", count - 1)
    if len(parts) != count or not parts[-1]:
        raise PorcelainError(f"expected {count} fields: {record!r}")
    return parts


def _xy(field: str) -> str:
    if len(field) != 2:
        raise PorcelainError(f"bad XY field: {field!r}")
    return field


def _int(text: str) -> int:
    if not text.isdigit():
        raise PorcelainError(f"expected a number, got {text!r}")
    return int(text)
