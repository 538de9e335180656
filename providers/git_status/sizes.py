"""How big each change is, as its line says it: line counts (`` (+40 -3)``) and an untracked
folder's files (`` (1,500 files)``). Pure: the values, and their text.

Gathered by :mod:`providers.git_status.numstat` and :mod:`providers.git_status.folders`
after ``git status``; any of them may be missing (a binary file, a file too large to
diff, a failed run), and then its line simply says nothing about size.
"""

from __future__ import annotations

from dataclasses import dataclass

from providers.git_status.entries import Category

FOLDER_CAP = 5_000
"""Files counted per untracked folder; past it the line says ``5,000+``."""


@dataclass(frozen=True)
class Sizes:
    """Line counts per changed file (index and work tree apart) and untracked folders' files.

    Tuples, sorted by path, so equal repository states give equal snapshots.
    """

    staged: tuple[tuple[str, int, int], ...] = ()
    """``(path, added, deleted)`` between HEAD and the index."""
    unstaged: tuple[tuple[str, int, int], ...] = ()
    """``(path, added, deleted)`` between the index and the work tree."""
    folders: tuple[tuple[str, int], ...] = ()
    """``(folder/, files)``; more than :data:`FOLDER_CAP` files means "at least that many"."""


def line_count_texts(sizes: Sizes) -> dict[Category, dict[str, str]]:
    """Each list's line counts as the text after a path; files with nothing to count have none."""
    found: dict[Category, dict[str, str]] = {}
    for category, counts in ((Category.STAGED, sizes.staged), (Category.UNSTAGED, sizes.unstaged)):
        texts = {path: lines_text(added, deleted) for path, added, deleted in counts}
        found[category] = {path: text for path, text in texts.items() if text}
    return found


def folder_texts(sizes: Sizes) -> dict[Category, dict[str, str]]:
    """The untracked folders' file counts as the text after their paths."""
    return {Category.UNTRACKED: {folder: files_text(count) for folder, count in sizes.folders}}


def lines_text(added: int, deleted: int) -> str:
    """`` (+40 -3)``; a zero side is left out, and both zero say nothing."""
    parts = [f"+{added}"] if added else []
    if deleted:
        parts.append(f"-{deleted}")
    return f" ({' '.join(parts)})" if parts else ""


def files_text(count: int) -> str:
    """`` (1,500 files)``, `` (5,000+ files)`` past the cap, `` (1 file)``."""
    if count > FOLDER_CAP:
        return f" ({FOLDER_CAP:,}+ files)"
    return f" ({count:,} file{'s' if count != 1 else ''})"
