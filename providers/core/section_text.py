"""What a host may read back from our sections' text, each fact written and read here,
side by side.

The bridge decides what a session was already shown from a section's label and text
(a scoped doc's path, the scoped docs index, the file tree's totals), and ``explain``
names the index. A label reworded on one side only would silently turn "shown once"
into "shown every event", so the writer and its reader live together and
``tests/core/test_section_text.py`` round-trips each pair.
"""

from __future__ import annotations

from dataclasses import dataclass

SCOPED_DOCS_INDEX = "scoped docs index"
"""The label of scoped docs' closing index (what did not fit, rules on request): a
catalog that changes as docs come and go, not a doc."""

ALWAYS_APPLIES = "always applies"
"""Why a doc that applies whatever was touched is shown."""

_APPLIES_TO = "applies to "
_DOC_REASONS = (f" ({_APPLIES_TO}", f" ({ALWAYS_APPLIES})")

TOTALS_PREFIX = "(shown: "
"""How the file tree's closing line (its counts) begins."""
_NOT_LISTED = "files not listed: "


def applies_to(touched: str, pattern: str) -> str:
    """Why a doc is shown: ``applies to src/a.py via "src/**"``."""
    return f'{_APPLIES_TO}{touched} via "{pattern}"'


def doc_label(path: str, why: str) -> str:
    """A scoped doc's label: its repository path, then why (:func:`doc_path` reads it)."""
    return f"{path} ({why})"


def doc_path(label: str) -> str:
    """The path of a :func:`doc_label` (``src/AGENTS.md`` of ``src/AGENTS.md (applies to
    src/a.py via "src/**")``); a label of no doc is returned whole."""
    cut = min((i for r in _DOC_REASONS if (i := label.find(r)) >= 0), default=-1)
    return label if cut < 0 else label[:cut]


def short_doc_label(label: str) -> str:
    """A :func:`doc_label` said in fewer words, for a client that keeps every word: its
    path and the glob that scopes it (``.cursor/rules/py.mdc (for **/*.py)``; the file
    touched is the one just read), the path alone when the glob is its own folder's
    (``src/AGENTS.md``, for ``src/**``), or the label as it is when it names no glob."""
    path = doc_path(label)
    reason = label[len(path) :]
    head = f" ({_APPLIES_TO}"
    if path == label or not reason.startswith(head) or not reason.endswith('")'):
        return label
    _, via, pattern = reason[len(head) : -2].rpartition(' via "')
    folder = path.rpartition("/")[0]
    if via and pattern == (f"{folder}/**" if folder else "**"):
        return path
    return f"{path} (for {pattern})" if via else label


def tree_totals_line(
    files: tuple[int, int], dirs: tuple[int, int], *, files_listed: bool, notes: str = ""
) -> str:
    """The file tree's closing line: ``(shown: 3 of 9 files, 2 of 4 dirs)``, or, when
    files are not listed, ``(shown: 2 of 4 dirs; files not listed: 9)``; ``notes``
    (``; 1 unreadable dir skipped``) before the parenthesis closes. Each pair is (shown,
    present)."""
    if files_listed:
        text = f"{files[0]:,} of {files[1]:,} files, {dirs[0]:,} of {dirs[1]:,} dirs"
    else:
        text = f"{dirs[0]:,} of {dirs[1]:,} dirs; {_NOT_LISTED}{files[1]:,}"
    return f"{TOTALS_PREFIX}{text}{notes})"


@dataclass(frozen=True)
class TreeCounts:
    """What a :func:`tree_totals_line` says: (shown, present) of files and of dirs."""

    files: tuple[int, int]
    dirs: tuple[int, int]
    files_listed: bool

    @property
    def whole(self) -> bool:
        """Every file and directory present is shown."""
        return self.files_listed and self.files[0] == self.files[1] and self.dirs[0] == self.dirs[1]


def tree_counts(text: str) -> TreeCounts | None:
    """The counts of a file tree's :func:`tree_totals_line` (its last one), or None when
    ``text`` has none."""
    for line in reversed(text.rstrip("\n").split("\n")):
        if not line.startswith(TOTALS_PREFIX):
            continue
        plain = line[len(TOTALS_PREFIX) :].replace(",", "")
        for mark in ";:()":
            plain = plain.replace(mark, " ")
        numbers = [int(w) for w in plain.split() if w.isdigit()]
        listed = _NOT_LISTED not in line
        if listed and len(numbers) >= 4:
            return TreeCounts((numbers[0], numbers[1]), (numbers[2], numbers[3]), True)
        if not listed and len(numbers) >= 3:
            return TreeCounts((0, numbers[2]), (numbers[0], numbers[1]), False)
        return None
    return None


def tree_totals(text: str) -> str:
    """What a file tree's :func:`tree_totals_line` says is present (files and dirs), or
    "" when ``text`` has no such line: the bridge resends the tree when it changes."""
    counts = tree_counts(text)
    return "" if counts is None else f"{counts.files[1]} {counts.dirs[1]}"
