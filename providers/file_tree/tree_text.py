"""The tree's text: what it looks like, and exactly how many bytes each step adds to it.

The form, chosen once: an indented tree, two spaces a level, under the root's
absolute path; directories end with ``/``, subdirectories come before files,
each sorted by name. A directory that is not expanded is one line with its
recursive counts (``vendor/ (1,204 files, 37 dirs)``); an expanded directory
whose entries are not all shown ends with ``... 968 more (950 files, 30 dirs)``;
the section ends with the totals shown vs. present. Names with control
characters, backslashes or quotes are quoted, so every line is one entry.

A :class:`TreeText` is a set of expanded directories and revealed entries.
:meth:`TreeText.apply` reveals more and returns the exact change in the
text's size, so the planner measures a candidate without writing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

from providers.core.section_text import tree_totals_line
from providers.file_tree.tree import Dir, Tree

INDENT = "  "
_OPEN, _CLOSE, _LEAF = 0, 1, 2


def display(name: str) -> str:
    """A name as shown: verbatim when plain, JSON-quoted when it would break a line or mislead."""
    if name.isprintable() and name.strip() == name and '"' not in name and "\\" not in name:
        return name
    raw = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return json.dumps(raw, ensure_ascii=False)


def counts(files: int, dirs: int) -> str:
    """``1,204 files, 37 dirs``; singular for one; dirs left out when none."""
    text = f"{files:,} file" + ("" if files == 1 else "s")
    if dirs:
        text += f", {dirs:,} dir" + ("" if dirs == 1 else "s")
    return text


Annotate = Callable[[str], str | None]
"""What to say after a leaf (its repo-relative path): a symlink's ``-> target``, a
repository's ``submodule, not checked out``; None for nothing. The provider reads the
file system; the tree text stays pure."""


def leaf_line(name: str, depth: int, *, raw: int = 0, note: str | None = None) -> str:
    """A leaf's line; the first ``raw`` characters are an already displayed folded chain."""
    head, name = name[:raw], name[raw:]
    if name.endswith("/"):
        return f"{INDENT * depth}{head}{display(name[:-1])}/ ({note or 'repository'})"
    tail = f" {note}" if note else ""
    return f"{INDENT * depth}{head}{display(name)}{tail}"


def more_line(depth: int, entries: int, files: int, dirs: int) -> str:
    if dirs == 0 and entries == files:
        return f"{INDENT * depth}... {entries:,} more file" + ("" if entries == 1 else "s")
    return f"{INDENT * depth}... {entries:,} more ({counts(files, dirs)})"


class Step(NamedTuple):
    """Reveal entries ``indices`` of ``dir`` (expanding it first when ``expands``).

    A tuple: the planner makes one per entry it might show.
    """

    dir: Dir
    indices: tuple[int, ...]
    expands: bool


def _size(line: str) -> int:
    """Bytes of ``line`` and its newline (``isascii`` is a flag check: most names are)."""
    if line.isascii():
        return len(line) + 1
    return len(line.encode("utf-8", "surrogateescape")) + 1


def _next_power_of_ten(n: int) -> int:
    power = 10
    while power <= n:
        power *= 10
    return power


class TreeText:
    """What is expanded and revealed, and the byte size of its text."""

    def __init__(
        self,
        tree: Tree,
        root_label: str,
        *,
        show_files: bool,
        unreadable: int,
        annotate: Annotate | None = None,
        partial: str | None = None,
    ) -> None:
        self._tree = tree
        self._annotate = annotate
        self._partial = partial
        self._root_label = display(root_label.rstrip("/") or "/").rstrip("/") + "/"
        self._show_files = show_files
        self._unreadable = unreadable
        self._revealed: dict[Dir, set[int]] = {}
        self._hidden: dict[Dir, tuple[int, int, int]] = {}
        self.shown_files = 0
        self.shown_dirs = 0
        self._trailer_sizes: dict[Dir, int] = {}
        self._dirs_only: dict[Dir, list[tuple[str, Dir | None]]] = {}
        self._totals_size = _size(self._totals())
        self._totals_moves_at = (10, 10)
        """Shown counts at which the totals line gets a digit longer; it only changes there."""
        self.size = _size(self._dir_line(tree.root)) + self._totals_size

    # What the planner asks -------------------------------------------------

    def entries(self, node: Dir) -> Sequence[tuple[str, Dir | None]]:
        """The entries an expanded ``node`` can reveal (directories only without files)."""
        children = node.children()
        if self._show_files or node.subdir_count == len(children):
            return children
        dirs = self._dirs_only.get(node)
        if dirs is None:
            dirs = self._dirs_only[node] = children[: node.subdir_count]
        return dirs

    def expanded(self, node: Dir) -> bool:
        return node in self._revealed

    def revealed(self, node: Dir, index: int) -> bool:
        shown = self._revealed.get(node)
        return shown is not None and index in shown

    # Changing it ------------------------------------------------------------

    def apply(self, step: Step, *, measure: bool = True) -> int:
        """Reveal what ``step`` names; return the change in the text's bytes (0 unmeasured).

        Measuring costs a few line formats per step: the lines a step rewrites
        (its directory's own line when expanding, its "more" line, the totals)
        and the lines it adds. Sizes of the rewritten lines are remembered.
        """
        if not measure:
            self._reveal(step)
            return 0
        node = step.dir
        before = self.size
        if step.expands:
            self.size -= _size(self._dir_line(node))
        added = self._reveal(step)
        if step.expands:
            self.size += _size(self._dir_line(node))
        trailer = self._trailer_size(node)
        self.size += trailer - self._trailer_sizes.get(node, 0)
        self._trailer_sizes[node] = trailer
        files_at, dirs_at = self._totals_moves_at
        if self.shown_files >= files_at or self.shown_dirs >= dirs_at:
            totals = _size(self._totals())
            self.size += totals - self._totals_size
            self._totals_size = totals
            self._totals_moves_at = (
                _next_power_of_ten(self.shown_files),
                _next_power_of_ten(self.shown_dirs),
            )
        depth = node.depth + 1
        for name, child in added:
            line = self._leaf(node, name, depth) if child is None else self._dir_line(child)
            self.size += _size(line)
        return self.size - before

    def _reveal(self, step: Step) -> list[tuple[str, Dir | None]]:
        node = step.dir
        kids = self.entries(node)
        if step.expands:
            direct = 0 if self._show_files else len(node.children()) - node.subdir_count
            self._revealed[node] = set()
            self._hidden[node] = (len(kids), node.file_count - direct, node.dir_count)
        shown = self._revealed[node]
        entries, files, dirs = self._hidden[node]
        added: list[tuple[str, Dir | None]] = []
        for index in step.indices:
            if index in shown:
                continue
            shown.add(index)
            name, child = kids[index]
            added.append((name, child))
            entries -= 1
            if child is None and name.endswith("/"):  # a repository: a directory
                dirs -= 1
                self.shown_dirs += 1
            elif child is None:
                files -= 1
                self.shown_files += 1
            else:
                files -= child.file_count
                dirs -= child.dir_count + 1
                self.shown_dirs += 1
        self._hidden[node] = (entries, files, dirs)
        return added

    # Writing ----------------------------------------------------------------

    def lines(self, *, fold: bool = True) -> list[str]:
        """The text, one entry per line, single-child chains folded (unless not ``fold``).

        A directory whose only shown entry is its only entry is written on one
        line with it (``common/v1/common.proto``, not a line per level): the
        same facts for fewer tokens. So a text is never longer than
        :attr:`size`, which the planner measures unfolded.
        """
        out: list[str] = []
        # (kind, directory, depth, prefix or ready line): open a directory (prefix: the
        # folded chain above it), close it (its "more" line), or a leaf.
        stack: list[tuple[int, Dir, int, str]] = [(_OPEN, self._tree.root, 0, "")]
        while stack:
            kind, node, depth, text = stack.pop()
            if kind == _LEAF:
                out.append(text)
                continue
            if kind == _CLOSE:
                entries, files, dirs = self._hidden[node]
                if entries:
                    out.append(more_line(depth + 1, entries, files, dirs))
                continue
            only = self._only_entry(node) if fold else None
            if only is not None:
                name, child = only
                chain = f"{text}{display(node.name)}/"
                if child is None:
                    out.append(self._leaf(node, name, depth, chain))
                else:
                    stack.append((_OPEN, child, depth, chain))
                continue
            out.append(self._dir_line(node, depth, text))
            shown = self._revealed.get(node)
            if shown is None:
                continue
            stack.append((_CLOSE, node, depth, ""))
            kids = self.entries(node)
            for index in sorted(shown, reverse=True):
                name, child = kids[index]
                if child is None:
                    stack.append((_LEAF, node, depth + 1, self._leaf(node, name, depth + 1)))
                else:
                    stack.append((_OPEN, child, depth + 1, ""))
        out.append(self._totals())
        return out

    def _leaf(self, node: Dir, name: str, depth: int, chain: str = "") -> str:
        note = None
        if self._annotate is not None:
            note = self._annotate(f"{node.path}/{name}" if node.path else name)
        return leaf_line(chain + name, depth, raw=len(chain), note=note)

    def _only_entry(self, node: Dir) -> tuple[str, Dir | None] | None:
        """The one entry of a directory that is expanded, shows it and hides nothing."""
        if node.parent is None or not self._show_files:
            return None
        shown = self._revealed.get(node)
        if shown is None or len(shown) != 1 or self._hidden[node][0]:
            return None
        return self.entries(node)[next(iter(shown))]

    def text(self, *, fold: bool = True) -> str:
        return "\n".join(self.lines(fold=fold)) + "\n"

    # Lines ------------------------------------------------------------------

    def _dir_line(self, node: Dir, depth: int | None = None, prefix: str = "") -> str:
        """A directory's own line (``prefix``: the folded chain above it)."""
        depth = node.depth if depth is None else depth
        label = self._root_label if node.parent is None else f"{prefix}{display(node.name)}/"
        if node in self._revealed and self._show_files:
            return f"{INDENT * depth}{label}"
        return f"{INDENT * depth}{label} ({counts(node.file_count, node.dir_count)})"

    def _trailer_size(self, node: Dir) -> int:
        hidden = self._hidden.get(node)
        if hidden is None or hidden[0] == 0:
            return 0
        return _size(more_line(node.depth + 1, *hidden))

    def _totals(self) -> str:
        root = self._tree.root
        notes = ""
        if self._unreadable:
            plural = "" if self._unreadable == 1 else "s"
            notes += f"; {self._unreadable:,} unreadable dir{plural} skipped"
        if self._partial:
            notes += f"; partial: the listing stopped {self._partial}"
        return tree_totals_line(
            (self.shown_files, root.file_count),
            (self.shown_dirs, root.dir_count),
            files_listed=self._show_files,
            notes=notes,
        )
