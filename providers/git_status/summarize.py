"""A snapshot -> the section's text, within the token budget. Pure and deterministic.

Priority order (the issue's): where we are (branch, upstream, default
branch, operation in progress); the counts; the entries (conflicted, staged,
unstaged, untracked; renames as ``old -> new``); the last N commits.

Over budget, lists collapse before they vanish. A *plan* fixes how detailed
each list is: every entry on its own line, grouped by directory, grouped by
top-level directory, or only counted. Plans run from most to least detailed,
the lowest-priority list collapsing first, and a list is never grouped where
grouping would not shorten it. The first plan whose units ``fit()`` keeps
every entry of wins; ``fit()`` cuts the commits at whole units. The last
resort keeps whatever prefix fits, with the shortest note. The section always
says what it left out, and that ``git status`` / ``git log`` show the rest.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from providers.core.budget import TokenCounter, Writer, fit
from providers.core.left_out import join_blocks
from providers.core.types import Unit
from providers.git_status.entries import (
    Category,
    Change,
    Tally,
    categorise,
    directories,
    group_lines,
    tally,
)
from providers.git_status.header import counts_line, header_lines
from providers.git_status.snapshot import Snapshot


class Detail(enum.Enum):
    FULL = "full"
    DIRECTORY = "directory"
    TOP = "top"
    NONE = "none"


_F, _D, _T, _N = Detail.FULL, Detail.DIRECTORY, Detail.TOP, Detail.NONE
PLANS: tuple[tuple[Detail, ...], ...] = (
    (_F, _F, _F, _F),
    (_F, _F, _F, _D),
    (_F, _F, _D, _D),
    (_F, _D, _D, _D),
    (_D, _D, _D, _D),
    (_T, _T, _T, _T),
    (_N, _N, _N, _N),
)
"""Detail per category (in :class:`Category` order), most detailed first."""

_HEADINGS = {_F: "", _D: " (by directory)", _T: " (by top-level directory)", _N: ""}
_MIN_LINE_BYTES = {_F: 4, _D: 12, _T: 12, _N: 0}
"""The shortest possible line at each level: ``  a\n``, ``  a/: 1 added\n``."""
_HEADER, _COUNTS, _COMMITS = "header", "counts", "commits"
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
    lines = _Lines(changes)
    tried: set[tuple[Detail, ...]] = set()
    for plan in PLANS:
        detail = tuple(lines.effective(c, level) for c, level in zip(Category, plan, strict=True))
        if detail in tried:
            continue
        tried.add(detail)
        if options.max_entries is not None and lines.listed(detail) > options.max_entries:
            continue
        if lines.least_tokens(detail, head) > budget:
            continue  # cannot keep every entry: skip even building the lines
        entries = lines.units(detail)
        if _rough_tokens(head + entries) > budget:
            continue  # cannot keep every entry: skip the search
        result = _fit(head + entries + commits, budget, counter, detail, lines, terse=False)
        if result is not None and result[1] >= len(head) + len(entries):
            return result[0]
    last = (_N, _N, _N, _N)
    found = _fit(head + commits, budget, counter, last, lines, terse=True)
    return found[0] if found is not None else None


class _Lines:
    """Each category's lines at each level of detail, computed once per summarize."""

    def __init__(self, changes: Mapping[Category, Sequence[Change]]) -> None:
        self._changes = changes
        self._cache: dict[tuple[Category, Detail], tuple[str, ...]] = {}
        self._tallies: dict[Category, Tally] = {}
        self._counts: dict[tuple[Category, Detail], int] = {}

    def lines(self, category: Category, level: Detail) -> tuple[str, ...]:
        key = (category, level)
        if key not in self._cache:
            found = self._changes.get(category, ())
            if level is _F:
                self._cache[key] = tuple(change.line() for change in found)
            elif level is _N:
                self._cache[key] = ()
            else:
                depth = 1 if level is _T else None
                self._cache[key] = group_lines(self._tally(category), depth)
        return self._cache[key]

    def count(self, category: Category, level: Detail) -> int:
        """How many lines ``category`` takes at ``level``, without writing them."""
        if level is _F:
            return len(self._changes.get(category, ()))
        if level is _N:
            return 0
        key = (category, level)
        if key not in self._counts:
            depth = 1 if level is _T else None
            self._counts[key] = len(directories(self._tally(category), depth))
        return self._counts[key]

    def least_tokens(self, detail: Sequence[Detail], head: Sequence[Unit]) -> int:
        """A cheap lower bound of a plan's text with every entry kept."""
        size = sum(len(unit.text) + 1 for unit in head)
        for category, level in zip(Category, detail, strict=True):
            size += self.count(category, level) * _MIN_LINE_BYTES[level]
        return size // 4

    def _tally(self, category: Category) -> Tally:
        if category not in self._tallies:
            self._tallies[category] = tally(self._changes.get(category, ()))
        return self._tallies[category]

    def listed(self, detail: Sequence[Detail]) -> int:
        """How many entries a plan lists one per line (what ``max_entries`` caps)."""
        return sum(
            self.count(c, _F) for c, level in zip(Category, detail, strict=True) if level is _F
        )

    def effective(self, category: Category, level: Detail) -> Detail:
        """``level``, or a more detailed one when grouping would not shorten the list."""
        if level is _T and self.count(category, _T) >= self.count(category, _D):
            level = _D
        if level is _D and self.count(category, _D) >= self.count(category, _F):
            level = _F
        return level

    def collapsed(self, detail: Sequence[Detail]) -> list[tuple[Category, Detail]]:
        """The non-empty categories shown in less than full detail."""
        return [
            (c, level)
            for c, level in zip(Category, detail, strict=True)
            if level is not _F and self._changes.get(c)
        ]

    def units(self, detail: Sequence[Detail]) -> list[Unit]:
        return [
            Unit(line, group=category.value, order=i)
            for category, level in zip(Category, detail, strict=True)
            for i, line in enumerate(self.lines(category, level))
        ]


def _fit(
    units: Sequence[Unit],
    budget: int,
    counter: TokenCounter,
    detail: Sequence[Detail],
    lines: _Lines,
    *,
    terse: bool,
) -> tuple[Summary, int] | None:
    """``fit()`` under one plan: the summary and how many units it kept."""
    collapsed = lines.collapsed(detail)
    lists = sum(1 for category in Category if lines.count(category, _F))
    result = fit(units, budget, _writer(detail, collapsed, lists, terse=terse), counter)
    if result is None:
        return None
    summary = Summary(result.texts[0], result.counts[0], result.truncated or bool(collapsed))
    return summary, len(result.kept)


def _writer(
    detail: Sequence[Detail],
    collapsed: Sequence[tuple[Category, Detail]],
    lists: int,
    *,
    terse: bool,
) -> Writer:
    headings = {
        category: f"{category.value.capitalize()}{_HEADINGS[level]}:"
        for category, level in zip(Category, detail, strict=True)
    }

    def write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        if not kept or kept[0].group != _HEADER:
            return ("",)
        blocks = [unit.text for unit in kept if unit.group in (_HEADER, _COUNTS)]
        for category in Category:
            shown = [f"  {u.text}" for u in kept if u.group == category.value]
            if shown:
                blocks.append("\n".join([headings[category], *shown]))
        commits = [f"  {u.text}" for u in kept if u.group == _COMMITS]
        if commits:
            blocks.append("\n".join(["Recent commits:", *commits]))
        if terse:
            blocks.append(_TERSE_NOTE if dropped or collapsed else "")
        else:
            blocks.append(_note(dropped, collapsed, lists))
        return (join_blocks(blocks),)

    return write


def _note(dropped: Sequence[Unit], collapsed: Sequence[tuple[Category, Detail]], lists: int) -> str:
    """Say what the budget left out and where the rest is; "" when nothing was.

    ``lists`` is how many lists have entries: when all of them collapsed
    alike, the note says "lists" instead of naming each.
    """
    parts: list[str] = []
    levels = {level for _, level in collapsed} if len(collapsed) == lists else set()
    for level, how in ((_D, "grouped by directory"), (_T, "grouped by top directory")):
        names = [c.value for c, shown in collapsed if shown is level]
        if names:
            parts.append(f"{'lists' if len(levels) == 1 else ', '.join(names)} {how}")
    counted = [c.value for c, shown in collapsed if shown is _N]
    if counted:
        parts.append(f"{'lists' if len(levels) == 1 else ', '.join(counted)} only counted")
    left: dict[str, int] = {}
    for unit in dropped:
        left[unit.group] = left.get(unit.group, 0) + 1
    for group, count in left.items():
        if group == _COMMITS:
            parts.append(f"{count} commit{'s' if count != 1 else ''} left out")
        elif group not in (_HEADER, _COUNTS):
            parts.append(f"{count} {group} line{'s' if count != 1 else ''} left out")
    if not parts:
        return ""
    where = []
    if collapsed or any(u.group not in (_HEADER, _COUNTS, _COMMITS) for u in dropped):
        where.append("`git status`")
    if any(u.group == _COMMITS for u in dropped):
        where.append("`git log`")
    return f"[Token budget: {', '.join(parts)}; see {' and '.join(where)}.]"


def _rough_tokens(units: Sequence[Unit]) -> int:
    """A lower bound of the text's fallback count, computed without writing it."""
    return sum(len(unit.text.encode("utf-8")) + 1 for unit in units) // 4


def _one_line(text: str) -> str:
    """A subject on one line with no control characters (they could fake structure)."""
    cleaned = "".join(ch if ord(ch) >= 0x20 and ord(ch) != 0x7F else " " for ch in text)
    return " ".join(cleaned.split())
