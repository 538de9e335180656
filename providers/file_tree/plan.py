"""Step 3, ranking: expansion steps in priority order, grouped so that each group adds bytes.

Priority: the paths in ``files_touched`` (each ancestor expanded, the entry
itself revealed even deep in a large directory), then breadth first from the
root: at each depth every directory's first chunk of entries, then the rest
of their entries, then the next depth. ``max_depth`` bounds the breadth-first
part only; touched paths are always shown. Each step reveals one entry, so a
small budget still shows as much of the top level as fits.

Steps are measured on a :class:`Layout` as they are generated. A step that
shrinks the text (expanding a one-file directory can be shorter than its
counts) is merged into the group before it, so the rendered size only grows
with the number of groups kept. That makes the fitter's binary search exact,
and so more budget never shows less. Generation stops once the text is well
past the budget, so a huge tree costs only what could be shown.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from providers.file_tree.layout import Layout, Step
from providers.file_tree.tree import Dir, Tree

CHUNK = 16
"""Entries of a directory shown before its siblings get theirs; the rest wait their turn."""


@dataclass(frozen=True)
class Plan:
    """Steps always applied, then groups of steps to keep as a prefix."""

    base: tuple[Step, ...]
    groups: tuple[tuple[Step, ...], ...]
    sizes: tuple[int, ...]
    """Rendered bytes after each group; nondecreasing."""
    base_size: int
    exhausted: bool
    """False when generation stopped at the byte limit (more could be shown)."""


def ranked_steps(
    tree: Tree, layout: Layout, touched: Sequence[str], max_depth: int | None
) -> Iterator[Step]:
    """Steps in priority order; the caller applies each to ``layout`` before asking for the next."""
    # 1. Each touched path, its ancestors expanded just enough to show it.
    homes: list[Dir] = []
    for path in touched:
        node = tree.root
        for part in path.split("/"):
            index = _index(layout, node, part)
            if index is None:
                break  # not listed (ignored, or not created yet): show where it would be
            if not layout.revealed(node, index):
                yield Step(node, (index,), not layout.expanded(node))
            child = node.child_dir(part)
            if child is None:
                break
            node = child
        homes.append(node)
    # 2. What surrounds them: the first entries of their directories.
    for node in homes:
        yield from _first_chunk(layout, node)
    # 3. Breadth first from the root.
    level = [tree.root]
    depth = 0
    while level and (max_depth is None or depth < max_depth):
        for node in level:
            yield from _first_chunk(layout, node)
        for node in level:
            yield from _rest(layout, node)
        level = [
            child
            for node in level
            if layout.expanded(node)
            for _, child in layout.entries(node)
            if child is not None
        ]
        depth += 1


def _index(layout: Layout, node: Dir, name: str) -> int | None:
    index = node.index_of(name)
    if index is None or index >= len(layout.entries(node)):
        return None
    return index


def _first_chunk(layout: Layout, node: Dir) -> Iterator[Step]:
    """Expand ``node`` (one entry at a time) up to its first :data:`CHUNK` entries."""
    for index in range(min(CHUNK, len(layout.entries(node)))):
        if not layout.revealed(node, index):
            yield Step(node, (index,), not layout.expanded(node))


def _rest(layout: Layout, node: Dir) -> Iterator[Step]:
    if not layout.expanded(node):
        return
    for index in range(CHUNK, len(layout.entries(node))):
        if not layout.revealed(node, index):
            yield Step(node, (index,), False)


def plan(
    tree: Tree,
    layout: Layout,
    touched: Sequence[str],
    max_depth: int | None,
    byte_limit: int,
) -> Plan:
    """Generate and group steps on ``layout`` (left fully applied) until past ``byte_limit``."""
    base: list[Step] = []
    base_size = layout.size
    groups: list[list[Step]] = []
    sizes: list[int] = []
    exhausted = True
    for step in ranked_steps(tree, layout, touched, max_depth):
        layout.apply(step)
        groups.append([step])
        sizes.append(layout.size)
        # Keep boundaries only where the size never drops again later.
        while groups and sizes[-1] < (sizes[-2] if len(sizes) > 1 else base_size):
            if len(groups) == 1:
                base.extend(groups.pop())
                base_size = sizes.pop()
            else:
                last, end = groups.pop(), sizes.pop()
                groups[-1].extend(last)
                sizes[-1] = end
        if layout.size > byte_limit:
            exhausted = False
            break
    return Plan(
        tuple(base),
        tuple(tuple(g) for g in groups),
        tuple(sizes),
        base_size,
        exhausted,
    )
