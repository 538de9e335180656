"""A snapshot -> the section's text, within the token budget. Pure and deterministic.

Priority order (the issue's): where we are (branch, upstream, default
branch, operation in progress); the counts; the entries (conflicted, staged,
unstaged, untracked; renames as ``old -> new``), with their sizes; the last
N commits.

Over budget, lists are grouped by directory before they vanish, each subtree
at the deepest level that fits (:mod:`providers.git_status.grouping`: a fixed
order of steps, each showing more). The longest prefix of those steps whose
rendering ``fit()`` keeps wins, with every commit left out; then ``fit()``
cuts the commits into what is left, at whole units (when everything fits, one
``fit()`` says so: one count by the kernel). The last resort keeps
whatever prefix of the header and commits fits, with the shortest note. The
section always says what it left out, and where the rest is (``git status``,
``git diff --stat``, ``git log``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from providers.core.budget import Fit, TokenCounter, estimate, fit
from providers.core.left_out import join_blocks
from providers.core.types import Unit
from providers.git_status.entries import Category, categorise
from providers.git_status.grouping import Listing, Lists, State, Step
from providers.git_status.header import counts_line, header_lines
from providers.git_status.sizes import folder_texts, line_count_texts
from providers.git_status.snapshot import Snapshot

_HEADER, _COUNTS, _STEP, _COMMITS = "header", "counts", "step", "commits"
_TERSE_NOTE = "[Token budget: cut; see `git status` and `git log`.]"


@dataclass(frozen=True)
class Options:
    """What the text depends on besides the snapshot and the budget."""

    untracked_shown: bool = True
    max_entries: int | None = None


@dataclass(frozen=True)
class Summary:
    """The section's text, its count by the kernel's counter, and whether anything was cut."""

    text: str
    tokens: int
    truncated: bool


def summarize(
    snapshot: Snapshot, budget: int, counter: TokenCounter, options: Options = Options()
) -> Summary | None:
    """The most detailed text that fits ``budget``; None when not even the header fits."""
    changes = categorise(snapshot.status) if snapshot.status is not None else {}
    head = [Unit("\n".join(header_lines(snapshot)), group=_HEADER)]
    if snapshot.status is not None:
        counts = counts_line(
            snapshot.status.stash, changes, untracked_shown=options.untracked_shown
        )
        head.append(Unit(counts, group=_COUNTS))
    commits = [
        Unit(f"{c.short} {_one_line(c.subject)}", group=_COMMITS, order=i)
        for i, c in enumerate(snapshot.commits)
    ]
    lists = Lists(changes, line_count_texts(snapshot.sizes), folder_texts(snapshot.sizes))
    steps = _candidates(lists, head, budget, options.max_entries)
    page = _Page(lists, steps, commits)
    units = [Unit("", group=_STEP, order=i) for i in range(len(steps))]
    everything = head + units + commits
    if estimate(page.render(everything, ())) <= budget:  # the usual case: one count
        whole = fit(everything, budget, page.render, counter)
        if whole is not None and not whole.dropped:
            return page.summary(whole)
    lists_only = fit(head + units, budget, page.render_lists, counter)
    if lists_only is not None and len(lists_only.kept) >= len(head):
        kept = units[: len(lists_only.kept) - len(head)]
        found = fit(head + kept + commits, budget, page.render, counter)
        if found is not None and len(found.kept) >= len(head) + len(kept):
            return page.summary(found)
        return page.summary(lists_only, commits_out=bool(commits))
    last = fit(head + commits, budget, page.render_terse, counter)
    return page.summary(last) if last is not None else None


def _candidates(
    lists: Lists, head: Sequence[Unit], budget: int, max_entries: int | None
) -> list[Step]:
    """The steps that might fit: the prefix of their order whose lines alone (counted as
    the fallback counts, which is how ``fit()`` searches) are within budget."""
    least = sum(len(unit.text) + 1 for unit in head)
    found: list[Step] = []
    for step in lists.steps(max_entries):
        least += step.size
        if least // 4 > budget:
            break
        found.append(step)
    return found


class _Page:
    """Renders the section from how many steps and commits were kept."""

    def __init__(self, lists: Lists, steps: Sequence[Step], commits: Sequence[Unit]) -> None:
        self._lists = lists
        self._steps = steps
        self._commits = commits
        self._states: dict[int, State] = {}
        self._listings: dict[tuple[int, Category], Listing] = {}

    def render_lists(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        """Every commit left out, whatever the units say: the lists are fitted first."""
        return self.render(kept, [*dropped, *self._commits])

    def render_terse(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return self._text(kept, dropped, terse=True)

    def render(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return self._text(kept, dropped, terse=False)

    def summary(self, found: Fit, *, commits_out: bool = False) -> Summary:
        steps = sum(1 for unit in found.kept if unit.group == _STEP)
        cut = found.truncated or commits_out or bool(self._left_out(steps))
        cut = cut or self._uncounted(steps)
        return Summary(found.texts[0], found.counts[0], cut)

    def _state(self, steps: int) -> State:
        if steps not in self._states:
            self._states[steps] = self._lists.state_after(self._steps[:steps])
        return self._states[steps]

    def _listing(self, steps: int, category: Category) -> Listing:
        key = (steps, category)
        if key not in self._listings:
            self._listings[key] = self._lists.listing(self._state(steps), category)
        return self._listings[key]

    def _text(
        self, kept: Sequence[Unit], dropped: Sequence[Unit], *, terse: bool
    ) -> tuple[str, ...]:
        if not kept or kept[0].group != _HEADER:
            return ("",)
        steps = sum(1 for unit in kept if unit.group == _STEP)
        blocks = [unit.text for unit in kept if unit.group in (_HEADER, _COUNTS)]
        for category in Category:
            if category not in self._lists.trees:
                continue
            listing = self._listing(steps, category)
            if listing.lines:
                by = " (by directory)" if listing.grouped else ""
                heading = f"{category.value.capitalize()}{by}:"
                blocks.append("\n".join([heading, *(f"  {line}" for line in listing.lines)]))
        shown = [f"  {unit.text}" for unit in kept if unit.group == _COMMITS]
        if shown:
            blocks.append("\n".join(["Recent commits:", *shown]))
        commits_out = sum(1 for unit in dropped if unit.group == _COMMITS)
        lines_out = any(unit.group not in (_COMMITS, _STEP) for unit in dropped)
        if terse:
            out = commits_out or lines_out or self._left_out(steps) or self._uncounted(steps)
            blocks.append(_TERSE_NOTE if out else "")
        else:
            left_out = self._left_out(steps)
            every = len(left_out) == len(self._lists.trees) > 1
            blocks.append(_note(left_out, every, self._uncounted(steps), commits_out))
        return (join_blocks(blocks),)

    def _left_out(self, steps: int) -> list[tuple[Category, bool]]:
        """The non-empty lists not shown in full: (list, grouped rather than only counted)."""
        found = []
        for category in self._lists.trees:
            if category not in self._state(steps).shown:
                found.append((category, False))
            elif self._listing(steps, category).grouped:
                found.append((category, True))
        return found

    def _uncounted(self, steps: int) -> bool:
        """Whether a line shows a change without the line counts it has."""
        return any(self._listing(steps, c).unsized for c in self._lists.sized())


def _note(
    left_out: Sequence[tuple[Category, bool]], every: bool, uncounted: bool, commits: int
) -> str:
    """Say what the budget left out and where the rest is; "" when nothing was.

    When ``every`` list (of several) is left out alike, the note says "lists"
    instead of naming each.
    """
    parts: list[str] = []
    every = every and len({grouped for _, grouped in left_out}) == 1
    for grouped, how in ((True, "grouped by directory"), (False, "only counted")):
        names = [c.value for c, shown in left_out if shown is grouped]
        if names:
            parts.append(f"{'lists' if every else ', '.join(names)} {how}")
    if uncounted:
        parts.append("line counts left out")
    if commits:
        parts.append(f"{commits} commit{'s' if commits != 1 else ''} left out")
    if not parts:
        return ""
    where = []
    if left_out:
        where.append("`git status`")
    if uncounted:
        where.append("`git diff --stat`")
    if commits:
        where.append("`git log`")
    return f"[Token budget: {', '.join(parts)}; see {' and '.join(where)}.]"


def _one_line(text: str) -> str:
    """A subject on one line with no control characters (they could fake structure)."""
    cleaned = "".join(ch if ord(ch) >= 0x20 and ord(ch) != 0x7F else " " for ch in text)
    return " ".join(cleaned.split())
