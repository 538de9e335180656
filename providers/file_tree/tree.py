"""The listing as two sorted sets, files and directories, with counts by binary search.

Everything below directory ``d`` sorts between ``d/`` and ``d0`` (``0``
follows ``/``), so how many files and directories a collapsed directory holds
is two binary searches each, and building the model costs a sort (git's
output is already two sorted runs) and one pass for the parent directories.
Nothing is done per file that the section does not show. Files, most of the
memory, are packed into blocks of bytes (:mod:`packed`); directories, a few
percent of them, are a list. Directories exist only while they hold a file,
as in git's listing. A leaf in ``repos`` is a nested
repository, listed as ``name/``.

:class:`Dir` is one directory as the section's text needs it, made on demand and
cached until the tree changes.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Iterator

from providers.file_tree.packed import PackedPaths, decode, encode

_AFTER_SLASH = "0"
"""The character after ``/``: ``d + "/"`` to ``d + "0"`` spans everything below ``d``."""

NAMED_KEPT = 64
"""Names whose files :meth:`Tree.named` remembers (each a scan of the whole listing)."""
NAMED_KEPT_FILES = 256
"""A name with more files than this is scanned for again each time it is asked for."""


def _span(items: list[str], directory: str) -> tuple[int, int]:
    if not directory:
        return 0, len(items)
    return bisect_left(items, directory + "/"), bisect_left(items, directory + _AFTER_SLASH)


def _find(items: list[str], item: str) -> int | None:
    index = bisect_left(items, item)
    return index if index < len(items) and items[index] == item else None


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _compacted(names: set[str]) -> list[str]:
    """The same strings sorted, made afresh next to each other; ``names`` is emptied.

    Each one was first made among many short-lived ones (the parent of every
    path), so each would pin a mostly empty block of the allocator's memory:
    megabytes at 300k files, more with every re-list. The originals are freed
    before the copies are made (through one joined string), so the copies
    fill the freed blocks instead of landing among the short-lived ones.
    """
    joined = "\0".join(sorted(names))
    names.clear()
    return joined.split("\0") if joined else []


def parent_dirs(paths: Iterable[str]) -> set[str]:
    """The directories directly holding ``paths`` (``""``: the root), for :meth:`Tree.assemble`."""
    return {p.rpartition("/")[0] for p in paths}


class Dir:
    """One directory as the section's text sees it: counts, depth, sorted entries.

    It holds its tree weakly: the tree caches its Dirs, and a cycle would keep
    a replaced listing (12 MiB at 300k files) alive until a full collection.
    """

    __slots__ = (
        "_children",
        "_subdirs",
        "_tree",
        "depth",
        "dir_count",
        "file_count",
        "name",
        "parent",
        "path",
    )

    def __init__(self, tree: Tree, path: str, parent: Dir | None) -> None:
        self._tree = weakref.ref(tree)
        self.path = path
        self.name = path.rpartition("/")[2]
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        lo, hi = tree._files.span(path)
        repos = tree.repos_below(path)
        # A nested repository or submodule is a directory of its own, not a file.
        self.file_count = hi - lo - repos
        lo, hi = _span(tree._dirs, path)
        self.dir_count = hi - lo + repos
        self._children: list[tuple[str, Dir | None]] | None = None
        self._subdirs = 0

    def children(self) -> list[tuple[str, Dir | None]]:
        """Subdirectories then leaves, each sorted (``None`` marks a leaf); cached."""
        if self._children is None:
            self._children = self._list()
        return self._children

    @property
    def subdir_count(self) -> int:
        """How many of :meth:`children` (the first ones) are directories."""
        self.children()
        return self._subdirs

    def _list(self) -> list[tuple[str, Dir | None]]:
        tree = self._owner()
        cut = len(self.path) + 1 if self.path else 0
        out: list[tuple[str, Dir | None]] = []
        dirs = tree._dirs
        i, hi = _span(dirs, self.path)
        while i < hi:  # a directory sorts before its contents: jump over those
            child = dirs[i]
            slash = child.find("/", cut)
            if slash < 0:
                out.append((child[cut:], tree.dir_at(child, self)))
                i += 1
            else:
                i = bisect_left(dirs, child[:slash] + _AFTER_SLASH, i + 1, hi)
        repos = tree._repos
        prefix = self.path + "/" if self.path else ""
        leaves: list[tuple[str, Dir | None]] = []
        for name in tree._files.direct(self.path):
            if repos and prefix + name in repos:
                out.append((name + "/", None))  # sorts with the directories
            else:
                leaves.append((name, None))
        if len(out) > 1 and any(child is None for _, child in out):
            out.sort(key=_leaf_key)
        self._subdirs = len(out)
        out.extend(leaves)
        return out

    def index_of(self, name: str) -> int | None:
        """Position of ``name`` in :meth:`children` (a directory before a same-named leaf)."""
        children = self.children()
        key = encode(name)
        for lo, hi in ((0, self._subdirs), (self._subdirs, len(children))):
            index = bisect_left(children, key, lo, hi, key=_leaf_key)
            if index < hi and _leaf_key(children[index]) == key:
                return index
        return None

    def child_dir(self, name: str) -> Dir | None:
        path = f"{self.path}/{name}" if self.path else name
        return self._owner().find_dir(path)

    def _owner(self) -> Tree:
        tree = self._tree()
        if tree is None:
            raise ReferenceError(f"the tree of {self.path or '/'} is gone")
        return tree


def _leaf_key(child: tuple[str, Dir | None]) -> bytes:
    """A child's name as it sorts (by its bytes, as git sorts; a repository ``name/`` as
    ``name``)."""
    return encode(child[0].removesuffix("/") if child[1] is None else child[0])


class Tree:
    """The listing: add and remove paths, count, look up; ``version`` moves on every change."""

    def __init__(self) -> None:
        self._files = PackedPaths()
        self._dirs: list[str] = []
        self._repos: set[str] = set()
        self._dir_cache: dict[str, Dir] = {}
        self._named: dict[str, list[str]] = {}
        self.version = 0

    @classmethod
    def build(cls, paths: list[str], repos: Iterable[str] = ()) -> Tree:
        """A tree of ``paths`` (unique; consumed) plus nested repositories ``repos``."""
        repo_keys = {r.rstrip("/") for r in repos}
        paths.extend(repo_keys)
        parents = parent_dirs(paths)
        return cls.assemble(PackedPaths.of(paths), repo_keys, parents)

    @classmethod
    def assemble(cls, files: PackedPaths, repos: set[str], parents: set[str]) -> Tree:
        """A tree of packed ``files`` (nested repositories ``repos`` among them), whose
        :func:`parent_dirs` are ``parents`` (emptied: their memory is reused)."""
        tree = cls()
        tree._repos = repos
        tree._files = files
        dirs: set[str] = set()
        for directory in parents:
            while directory and directory not in dirs:
                dirs.add(directory)
                directory = _parent(directory)
        parents.clear()
        tree._dirs = _compacted(dirs)
        return tree

    @classmethod
    def of(cls, entries: Iterable[str]) -> Tree:
        """A tree of any paths, duplicates allowed, repositories written ``name/``."""
        unique = set(entries)
        repos = [e for e in unique if e.endswith("/")]
        return cls.build([e for e in unique if not e.endswith("/")], repos)

    def named(self, name: str) -> list[str]:
        """Every listed file called ``name``, at any depth, sorted; do not change the list.

        Remembered for the next turns (the ranking asks for the same names
        each turn) and kept current by :meth:`add` and :meth:`remove`.
        """
        found = self._named.pop(name, None)
        if found is None:
            found = self._files.named(name)
            if len(found) > NAMED_KEPT_FILES:
                return found
            if len(self._named) >= NAMED_KEPT:
                del self._named[next(iter(self._named))]  # the least recently asked
        self._named[name] = found
        return found

    def named_below(self, name: str, directory: str, skip: str | None, limit: int) -> list[str]:
        """The first ``limit`` files called ``name`` below ``directory`` (``""``: all) and
        not below ``skip``, sorted."""
        if not directory and skip is None:
            return self.named(name)[:limit]
        return self._files.named(name, directory, skip=skip, limit=limit)

    def directories(self) -> list[str]:
        """Every listed directory (not the root), sorted; do not change the list."""
        return self._dirs

    @property
    def leaves(self) -> int:
        """How many leaves (files and nested repositories) are listed."""
        return len(self._files)

    @property
    def root(self) -> Dir:
        return self.dir_at("", None)

    def dir_at(self, path: str, parent: Dir | None = None) -> Dir:
        """The (cached) :class:`Dir` of directory ``path``."""
        found = self._dir_cache.get(path)
        if path and parent is None:
            parent = self.dir_at(_parent(path))
        if found is None:
            found = self._dir_cache[path] = Dir(self, path, parent)
        else:
            found.parent = parent  # the parent's Dir may have been made again after a change
        return found

    def find_dir(self, rel: str) -> Dir | None:
        if rel and _find(self._dirs, rel) is None:
            return None
        return self.dir_at(rel)

    def contains(self, rel: str) -> bool:
        """Whether ``rel`` is a listed leaf (``name/`` for a repository) or directory."""
        if rel.endswith("/"):
            return rel[:-1] in self._repos
        return self._files.find(rel) is not None or _find(self._dirs, rel) is not None

    def leaves_between(self, after: str | None, before: str | None, most: int) -> list[str] | None:
        """The leaves above ``after`` and below ``before`` (None: no bound), in git's order,
        nested repositories without their ``/``; None when there are more than ``most``."""
        lo, hi = self._files.between(after, before)
        if hi - lo > most:
            return None
        return [decode(self._files[i]) for i in range(lo, hi)]

    def is_repository(self, leaf: str) -> bool:
        """Whether the leaf ``leaf`` is a nested repository (listed as ``leaf/``)."""
        return leaf in self._repos

    def repos_below(self, path: str) -> int:
        """How many nested repositories (submodules) lie below directory ``path``."""
        if not self._repos:
            return 0
        if not path:
            return len(self._repos)
        prefix = path + "/"
        return sum(1 for repo in self._repos if repo.startswith(prefix))

    def inside_nested_repository(self, rel: str) -> bool:
        """Whether some ancestor of ``rel`` is a leaf: a nested repository or a gitlink."""
        ancestor = _parent(rel)
        while ancestor:
            if ancestor in self._repos or self._files.find(ancestor) is not None:
                return True
            ancestor = _parent(ancestor)
        return False

    def _changed(self, at: str | None = None) -> None:
        """Move the version on; drop the Dirs the change can affect (all, without ``at``).

        A change at ``at`` alters the counts and entries of its ancestors only,
        and removes whatever was below it: other Dirs stay right, and the
        next text after one created file lists only the directories on its
        path again.
        """
        self.version += 1
        if at is None:
            self._dir_cache.clear()
            self._named.clear()
            return
        below = at + "/"
        for path in [p for p in self._dir_cache if p == at or p.startswith(below)]:
            del self._dir_cache[path]
        ancestor = at
        while ancestor:
            ancestor = _parent(ancestor)
            self._dir_cache.pop(ancestor, None)

    def add(self, rel: str) -> bool:
        """Add a leaf (``name/`` for a repository); False when it was already there."""
        key = rel.rstrip("/")
        if not self._files.add(key):
            return False
        if rel.endswith("/"):
            self._repos.add(key)
        named = self._named.get(key.rpartition("/")[2])
        if named is not None:
            insort(named, key)
        directory = _parent(key)
        while directory and _find(self._dirs, directory) is None:
            insort(self._dirs, directory)
            directory = _parent(directory)
        self._changed(key)
        return True

    def remove(self, rel: str) -> bool:
        """Remove a leaf or a whole directory; directories left empty above it go too."""
        key = rel.rstrip("/")
        if self._files.discard(key):
            self._repos.discard(key)
            named = self._named.get(key.rpartition("/")[2])
            if named is not None:
                named.remove(key)
        elif _find(self._dirs, key) is not None:
            self._files.delete(*self._files.span(key))
            lo, hi = _span(self._dirs, key)
            del self._dirs[lo:hi]
            self._dirs.remove(key)
            below = key + "/"
            self._repos = {r for r in self._repos if not r.startswith(below)}
            for named in self._named.values():
                named[:] = [path for path in named if not path.startswith(below)]
        else:
            return False
        directory = _parent(key)
        while directory:
            lo, hi = self._files.span(directory)
            if lo < hi:
                break
            self._dirs.remove(directory)
            directory = _parent(directory)
        self._changed(key)
        return True

    def discard(self, leaves: set[str]) -> None:
        """Remove many leaves at once (a rebuild when there are many)."""
        if len(leaves) <= 64:
            for leaf in leaves:
                self.remove(leaf)
            return
        kept = [p for p in self._files if p not in leaves]
        if len(kept) == len(self._files):
            return
        rebuilt = Tree.build(kept)
        self._files, self._dirs = rebuilt._files, rebuilt._dirs
        self._repos -= leaves
        self._changed()

    def filter(self, excluded: Callable[[str, bool], bool]) -> int:
        """Remove everything ``excluded(rel, is_dir)`` names; returns how many entries went.

        Top down: an excluded directory goes whole, without its contents being
        asked about (gitignore's rule: nothing inside it can be re-included).
        """
        gone: set[str] = set()
        for directory in self._dirs:  # a parent sorts before its children
            parent = _parent(directory)
            if parent in gone or excluded(directory, True):
                gone.add(directory)
        kept = [
            p for p in self._files if _parent(p) not in gone and not excluded(p, p in self._repos)
        ]
        removed = len(self._files) - len(kept) + len(gone)
        if removed:
            repos = self._repos & set(kept)
            rebuilt = Tree.build(kept)
            self._files, self._dirs, self._repos = rebuilt._files, rebuilt._dirs, repos
            self._changed()
        return removed

    def same(self, other: Tree) -> bool:
        """Whether ``other`` lists exactly the same entries."""
        return self._files == other._files and self._repos == other._repos

    def paths(self) -> Iterator[str]:
        """Every leaf path, nested repositories with their ``/``."""
        repos = self._repos
        for path in self._files:
            yield path + "/" if path in repos else path
