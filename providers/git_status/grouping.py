"""Each list's lines at the deepest level the budget allows, subtree by subtree. Pure.

One list's changes (the staged ones, say) form a tree of directories. A list
starts as one line, its changes counted at the deepest directory that holds
them all (``test/: 3200 modified``); two kinds of step refine it:

- *open* a directory: each subdirectory holding changes gets a line of its
  own, at the deepest directory holding all of that subdirectory's changes
  (``test/built-ins/Array/: 3000 modified``, ``test/intl402/: 200 modified``);
- *list* a directory: each of its own files gets a line.

A directory's line counts the changes that no other line shows, so each
change is counted on exactly one line, and a line that would count one
change shows that change instead.

The steps come in one order that depends on the changes alone, never on the
budget: each list's first line (lists in priority order), then again and
again the step that adds the fewest lines (list priority, then path, break
ties), then the line counts, list by list (so they go before any line does).
The summary keeps the longest prefix that fits: each subtree is refined as
deep as the budget allows, the budget goes where it shows the most, more
budget never shows less, and the same changes give the same text.
"""

from __future__ import annotations

import enum
import heapq
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from providers.git_status.changetree import Tree
from providers.git_status.entries import Category, Change, group_line

_RANK = {category: rank for rank, category in enumerate(Category)}
_LINE_FRAME = 3
"""What a list line adds to its text: two spaces before, a newline after."""


class StepKind(enum.Enum):
    SHOW = 0
    """A list's first line (its root directory opened at once when that is the repository's
    root: ``./: 3200 modified`` would only repeat the counts line)."""
    OPEN = 1
    LIST = 2
    SIZES = 3
    """The list's entries get their sizes (line counts)."""


class Step(NamedTuple):
    kind: StepKind
    category: Category
    node: int
    lines: int
    """How many lines the step adds: what orders the steps."""
    size: int = 0
    """How many characters the lines it changes add, frame included (at least what the
    step costs the page: a heading can shrink, but its lines are there)."""


@dataclass
class State:
    """Which steps were taken: what each list shows."""

    shown: set[Category] = field(default_factory=set)
    opened: dict[Category, set[int]] = field(default_factory=dict)
    listed: dict[Category, set[int]] = field(default_factory=dict)
    sized: set[Category] = field(default_factory=set)


@dataclass(frozen=True)
class Listing:
    """One list's lines: whether any of them counts several changes, and whether any shows
    a change without the size it has (its SIZES step not taken)."""

    lines: tuple[str, ...]
    grouped: bool
    unsized: bool = False


class Lists:
    """Every non-empty list's tree, its steps and its lines after any prefix of them.

    ``sizes`` maps a list's paths to the size shown after them once the list's
    SIZES step is taken (`` (+40 -3)``); ``fixed`` to one always shown
    (`` (1,500 files)``).
    """

    def __init__(
        self,
        changes: Mapping[Category, Sequence[Change]],
        sizes: Mapping[Category, Mapping[str, str]],
        fixed: Mapping[Category, Mapping[str, str]],
    ) -> None:
        self.trees = {c: Tree(changes[c]) for c in Category if changes.get(c)}
        self._sizes = sizes
        self._fixed = fixed

    def sized(self) -> list[Category]:
        """The non-empty lists that have sizes to show (after a SIZES step)."""
        return [c for c in self.trees if self._sizes.get(c)]

    def steps(self, max_entries: int | None) -> Iterator[Step]:
        """Every step in its fixed order, skipping those that would list more than
        ``max_entries`` changes one per line."""
        state = self.fresh()
        heap: list[tuple[int, int, str, int, Step]] = []
        entries = 0

        def offer(category: Category, nodes: Sequence[int]) -> None:
            path = self.trees[category].paths
            for node in nodes:
                for kind in (StepKind.OPEN, StepKind.LIST):
                    found = self._cost(state, kind, category, node)
                    if found is not None:
                        step = Step(kind, category, node, found[0])
                        heapq.heappush(
                            heap, (found[0], _RANK[category], path[node], kind.value, step)
                        )

        def take(step: Step) -> Step:
            before = (
                0 if step.kind is StepKind.SHOW else self._size(state, step.category, step.node)
            )
            newly = self.apply(state, step)
            after = sum(self._size(state, step.category, node) for node in {step.node, *newly})
            if step.kind is StepKind.LIST:
                files = self.trees[step.category].files[step.node]
                after += sum(len(self._entry(state, change)[1]) + _LINE_FRAME for change in files)
            offer(step.category, newly)
            return step._replace(size=after - before)

        for category in self.trees:
            lines, added = self._show_cost(category)
            if max_entries is None or entries + added <= max_entries:
                entries += added
                yield take(Step(StepKind.SHOW, category, 0, lines))
        while heap:
            lines, *_, step = heapq.heappop(heap)
            found = self._cost(state, step.kind, step.category, step.node)
            if found is None:
                continue
            if found[0] != lines:  # the other step on this directory made it cheaper
                step = step._replace(lines=found[0])
                path = self.trees[step.category].paths[step.node]
                heapq.heappush(heap, (found[0], _RANK[step.category], path, step.kind.value, step))
                continue
            if max_entries is None or entries + found[1] <= max_entries:
                entries += found[1]
                yield take(step)
        for category in self.sized():
            if category in state.shown:
                yield Step(StepKind.SIZES, category, 0, 0)

    def fresh(self) -> State:
        return State(opened={c: set() for c in self.trees}, listed={c: set() for c in self.trees})

    def _folds(self, category: Category) -> bool:
        """Whether the list's first line opens its root at once (the repository's root)."""
        tree = self.trees[category]
        return tree.paths[0] == "" and bool(tree.kids[0]) and tree.total[0] > 1

    def _show_cost(self, category: Category) -> tuple[int, int]:
        """(lines, changes listed one per line) of a list's first line(s)."""
        tree = self.trees[category]
        if not self._folds(category):
            return 1, int(tree.total[0] == 1)
        rest = len(tree.files[0])
        return len(tree.kids[0]) + (rest > 0), tree.lone_kids[0] + (rest == 1)

    def _cost(
        self, state: State, kind: StepKind, category: Category, node: int
    ) -> tuple[int, int] | None:
        """(lines added, changes newly listed one per line) by a step; None when it has
        nothing to do (done already, or the directory's line shows one change)."""
        tree = self.trees[category]
        opened = node in state.opened[category]
        listed = node in state.listed[category]
        files = len(tree.files[node])
        if (0 if listed else files) + (0 if opened else tree.below[node]) < 2:
            return None
        if kind is StepKind.OPEN:
            if opened or not tree.kids[node]:
                return None
            rest = 0 if listed else files
            return len(tree.kids[node]) - (rest == 0), tree.lone_kids[node] + (rest == 1)
        if listed or not files:
            return None
        rest = 0 if opened else tree.below[node]
        return files - (rest == 0), files + (rest == 1)

    def apply(self, state: State, step: Step) -> list[int]:
        """Take ``step``; the directories that got a line of their own."""
        tree = self.trees[step.category]
        opened, listed = state.opened[step.category], state.listed[step.category]
        node = step.node
        if step.kind is StepKind.SHOW:
            state.shown.add(step.category)
            if self._folds(step.category):
                opened.add(0)
                return [0, *tree.kids[0]]
            return [0]
        if step.kind is StepKind.OPEN:
            opened.add(node)
            return list(tree.kids[node])
        if step.kind is StepKind.LIST:
            listed.add(node)
            if node not in opened and len(tree.kids[node]) == 1:
                opened.add(node)  # its line would count one subdirectory's changes: name it
                return list(tree.kids[node])
            return []
        state.sized.add(step.category)
        return []

    def state_after(self, steps: Sequence[Step]) -> State:
        state = self.fresh()
        for step in steps:
            self.apply(state, step)
        return state

    def listing(self, state: State, category: Category) -> Listing:
        """``category``'s lines in ``state``, sorted by path; none when it is not shown."""
        if category not in state.shown:
            return Listing((), False)
        tree = self.trees[category]
        opened, listed = state.opened[category], state.listed[category]
        out: list[tuple[str, str]] = []
        grouped = False
        pending = [0]
        while pending:
            node = pending.pop()
            if tree.single[node] is None:
                if node in opened:
                    pending.extend(tree.kids[node])
                if node in listed:
                    out.extend(self._entry(state, change) for change in tree.files[node])
            line = self._line(state, category, node)
            if line is not None:
                out.append(line[:2])
                grouped = grouped or line[2]
        out.sort()
        sizes = self._sizes.get(category, {}) if category not in state.sized else {}
        unsized = any(path in sizes for path, _ in out)
        return Listing(tuple(text for _, text in out), grouped, unsized)

    def _size(self, state: State, category: Category, node: int) -> int:
        line = self._line(state, category, node)
        return len(line[1]) + _LINE_FRAME if line is not None else 0

    def _line(self, state: State, category: Category, node: int) -> tuple[str, str, bool] | None:
        """The line for what ``node`` holds that no other line shows: (sort key, text,
        whether it counts several changes); None when every change has a line elsewhere."""
        tree = self.trees[category]
        single = tree.single[node]
        if single is not None:
            return (*self._entry(state, single), False)
        is_open = node in state.opened[category]
        is_listed = node in state.listed[category]
        files = () if is_listed else tree.files[node]
        below = 0 if is_open else tree.below[node]
        count = len(files) + below
        if count == 0:
            return None
        if count == 1:
            found = files[0] if files else tree.single[tree.kids[node][0]]
            assert found is not None  # one change below: one subdirectory holding it
            return (*self._entry(state, found), False)
        path = tree.paths[node]
        if not is_open and not is_listed:
            verbs: Mapping[str, int] = tree.verbs[node]
        elif is_open:
            verbs = tree.own[node]
        else:
            own = tree.own[node]
            verbs = {verb: n - own.get(verb, 0) for verb, n in tree.verbs[node].items()}
        return path, group_line(path, verbs), True

    def _entry(self, state: State, change: Change) -> tuple[str, str]:
        category = change.category
        size = self._fixed.get(category, {}).get(change.path, "")
        if category in state.sized:
            size = self._sizes.get(category, {}).get(change.path, "") or size
        return change.path, change.line(size)


__all__ = ["Listing", "Lists", "State", "Step", "StepKind"]
