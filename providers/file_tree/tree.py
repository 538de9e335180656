"""The listing as a tree with recursive counts, changed in place one path at a time.

Each directory knows how many files and directories lie below it, so the
renderer can describe a collapsed directory (and plan what fits) without
visiting its contents. Directories exist only while they hold a file, as in
git's listing. A leaf whose name ends with ``/`` is a nested repository.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator


class Dir:
    """One directory: its subdirectories, its leaf names, and recursive counts."""

    __slots__ = ("_children", "depth", "dir_count", "dirs", "file_count", "files", "name", "parent")

    def __init__(self, name: str, parent: Dir | None) -> None:
        self.name = name
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.dirs: dict[str, Dir] = {}
        self.files: set[str] = set()
        self.file_count = 0
        self.dir_count = 0
        self._children: list[tuple[str, Dir | None]] | None = None

    def path(self) -> str:
        """Repo-relative path ("" for the root)."""
        parts: list[str] = []
        node: Dir | None = self
        while node is not None and node.parent is not None:
            parts.append(node.name)
            node = node.parent
        return "/".join(reversed(parts))

    def children(self) -> list[tuple[str, Dir | None]]:
        """Subdirectories then leaves, each sorted by name (``None`` marks a leaf); cached."""
        if self._children is None:
            self._children = [(n, self.dirs[n]) for n in sorted(self.dirs)]
            self._children.extend((n, None) for n in sorted(self.files))
        return self._children

    def index_of(self, name: str) -> int | None:
        """Position of ``name`` in :meth:`children` (a directory before a same-named leaf)."""
        children = self.children()
        if name in self.dirs:
            lo, hi = 0, len(self.dirs)
        elif name in self.files:
            lo, hi = len(self.dirs), len(children)
        else:
            return None
        return bisect_left(children, name, lo, hi, key=_name)

    def _changed(self) -> None:
        self._children = None


def _name(child: tuple[str, Dir | None]) -> str:
    return child[0]


def _split(rel: str) -> tuple[list[str], str]:
    """Parent parts and leaf name; a nested repository ``a/b/`` keeps its slash."""
    opaque = rel.endswith("/")
    parts = rel.rstrip("/").split("/")
    return parts[:-1], parts[-1] + ("/" if opaque else "")


class Tree:
    """The listing: add and remove paths, count, look up; ``version`` moves on every change."""

    def __init__(self) -> None:
        self.root = Dir("", None)
        self.version = 0

    @classmethod
    def build(cls, paths: Iterable[str]) -> Tree:
        """A tree of ``paths`` (any order, duplicates allowed); counts computed once at the end."""
        tree = cls()
        index: dict[str, Dir] = {"": tree.root}
        last_parent = ""
        names = tree.root.files
        opaque: list[str] = []
        # Hot loop (300k paths): consecutive paths mostly share their directory.
        for rel in paths:
            parent, _, name = rel.rpartition("/")
            if parent != last_parent:
                node = index.get(parent)
                if node is None:
                    node = tree._make_dirs(parent, index)
                names = node.files
                last_parent = parent
            if name:
                names.add(name)
            else:
                opaque.append(parent)
        for rel in opaque:  # nested repositories: "a/b/" is the leaf "b/" of "a"
            parent, _, name = rel.rpartition("/")
            node = index.get(parent) or tree._make_dirs(parent, index)
            node.files.add(name + "/")
            if not index[rel].files and not index[rel].dirs:
                del node.dirs[name]
        tree._recount()
        return tree

    def _make_dirs(self, rel_dir: str, index: dict[str, Dir]) -> Dir:
        parent_path, _, name = rel_dir.rpartition("/")
        parent = index.get(parent_path)
        if parent is None:
            parent = self._make_dirs(parent_path, index)
        node = parent.dirs.get(name)
        if node is None:
            node = parent.dirs[name] = Dir(name, parent)
        index[rel_dir] = node
        return node

    def _recount(self) -> None:
        order: list[Dir] = [self.root]
        for node in order:  # breadth first; the list grows while we walk it
            order.extend(node.dirs.values())
        for node in reversed(order):
            node.file_count = len(node.files) + sum(d.file_count for d in node.dirs.values())
            node.dir_count = len(node.dirs) + sum(d.dir_count for d in node.dirs.values())
            node._changed()
        self.version += 1

    def find_dir(self, rel: str) -> Dir | None:
        node: Dir | None = self.root
        for part in rel.split("/") if rel else ():
            node = node.dirs.get(part) if node is not None else None
        return node

    def contains(self, rel: str) -> bool:
        """Whether ``rel`` is a listed leaf or directory."""
        parts, name = _split(rel)
        parent = self.find_dir("/".join(parts))
        return parent is not None and (name in parent.files or name in parent.dirs)

    def inside_nested_repository(self, rel: str) -> bool:
        """Whether some ancestor of ``rel`` is a leaf: a nested repository or a gitlink."""
        node = self.root
        for part in rel.split("/")[:-1]:
            if part + "/" in node.files or part in node.files:
                return True
            child = node.dirs.get(part)
            if child is None:
                return False
            node = child
        return False

    def add(self, rel: str) -> bool:
        """Add a leaf (creating its directories); False when it was already there."""
        parts, name = _split(rel)
        node = self.root
        created = 0
        for part in parts:
            child = node.dirs.get(part)
            if child is None:
                child = node.dirs[part] = Dir(part, node)
                node._changed()
                created += 1
            node = child
        if name in node.files:
            if created:  # cannot happen: a new directory holds nothing yet
                raise AssertionError(rel)
            return False
        node.files.add(name)
        node._changed()
        # Counts: every ancestor gains the file; each new directory counts for those above it.
        walker: Dir | None = node
        depth_below = 0
        while walker is not None:
            walker.file_count += 1
            walker.dir_count += min(created, depth_below)
            depth_below += 1
            walker = walker.parent
        self.version += 1
        return True

    def remove(self, rel: str) -> bool:
        """Remove a leaf or a whole directory; empty directories above it go too."""
        parts, name = _split(rel)
        parent = self.find_dir("/".join(parts))
        if parent is None:
            return False
        if name in parent.files:
            parent.files.discard(name)
            files, dirs = 1, 0
        elif name in parent.dirs:
            gone = parent.dirs.pop(name)
            files, dirs = gone.file_count, gone.dir_count + 1
        else:
            return False
        parent._changed()
        walker: Dir | None = parent
        while walker is not None:
            walker.file_count -= files
            walker.dir_count -= dirs
            walker = walker.parent
        self._prune(parent)
        self.version += 1
        return True

    def _prune(self, node: Dir) -> None:
        """Drop ``node`` and ancestors left empty (counts above them shrink accordingly)."""
        while node.parent is not None and not node.files and not node.dirs:
            parent = node.parent
            del parent.dirs[node.name]
            parent._changed()
            walker: Dir | None = parent
            while walker is not None:
                walker.dir_count -= 1
                walker = walker.parent
            node = parent

    def filter(self, excluded: Callable[[str, bool], bool]) -> int:
        """Remove everything ``excluded(rel, is_dir)`` names, top down; returns how many entries.

        An excluded directory goes whole, without its contents being asked
        about (gitignore's rule: nothing inside it can be re-included).
        """
        removed = 0
        stack = [self.root]
        while stack:
            node = stack.pop()
            prefix = node.path()
            prefix = prefix + "/" if prefix else ""
            for name in list(node.dirs):
                if excluded(prefix + name, True):
                    del node.dirs[name]
                    removed += 1
                else:
                    stack.append(node.dirs[name])
            for name in list(node.files):
                if excluded(prefix + name.rstrip("/"), name.endswith("/")):
                    node.files.discard(name)
                    removed += 1
        if removed:
            self._drop_empty()
            self._recount()
        return removed

    def _drop_empty(self) -> None:
        order: list[Dir] = [self.root]
        for node in order:
            order.extend(node.dirs.values())
        for node in reversed(order):
            if node.parent is not None and not node.files and not node.dirs:
                del node.parent.dirs[node.name]

    def paths(self) -> Iterator[str]:
        """Every leaf path (nested repositories with their ``/``), depth first."""
        stack: list[tuple[str, Dir]] = [("", self.root)]
        while stack:
            prefix, node = stack.pop()
            for name in node.files:
                yield prefix + name
            for name, child in node.dirs.items():
                stack.append((prefix + name + "/", child))
