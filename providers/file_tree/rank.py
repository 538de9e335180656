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
7. everything else breadth first: at each depth, every directory's entries heaviest
   first, the directories sharing the depth by weight (:func:`_breadth_first`).

Weight is size, kind and history: a large source directory before a dot directory, an
asset or fixture folder, translated docs; generated and vendored files and
lock files last (:mod:`kinds`); documentation, examples, tests and benchmarks
count half their size, and translated docs hardly any of it, so a
small source package is not outweighed by the docs and examples around it (issue
22 item 3: fastapi's ``fastapi/``, 45 files, beside ``docs/``, 1,200 files of which
800 translations, ``docs_src/``, 72 example folders, and ``tests/``); what the
history says is busy counts on top. Display order stays sorted by name: weight
only decides what is shown.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from providers.file_tree.history import History
from providers.file_tree.kinds import ENTRY_NAMES, kind_factor, own_factor, role_factor
from providers.file_tree.tree import Dir, Tree

ROOT_FIRST = 40
"""Root entries listed before anything else; a root with more waits for the rest."""

NEIGHBOURS = 4
"""Entries on either side of a touched file in its directory, in the first round."""


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
            size = role_factor(node.name) * math.log2(2 + _counted_files(node))
            found = kind_factor(node.path, True) * (size + 8 * activity / self._total)
            self._dirs[node.path] = found
        return found

    def file(self, path: str) -> float:
        activity = self._history.activity.get(path, 0.0) if self._history else 0.0
        name = path.rpartition("/")[2]
        entry = 0.5 if name in ENTRY_NAMES else 0.0
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
    """Up to :data:`TWINS` files named as ``path``, those sharing the most leading
    components with it first, then by name.

    Those sharing exactly ``k`` lie below its ``k``-th ancestor and not below the
    next one: the search starts in its own directory and widens one ancestor at a
    time, taking the first few by name at each, until it has enough.
    """
    name = path.rpartition("/")[2]
    if name in ENTRY_NAMES:
        return []  # every package has one: no signal
    parts = path.split("/")
    if name in parts[:-1]:
        return _twins_sorted(tree, path, parts)  # an ancestor could be a twin itself
    found: list[str] = []
    inner: str | None = None
    for depth in range(len(parts), -1, -1):  # from below path itself (a directory?)
        ancestor = "/".join(parts[:depth])
        more = tree.named_below(name, ancestor, inner, TWINS - len(found) + 1)
        found.extend(p for p in more if p != path)
        if len(found) >= TWINS:
            break
        inner = ancestor
    return found[:TWINS]


def _twins_sorted(tree: Tree, path: str, parts: list[str]) -> list[str]:
    """:func:`_twins` by sorting every file of the name."""

    def distance(other: str) -> tuple[int, str]:
        shared = 0
        for a, b in zip(parts, other.split("/"), strict=False):
            if a != b:
                break
            shared += 1
        return (-shared, other)

    found = [p for p in tree.named(path.rpartition("/")[2]) if p != path]
    return sorted(found, key=distance)[:TWINS]


def _counted_files(node: Dir) -> float:
    """``node``'s files, those under translated docs (and generated directories) counted
    by their kind: the copies of the docs in 24 languages are not 24 times the docs."""
    count = float(node.file_count)
    if not node.dir_count:
        return count
    for name, child in node.children()[: node.subdir_count]:
        if child is not None:
            factor = own_factor(name, node.name, True)
            if factor < 1.0:
                count -= (1.0 - factor) * child.file_count
    return count


def _breadth_first(root: Dir, weights: Weights, max_depth: int | None) -> Iterator[str]:
    """Each depth's entries, then the next depth's. At one depth the directories share:
    the k-th entry (heaviest first) of a directory of weight w comes at w / k times its
    kind, so each directory shows entries in proportion to its weight and a light
    entry (a translation) waits for the others; one large directory can no longer take
    the whole budget at its depth before a smaller one shows anything."""
    level = [root]
    depth = 0
    while level and (max_depth is None or depth < max_depth):
        following: list[Dir] = []
        yield from _one_depth(level, weights, following)
        level = following
        depth += 1


def _one_depth(level: list[Dir], weights: Weights, following: list[Dir]) -> Iterator[str]:
    """The entries of ``level``'s directories in shared order (see :func:`_breadth_first`);
    ``following`` gets their subdirectories once they are all listed. A directory's
    entries are looked at only when its weight could be next: its first entry comes at
    its weight at most."""
    ranked = sorted(level, key=lambda node: -weights.directory(node))
    queue: list[tuple[float, int, int, str, Iterator[tuple[float, str]]]] = []
    opened = 0
    while True:
        while opened < len(ranked) and (
            not queue or weights.directory(ranked[opened]) >= -queue[0][0]
        ):
            node = ranked[opened]
            children = weights.children(node)
            following.extend(child for _, child in children if child is not None)
            shares = _shares(node, children, weights.directory(node))
            first = next(shares, None)
            if first is not None:
                heapq.heappush(queue, (-first[0], opened, 0, first[1], shares))
            opened += 1
        if not queue:
            return
        _, order, k, path, shares = heapq.heappop(queue)
        yield path
        found = next(shares, None)
        if found is not None:
            heapq.heappush(queue, (-found[0], order, k + 1, found[1], shares))


def _shares(
    node: Dir, children: list[tuple[str, Dir | None]], weight: float
) -> Iterator[tuple[float, str]]:
    """Each entry's place in the shared order: ``weight`` / k times its kind, never more
    than the entry before it."""
    bound = weight
    for k, (name, child) in enumerate(children, 1):
        factor = own_factor(name.rstrip("/"), node.name, child is not None)
        bound = min(bound, weight * factor / k)
        yield bound, _path(node, name)


def _path(node: Dir, name: str) -> str:
    return f"{node.path}/{name}" if node.path else name


MAX_TOUCHED = 1_000
"""Touched paths one map is ranked around: this turn's newest, then earlier turns'
newest. Each costs a neighbourhood search; a budget shows a few dozen at most, and
100,000 of them took 24 s a turn."""


def order_touched(this_turn: Sequence[str], earlier: Sequence[str]) -> Focus:
    """A :class:`Focus` from this turn's and earlier turns' paths (kept in their order),
    at most :data:`MAX_TOUCHED` of them, the newest."""
    fresh = tuple(dict.fromkeys(this_turn))[-MAX_TOUCHED:]
    taken = set(fresh)
    room = MAX_TOUCHED - len(fresh)
    rest = tuple(
        itertools.islice((p for p in dict.fromkeys(reversed(earlier)) if p not in taken), room)
    )
    return Focus(touched=fresh + rest, fresh=len(fresh))
