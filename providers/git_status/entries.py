"""Porcelain entries as the model reads them: categorised, described, grouped by directory.

Pure. One :class:`~providers.git_status.porcelain.Entry` can be both staged
and unstaged (``MM``), so it may yield two :class:`Change` values. Paths are
shown as git shows them with ``core.quotepath=false``: as they are, unless a
control character, quote, backslash or undecodable byte forces a C-quoted form,
so a newline in a name can never break the section's line structure.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from providers.git_status.porcelain import Entry, EntryKind, Status


class Category(enum.Enum):
    """The entry lists, in priority order."""

    CONFLICTED = "conflicted"
    STAGED = "staged"
    UNSTAGED = "unstaged"
    UNTRACKED = "untracked"


@dataclass(frozen=True)
class Change:
    """One line's worth: what happened (``verb``) to which path, in which list."""

    category: Category
    verb: str
    path: str
    orig_path: str | None = None

    def line(self) -> str:
        shown = display_path(self.path)
        if self.orig_path is not None:
            shown = f"{display_path(self.orig_path)} -> {shown}"
        if self.category is Category.UNTRACKED:
            return shown
        return f"{self.verb}: {shown}"


_VERBS = {
    "M": "modified",
    "T": "type changed",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
}
_UNMERGED = {
    "DD": "both deleted",
    "AU": "added by us",
    "UD": "deleted by them",
    "UA": "added by them",
    "DU": "deleted by us",
    "AA": "both added",
    "UU": "both modified",
}
VERB_ORDER = (
    *_UNMERGED.values(),
    "renamed",
    "copied",
    "added",
    "modified",
    "type changed",
    "deleted",
    "untracked",
)
"""Order of the counts in a directory group's line."""


def categorise(status: Status) -> dict[Category, tuple[Change, ...]]:
    """Every category (possibly empty), each sorted by path for byte-stable output."""
    found: dict[Category, list[Change]] = {category: [] for category in Category}
    for entry in status.entries:
        for change in _changes(entry):
            found[change.category].append(change)
    return {
        category: tuple(sorted(changes, key=lambda c: (c.path, c.orig_path or "")))
        for category, changes in found.items()
    }


def _changes(entry: Entry) -> Iterable[Change]:
    if entry.kind is EntryKind.UNTRACKED:
        yield Change(Category.UNTRACKED, "untracked", entry.path)
        return
    if entry.kind is EntryKind.IGNORED:
        return  # never requested; tolerated so a user's config cannot break us
    if entry.kind is EntryKind.UNMERGED:
        verb = _UNMERGED.get(entry.index + entry.worktree, "unmerged")
        yield Change(Category.CONFLICTED, verb, entry.path)
        return
    submodule = entry.submodule.startswith("S")
    if entry.index != ".":
        verb = _VERBS.get(entry.index, "changed")
        if submodule:
            verb += " (submodule)"
        yield Change(Category.STAGED, verb, entry.path, entry.orig_path)
    if entry.worktree != ".":
        verb = _VERBS.get(entry.worktree, "changed")
        if submodule:
            verb += _submodule_detail(entry.submodule)
        yield Change(Category.UNSTAGED, verb, entry.path)


def _submodule_detail(sub: str) -> str:
    labels = ("new commits", "modified content", "untracked content")
    parts = [label for flag, label in zip(sub[1:4], labels, strict=False) if flag != "."]
    return f" (submodule: {', '.join(parts)})" if parts else " (submodule)"


def directory_of(path: str, depth: int | None) -> str:
    """The directory a path is grouped under (``./`` for the root), cut to ``depth`` parts.

    An untracked directory (``build/``) counts under its parent, like a file.
    """
    parts = path.rstrip("/").split("/")[:-1]
    if depth is not None:
        parts = parts[:depth]
    return "/".join(parts) + "/" if parts else "./"


def group_lines(changes: Sequence[Change], depth: int | None) -> tuple[str, ...]:
    """``src/auth/: 12 modified, 1 deleted`` lines, sorted by directory."""
    groups: dict[str, dict[str, int]] = {}
    for change in changes:
        verb = change.verb.split(" (", 1)[0]
        counts = groups.setdefault(directory_of(change.path, depth), {})
        counts[verb] = counts.get(verb, 0) + 1
    rank = {verb: i for i, verb in enumerate(VERB_ORDER)}
    lines = []
    for directory in sorted(groups):
        counts = groups[directory]
        ordered = sorted(counts, key=lambda v: (rank.get(v, len(rank)), v))
        summary = ", ".join(f"{counts[verb]} {verb}" for verb in ordered)
        lines.append(f"{display_path(directory)}: {summary}")
    return tuple(lines)


_ESCAPES = {"\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r"}


def display_path(path: str) -> str:
    """``path`` as text that is valid UTF-8 and one line; C-quoted only when it must be."""
    out: list[str] = []
    quoted = path != path.strip(" ") or " -> " in path
    for char in path:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by surrogateescape
            out.append(f"\\{code - 0xDC00:03o}")
            quoted = True
        elif char in ('"', "\\"):
            out.append("\\" + char)
            quoted = True
        elif code < 0x20 or code == 0x7F:
            out.append("\\" + _ESCAPES.get(char, f"{code:03o}"))
            quoted = True
        else:
            out.append(char)
    text = "".join(out)
    return f'"{text}"' if quoted else text
