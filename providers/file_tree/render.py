"""Step 4, render: the planned groups fitted to the budget, as one dynamic section.

``core.budget.fit`` keeps the longest prefix of groups whose text fits; each
candidate is rendered from a fresh :class:`Layout` with that prefix applied,
so a try costs the size of what it shows, never the size of the tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from providers.core.budget import TokenCounter, fit
from providers.core.types import Section, Stability, Unit
from providers.file_tree.layout import Layout
from providers.file_tree.plan import plan
from providers.file_tree.tree import Tree

LABEL = "file tree"
_SLACK_BYTES = 1024
"""Planning goes this far past the budget (in bytes), in case later steps shrink the text."""


@dataclass(frozen=True)
class View:
    """How to draw the tree: whatever is not about the listing itself."""

    root_label: str
    show_files: bool = True
    max_depth: int | None = None
    unreadable: int = 0


def render_section(
    tree: Tree,
    view: View,
    touched: Sequence[str],
    budget: int,
    counter: TokenCounter,
) -> Section | None:
    """The file tree section within ``budget`` tokens by ``counter``; None when nothing fits."""
    if budget <= 0:
        return None

    def fresh() -> Layout:
        return Layout(tree, view.root_label, show_files=view.show_files, unreadable=view.unreadable)

    byte_limit = budget * 4 + _SLACK_BYTES
    planned = plan(tree, fresh(), touched, view.max_depth, byte_limit)
    units = [
        Unit("", group=group[0].dir.path(), name="expand", order=i)
        for i, group in enumerate(planned.groups)
    ]

    def render(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        layout = fresh()
        for step in planned.base:
            layout.apply(step, measure=False)
        for unit in kept:
            for step in planned.groups[unit.order]:
                layout.apply(step, measure=False)
        return (layout.text(),)

    result = fit(units, budget, render, counter)
    if result is None:
        return None
    truncated = bool(result.dropped) or not planned.exhausted
    return Section(LABEL, result.texts[0], result.counts[0], Stability.DYNAMIC, truncated)
