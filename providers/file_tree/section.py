"""Step 4, the section: the planned groups fitted to the budget, as one dynamic section.

``core.budget.fit`` keeps the longest prefix of groups whose text fits; each
candidate is written from a fresh :class:`TreeText` with that prefix applied,
so a try costs the size of what it shows, never the size of the tree. The
planner measured every prefix, so the fitter's search writes no text:
only the candidate it confirms with the kernel's count is written.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from providers.core.budget import TokenCounter, fallback_tokens_for_bytes, fit
from providers.core.types import Section, Stability, Unit
from providers.file_tree.plan import Plan, plan
from providers.file_tree.rank import Focus
from providers.file_tree.tree import Tree
from providers.file_tree.tree_text import Annotate, TreeText

LABEL = "file tree"
_SLACK_BYTES = 1024
"""Planning goes this far past the budget (in bytes), in case later steps shrink the text."""


@dataclass(frozen=True)
class Presentation:
    """How to draw the tree: whatever is not about the listing itself."""

    root_label: str
    show_files: bool = True
    max_depth: int | None = None
    unreadable: int = 0
    annotate: Annotate | None = None
    """Symlink targets and repository states for leaves (see :data:`tree_text.Annotate`)."""
    partial: str | None = None
    """Why the listing stopped early (``after 200,000 entries``): the totals say so."""


def build_section(
    tree: Tree,
    presentation: Presentation,
    focus: Focus | Sequence[str],
    budget: int,
    counter: TokenCounter,
) -> Section | None:
    """The file tree section within ``budget`` tokens by ``counter``; None when nothing fits.

    ``focus`` says where the agent is (:class:`~providers.file_tree.rank.Focus`); a plain
    sequence of paths is files touched this turn, with no history.
    """
    if budget <= 0:
        return None
    if not isinstance(focus, Focus):
        focus = Focus(touched=tuple(focus))

    def fresh() -> TreeText:
        return TreeText(
            tree,
            presentation.root_label,
            show_files=presentation.show_files,
            unreadable=presentation.unreadable,
            annotate=presentation.annotate,
            partial=presentation.partial,
        )

    planned = plan(tree, fresh(), focus, presentation.max_depth, budget * 4 + _SLACK_BYTES)
    units = _units(planned, budget)
    texts: dict[int, str] = {}

    def write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        groups = kept[-1].order if kept else 0
        if groups not in texts:
            tree_text = fresh()
            for group in (planned.base, *planned.groups[:groups]):
                for step in group:
                    tree_text.apply(step, measure=False)
            texts[groups] = tree_text.text()
        return (texts[groups],)

    def prefix_estimate(k: int) -> int:
        groups = units[k - 1].order if k else 0
        size = planned.sizes[groups - 1] if groups else planned.base_size
        return fallback_tokens_for_bytes(size)

    result = fit(units, budget, write, counter, prefix_estimate)
    if result is None:
        return None
    truncated = bool(result.dropped) or not planned.exhausted
    return Section(LABEL, result.texts[0], result.counts[0], Stability.DYNAMIC, truncated)


def _units(planned: Plan, budget: int) -> list[Unit]:
    """Units for the fitter: runs of groups, fine just below the local estimate's limit.

    The planner knows every prefix's exact size, so the largest prefix the
    fallback estimate (ceil(bytes / 4)) allows is known: a unit ends exactly
    there. Below it, unit ends step down 1, 2, 4, ... groups, so a denser
    kernel tokenizer still finds a prefix close to the best, while the
    fitter's search writes a handful of candidates instead of one per group.
    ``order`` is the number of groups a prefix ending with the unit holds.
    """
    best = bisect_right(planned.sizes, budget * 4)
    ends = {best - (1 << i) for i in range(best.bit_length()) if best - (1 << i) > 0}
    ends.add(best)
    if best < len(planned.groups):
        ends.add(best + 1)  # the first prefix that does not fit
    return [Unit("", name="expand", order=end) for end in sorted(ends) if end > 0]
