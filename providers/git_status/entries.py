"""Porcelain entries as the model reads them: categorised, described, grouped by directory.

Pure. One :class:`~providers.git_status.porcelain.Entry` can be both staged
and unstaged (``MM``), so it may yield two :class:`Change` values. Paths are
shown as git shows them with ``core.quotepath=false``: as they are, unless a
control character, quote, backslash or undecodable byte forces a C-quoted form,
so a newline in a name can never break the section's line structure.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

from providers.git_status.porcelain import EntryKind, Status


class Category(enum.Enum):
    """The entry lists, in priority order."""

    CONFLICTED = "conflicted"
    STAGED = "staged"
    UNSTAGED = "unstaged"
    UNTRACKED = "untracked"


class Change(NamedTuple):
    """One line's worth: what happened (``verb``, plus ``detail``) to which path, in which list.

    A NamedTuple, not a dataclass: repositories with 100k changes exist, and
    this is built once per change on every recompute.
    """

    category: Category
    verb: str
    path: str
    orig_path: str | None = None
    detail: str = ""

    def line(self) -> str:
        shown = display_path(self.path)
        if self.orig_path is not None:
            shown = f"{display_path(self.orig_path)} -> {shown}"
        if self.category is Category.UNTRACKED:
            return shown
        return f"{self.verb}{self.detail}: {shown}"


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
_RANK = {verb: i for i, verb in enumerate(VERB_ORDER)}


def categorise(status: Status) -> dict[Category, tuple[Change, ...]]:
    """Every category (possibly empty), each sorted by path for byte-stable output.

    One flat loop (no per-entry generator or enum-keyed lookups): it runs
    over every change on every recompute.
    """
    conflicted: list[Change] = []
    staged: list[Change] = []
    unstaged: list[Change] = []
    untracked: list[Change] = []
    for entry in status.entries:
        kind = entry.kind
        if kind is EntryKind.UNTRACKED:
            untracked.append(Change(Category.UNTRACKED, "untracked", entry.path))
        elif kind is EntryKind.IGNORED:
            continue  # never requested; tolerated so a user's config cannot break us
        elif kind is EntryKind.UNMERGED:
            verb = _UNMERGED.get(entry.index + entry.worktree, "unmerged")
            conflicted.append(Change(Category.CONFLICTED, verb, entry.path))
        else:
            submodule = entry.submodule != "N..."
            if entry.index != ".":
                verb = _VERBS.get(entry.index, "changed")
                detail = " (submodule)" if submodule else ""
                staged.append(Change(Category.STAGED, verb, entry.path, entry.orig_path, detail))
            if entry.worktree != ".":
                verb = _VERBS.get(entry.worktree, "changed")
                detail = _submodule_detail(entry.submodule) if submodule else ""
                unstaged.append(Change(Category.UNSTAGED, verb, entry.path, None, detail))
    by_path = attrgetter("path")  # a path appears at most once per category
    return {
        Category.CONFLICTED: tuple(sorted(conflicted, key=by_path)),
        Category.STAGED: tuple(sorted(staged, key=by_path)),
        Category.UNSTAGED: tuple(sorted(unstaged, key=by_path)),
        Category.UNTRACKED: tuple(sorted(untracked, key=by_path)),
    }


def _submodule_detail(sub: str) -> str:
    labels = ("new commits", "modified content", "untracked content")
    parts = [label for flag, label in zip(sub[1:4], labels, strict=False) if flag != "."]
    return f" (submodule: {', '.join(parts)})" if parts else " (submodule)"


def directory_of(path: str, depth: int | None) -> str:
    """The directory a path is grouped under (``./`` for the root), cut to ``depth`` parts.

    An untracked directory (``build/``) counts under its parent, like a file.
    """
    path = path.rstrip("/")
    if depth == 1:
        head, sep, _ = path.partition("/")
    else:
        head, sep, _ = path.rpartition("/")
        if depth is not None and sep:
            head = "/".join(head.split("/")[:depth])
    return head + "/" if sep else "./"


Tally = dict[tuple[str, str], int]
"""``(directory, verb) -> count`` at full depth; coarser groupings are derived from it."""


def tally(changes: Sequence[Change]) -> Tally:
    """One pass over the changes: how many of each verb per directory."""
    counts: Tally = {}
    for change in changes:
        key = (directory_of(change.path, None), change.verb)
        counts[key] = counts.get(key, 0) + 1
    return counts


def directories(counts: Tally, depth: int | None) -> set[str]:
    """The groups a :func:`tally` makes at ``depth`` (how many lines it would take)."""
    return {_coarser(directory, depth) for directory, _ in counts}


def _coarser(directory: str, depth: int | None) -> str:
    if depth is None or directory == "./":
        return directory
    return directory_of(directory + "x", depth)


def group_lines(counts: Tally, depth: int | None) -> tuple[str, ...]:
    """``src/auth/: 12 modified, 1 deleted`` lines, sorted by directory, from a :func:`tally`."""
    groups: dict[str, dict[str, int]] = {}
    for (directory, verb), count in counts.items():
        verbs = groups.setdefault(_coarser(directory, depth), {})
        verbs[verb] = verbs.get(verb, 0) + count
    lines = []
    for directory in sorted(groups):
        verbs = groups[directory]
        ordered = sorted(verbs, key=lambda v: (_RANK.get(v, len(_RANK)), v))
        summary = ", ".join(f"{verbs[verb]} {verb}" for verb in ordered)
        lines.append(f"{display_path(directory)}: {summary}")
    return tuple(lines)


_ESCAPES = {"\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r"}


def display_path(path: str) -> str:
    """``path`` as text that is valid UTF-8 and one line; C-quoted only when it must be."""
    if _plain(path):
        return path  # the common case, without the per-character walk
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


def _plain(path: str) -> bool:
    """Shown as is: printable (no controls, no undecodable bytes), nothing to escape."""
    return (
        path.isprintable()
        and '"' not in path
        and "\\" not in path
        and " -> " not in path
        and path == path.strip(" ")
    )
