"""Which entries the map shows first: the agent's next need, not the alphabet. Pure.

The map is a prefix of one ordered list of paths to reveal (the fitter keeps
as much of it as the budget allows, so more budget never shows less):

1. the root's entries, heaviest first, so a map at any budget orients, and
   the entries shown on the first turn stay when files are touched;
2. the files touched this turn;
3. the working directory when it is below the root, and its entries;
4. round robin across this turn's files, what each one's neighbourhood
   holds: the files that changed with it in the repository's history, its
   tests, the entries on either side of it in its directory;
5. the files touched on earlier turns, newest first, with their closest
   partners;
6. the files the history says are busiest;
7. everything else breadth first, each directory's entries heaviest first.

Weight is size and kind: a large source directory before a dot directory, an
asset or fixture folder, translated docs; generated and vendored files and
lock files last (:func:`kind_factor`). Display order stays sorted by name:
weight only decides what is shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from providers.file_tree.history import History
from providers.file_tree.tree import Dir, Tree

ROOT_FIRST = 40
"""Root entries listed before anything else; a root with more waits for the rest."""

NEIGHBOURS = 4
"""Entries on either side of a touched file in its directory, in the first round."""

_GENERATED_DIRS = frozenset(
    {
        "node_modules", "vendor", "vendored", "third_party", "third-party", "_gen", "gen",
        "generated", "__generated__", "dist", "build", "target", "out", ".venv", "venv",
        "__pycache__", "bower_components", "Pods", "coverage", ".next", ".nuxt",
    }
)  # fmt: skip
_LOCK_FILES = frozenset(
    {
        "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "go.sum", "Cargo.lock",
        "poetry.lock", "uv.lock", "composer.lock", "Gemfile.lock", "Pipfile.lock",
        "bun.lockb", "flake.lock", "mix.lock", "pubspec.lock", "Podfile.lock",
    }
)  # fmt: skip
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".snap", ".pb.go", "_pb2.py", "_pb2.pyi")
_SIDE_DIRS = frozenset(
    {
        "assets", "images", "img", "static", "public", "fixtures", "fixture", "testdata",
        "test_data", "__snapshots__", "snapshots", "locales", "locale", "i18n", "l10n",
        "translations", "media", "fonts", "icons",
    }
)  # fmt: skip
_LOCALE = re.compile(r"^[a-z]{2}(?:[-_][A-Za-z]{2,4})?$")
_ENTRY_NAMES = frozenset(
    {
        "README.md", "README", "README.rst", "main.py", "__init__.py", "index.ts", "index.js",
        "main.go", "main.rs", "lib.rs", "mod.rs", "package.json", "pyproject.toml",
        "Cargo.toml", "go.mod", "Makefile", "setup.py", "AGENTS.md", "CLAUDE.md",
    }
)  # fmt: skip


def kind_factor(path: str, is_dir: bool) -> float:
    """How much an entry is worth showing, by what it and its directories are (1: source;
    near 0: generated). The lowest of its own and each ancestor directory's factor."""
    parts = path.split("/")
    factor = _own_factor(parts[-1], parts[-2] if len(parts) > 1 else "", is_dir)
    for depth in range(len(parts) - 1):
        parent = parts[depth - 1] if depth else ""
        factor = min(factor, _own_factor(parts[depth], parent, True))
    return factor


def _own_factor(name: str, parent: str, is_dir: bool) -> float:
    if (is_dir and name in _GENERATED_DIRS) or (not is_dir and _generated_file(name)):
        return 0.02
    if is_dir and parent in ("docs", "doc", "i18n", "locales") and _LOCALE.match(name):
        return 1.0 if name in ("en", "en-US", "en_US") else 0.05  # translated docs
    if name.startswith(".") or (is_dir and name in _SIDE_DIRS):
        return 0.3
    return 1.0


def _generated_file(name: str) -> bool:
    return name in _LOCK_FILES or name.endswith(_GENERATED_SUFFIXES)


@dataclass(frozen=True)
class Focus:
    """Where the agent is: what it touched (this turn's first), where it works, history."""

    touched: tuple[str, ...] = ()
    """This turn's files first, then earlier turns' (newest first)."""
    fresh: int = -1
    """How many of ``touched`` are this turn's (-1: all)."""
    cwd: str = ""
    history: History | None = None

    @property
    def this_turn(self) -> tuple[str, ...]:
        return self.touched if self.fresh < 0 else self.touched[: self.fresh]

    @property
    def earlier(self) -> tuple[str, ...]:
        return () if self.fresh < 0 else self.touched[self.fresh :]


class Weights:
    """Entry weights for one section (directories' computed once each)."""

    def __init__(self, history: History | None) -> None:
        self._history = history
        total = history.dir_activity.get("", 0.0) if history else 0.0
        self._total = total or 1.0
        self._dirs: dict[str, float] = {}

    def directory(self, node: Dir) -> float:
        found = self._dirs.get(node.path)
        if found is None:
            activity = self._history.dir_activity.get(node.path, 0.0) if self._history else 0.0
            size = math.log2(2 + node.file_count)
            found = kind_factor(node.path, True) * (size + 8 * activity / self._total)
            self._dirs[node.path] = found
        return found

    def file(self, path: str) -> float:
        activity = self._history.activity.get(path, 0.0) if self._history else 0.0
        name = path.rpartition("/")[2]
        entry = 0.5 if name in _ENTRY_NAMES else 0.0
        return kind_factor(path, False) * (1.0 + entry + 40 * activity / self._total)

    def children(self, node: Dir) -> list[tuple[str, Dir | None]]:
        """``node``'s entries heaviest first (ties keep name order)."""
        prefix = node.path + "/" if node.path else ""
        entries = node.children()
        scored = [
            (
                -(self.directory(child) if child is not None else self.file(prefix + name)),
                order,
                name,
                child,
            )
            for order, (name, child) in enumerate(entries)
        ]
        scored.sort(key=lambda item: (item[0], item[1]))
        return [(name, child) for _, _, name, child in scored]


def targets(tree: Tree, focus: Focus, max_depth: int | None) -> Iterator[str]:
    """Paths to reveal, most wanted first (see the module docstring); repeats are fine."""
    weights = Weights(focus.history)
    root = tree.root
    # Every root entry (up to ROOT_FIRST, heaviest first), whatever it is: what turn 1
    # shows at the top must stay when files are touched, or the cached prompt churns.
    yield from (name for name, _ in weights.children(root)[:ROOT_FIRST])
    fresh = focus.this_turn
    yield from fresh
    if focus.cwd:
        yield focus.cwd
        node = tree.find_dir(focus.cwd)
        if node is not None:
            yield from (_path(node, name) for name, _ in weights.children(node))
    rounds = [_neighbourhood(tree, path, focus.history) for path in fresh]
    while rounds:  # round robin: each touched file gets its turn
        for neighbourhood in list(rounds):
            found = next(neighbourhood, None)
            if found is None:
                rounds.remove(neighbourhood)
            else:
                yield found
    for path in focus.earlier:
        yield path
        if focus.history is not None:
            yield from (partner for partner, _ in focus.history.partners(path, 3))
    if focus.history:
        yield from (path for path in focus.history.hottest if kind_factor(path, False) >= 1.0)
    yield from _breadth_first(root, weights, max_depth)


def _neighbourhood(tree: Tree, path: str, history: History | None) -> Iterator[str]:
    """What one touched file's neighbourhood holds, best first."""
    partners = [p for p, _ in history.partners(path)] if history is not None else []
    siblings = _siblings(tree, path)
    tests = _test_partners(tree, path)
    yield from partners[:6]
    yield from tests
    yield from siblings[: 2 * NEIGHBOURS]
    yield from _twins(tree, path)
    yield from partners[6:]
    yield from siblings[2 * NEIGHBOURS :]


def _siblings(tree: Tree, path: str) -> list[str]:
    """The entries of ``path``'s directory, nearest to it first (after, before, after...)."""
    parent, _, name = path.rpartition("/")
    node = tree.find_dir(parent)
    if node is None:
        return []
    entries = node.children()
    index = node.index_of(name)
    if index is None:
        return [_path(node, n) for n, _ in entries]
    order: list[str] = []
    for step in range(1, len(entries)):
        for candidate in (index + step, index - step):
            if 0 <= candidate < len(entries):
                order.append(_path(node, entries[candidate][0]))
    return order


def _test_partners(tree: Tree, path: str) -> list[str]:
    """Files named as ``path``'s tests are (``test_x.py``, ``x_test.go``, ``x.test.ts``...)."""
    name = path.rpartition("/")[2]
    stem, dot, suffix = name.partition(".")
    if not dot or stem.startswith("test_") or stem.endswith(("_test", ".test", ".spec")):
        return []
    names = {f"test_{stem}.{suffix}", f"{stem}_test.{suffix}", f"{stem}.test.{suffix}"}
    names |= {f"{stem}.spec.{suffix}", f"{stem}Test.{suffix}", f"{stem}_spec.{suffix}"}
    found: list[str] = []
    for candidate in sorted(names):
        found.extend(tree.named(candidate)[:3])
    return found


TWINS = 6
"""Files of the same name elsewhere (a test's counterpart in a parallel suite, the same
module in another package), nearest first."""


def _twins(tree: Tree, path: str) -> list[str]:
    name = path.rpartition("/")[2]
    if name in _ENTRY_NAMES:
        return []  # every package has one: no signal
    found = [p for p in tree.named(name) if p != path]
    parts = path.split("/")

    def distance(other: str) -> tuple[int, str]:
        shared = 0
        for a, b in zip(parts, other.split("/"), strict=False):
            if a != b:
                break
            shared += 1
        return (-shared, other)

    return sorted(found, key=distance)[:TWINS]


def _breadth_first(root: Dir, weights: Weights, max_depth: int | None) -> Iterator[str]:
    level = [root]
    depth = 0
    while level and (max_depth is None or depth < max_depth):
        ranked = sorted(level, key=lambda node: -weights.directory(node))
        following: list[Dir] = []
        for node in ranked:
            children = weights.children(node)
            yield from (_path(node, name) for name, _ in children)
            following.extend(child for _, child in children if child is not None)
        level = following
        depth += 1


def _path(node: Dir, name: str) -> str:
    return f"{node.path}/{name}" if node.path else name


def order_touched(this_turn: Sequence[str], earlier: Sequence[str]) -> Focus:
    """A :class:`Focus` from this turn's and earlier turns' paths (kept in their order)."""
    fresh = tuple(dict.fromkeys(this_turn))
    rest = tuple(p for p in dict.fromkeys(reversed(earlier)) if p not in fresh)
    return Focus(touched=fresh + rest, fresh=len(fresh))
