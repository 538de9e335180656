"""Porcelain entries as the model reads them: categorised, described, counted by directory.

Pure. One :class:`~providers.git_status.porcelain.Entry` can be both staged
and unstaged (``MM``), so it may yield two :class:`Change` values. Paths are
shown as git shows them with ``core.quotepath=false``: as they are, unless a
control character, quote, backslash or undecodable byte forces a C-quoted form,
so a newline in a name can never break the section's line structure.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
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

    def line(self, size: str = "") -> str:
        """The entry's line; ``size`` (`` (+40 -3)``, `` (1,500 files)``) follows the path."""
        shown = display_path(self.path)
        if self.orig_path is not None:
            shown = f"{display_path(self.orig_path)} -> {shown}"
        if self.category is Category.UNTRACKED:
            return shown + size
        return f"{self.verb}{self.detail}: {shown}{size}"


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
"""Order of the counts in a directory's line."""
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


def directory_of(path: str) -> str:
    """The directory a path's line sits in (``""`` for the root, else ``src/auth/``).

    An untracked directory (``build/``) sits in its parent, like a file.
    """
    head, sep, _ = path.rstrip("/").rpartition("/")
    return head + "/" if sep else ""


def group_line(directory: str, verbs: Mapping[str, int]) -> str:
    """``src/auth/: 12 modified, 1 deleted`` (``./`` for the root), verbs in a fixed order."""
    ordered = sorted((v for v in verbs if verbs[v]), key=lambda v: (_RANK.get(v, len(_RANK)), v))
    summary = ", ".join(f"{verbs[verb]} {verb}" for verb in ordered)
    return f"{display_path(directory or './')}: {summary}"


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
