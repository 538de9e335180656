"""Step 3, planning: the ranked paths (:mod:`rank`) as expansion steps, grouped so each adds bytes.

Each path is revealed with its ancestors expanded just enough to show it;
a touched path that is not listed (ignored, or not created yet) shows where
it would be. ``max_depth`` bounds every path but the touched ones and the
working directory.

Steps are measured on a :class:`TreeText` as they are generated. A step that
shrinks the text (expanding a one-file directory can be shorter than its
counts) is merged into the group before it, so the text's size only grows
with the number of groups kept. That makes the fitter's binary search exact,
and so more budget never shows less. Generation stops once the text is well
past the budget, so a huge tree costs only what could be shown.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from providers.file_tree.rank import Focus, targets
from providers.file_tree.tree import Dir, Tree
from providers.file_tree.tree_text import Step, TreeText


@dataclass(frozen=True)
class Plan:
    """Steps always applied, then groups of steps to keep as a prefix."""

    base: tuple[Step, ...]
    groups: tuple[tuple[Step, ...], ...]
    sizes: tuple[int, ...]
    """Bytes of the text after each group; nondecreasing."""
    base_size: int
    exhausted: bool
    """False when generation stopped at the byte limit (more could be shown)."""


def ranked_steps(
    tree: Tree, tree_text: TreeText, focus: Focus, max_depth: int | None
) -> Iterator[Step]:
    """Steps in priority order; the caller applies each to ``tree_text`` before asking for
    the next."""
    forced = {*focus.touched, focus.cwd}
    for path in targets(tree, focus, max_depth):
        if max_depth is not None and path not in forced and path.count("/") >= max_depth:
            continue
        yield from _reveal(tree, tree_text, path)


def _reveal(tree: Tree, tree_text: TreeText, path: str) -> Iterator[Step]:
    node = tree.root
    for part in path.rstrip("/").split("/"):
        index = _index(tree_text, node, part)
        if index is None:
            return  # not listed (ignored, or not created yet): its ancestors show where
        if not tree_text.revealed(node, index):
            yield Step(node, (index,), not tree_text.expanded(node))
        child = node.child_dir(part)
        if child is None:
            return
        node = child


def _index(tree_text: TreeText, node: Dir, name: str) -> int | None:
    index = node.index_of(name)
    if index is None or index >= len(tree_text.entries(node)):
        return None
    return index


def plan(
    tree: Tree,
    tree_text: TreeText,
    focus: Focus | Sequence[str],
    max_depth: int | None,
    byte_limit: int,
) -> Plan:
    """Generate and group steps on ``tree_text`` (left fully applied) until past ``byte_limit``.

    A plain sequence for ``focus`` is the files touched this turn.
    """
    if not isinstance(focus, Focus):
        focus = Focus(touched=tuple(focus))
    base: list[Step] = []
    base_size = tree_text.size
    groups: list[list[Step]] = []
    sizes: list[int] = []
    exhausted = True
    for step in ranked_steps(tree, tree_text, focus, max_depth):
        tree_text.apply(step)
        groups.append([step])
        sizes.append(tree_text.size)
        # Keep boundaries only where the size never drops again later.
        while groups and sizes[-1] < (sizes[-2] if len(sizes) > 1 else base_size):
            if len(groups) == 1:
                base.extend(groups.pop())
                base_size = sizes.pop()
            else:
                last, end = groups.pop(), sizes.pop()
                groups[-1].extend(last)
                sizes[-1] = end
        if tree_text.size > byte_limit:
            exhausted = False
            break
    return Plan(
        tuple(base),
        tuple(tuple(g) for g in groups),
        tuple(sizes),
        base_size,
        exhausted,
    )
