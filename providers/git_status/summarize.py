"""A snapshot -> the section's text, within the token budget. Pure and deterministic.

Priority order (the issue's): where we are (branch, upstream, default
branch, operation in progress); the counts; the entries (conflicted, staged,
unstaged, untracked; renames as ``old -> new``); the last N commits.

Over budget, lists collapse before they vanish. A *plan* fixes how detailed
each list is: every entry on its own line, grouped by directory, grouped by
top-level directory, or only counted. Plans run from most to least detailed,
lowest-priority list collapsing first; the first plan whose units ``fit()``
keeps every entry of wins, and ``fit()`` cuts the commits (and, in the last
plan, anything else) at whole units. The section says what it left out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from providers.core.budget import Fit, Renderer, TokenCounter, fit
from providers.core.render import join_blocks
from providers.core.types import Unit
from providers.git_status.entries import Category, Change, categorise, group_lines
from providers.git_status.operation import Operation, OperationKind
from providers.git_status.snapshot import Snapshot


class Detail(enum.Enum):
    FULL = "full"
    DIRECTORY = "directory"
    TOP = "top"
    NONE = "none"


_HEADINGS = {
    Detail.FULL: "",
    Detail.DIRECTORY: " (by directory)",
    Detail.TOP: " (by top-level directory)",
}
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

_HEADER, _COUNTS, _COMMITS = "header", "counts", "commits"


@dataclass(frozen=True)
class Summary:
    """The section's text, its count by the kernel's counter, and whether anything was cut."""

    text: str
    tokens: int
    truncated: bool


@dataclass(frozen=True)
class Options:
    """What the rendering depends on besides the snapshot and the budget."""

    untracked_shown: bool = True
    max_entries: int | None = None


def summarize(
    snapshot: Snapshot, budget: int, counter: TokenCounter, options: Options = Options()
) -> Summary | None:
    """The most detailed rendering that fits ``budget``; None when not even the header fits."""
    changes = categorise(snapshot.status) if snapshot.status is not None else {}
    head_units = [Unit("\n".join(header_lines(snapshot)), group=_HEADER)]
    if snapshot.status is not None:
        head_units.append(Unit(counts_line(snapshot.status.stash, changes, options), group=_COUNTS))
    commit_units = [
        Unit(f"{c.short} {_one_line(c.subject)}", group=_COMMITS, order=i)
        for i, c in enumerate(snapshot.commits)
    ]
    for plan in PLANS:
        detail = dict(zip(Category, plan, strict=True))
        listed = sum(len(changes.get(c, ())) for c in Category if detail[c] is Detail.FULL)
        last = plan is PLANS[-1]
        if not last and options.max_entries is not None and listed > options.max_entries:
            continue
        entry_units = _entry_units(changes, detail)
        units = head_units + entry_units + commit_units
        if not last and _rough_tokens(head_units + entry_units) > budget:
            continue  # cannot keep every entry: skip the search
        collapsed = [c for c in Category if detail[c] is not Detail.FULL and changes.get(c)]
        result = fit(units, budget, _renderer(detail, collapsed), counter)
        if result is None:
            continue
        if last or len(result.kept) >= len(head_units + entry_units):
            return _summary(result, bool(collapsed))
    return None


def _summary(result: Fit, collapsed: bool) -> Summary:
    return Summary(result.texts[0], result.counts[0], result.truncated or collapsed)


def header_lines(snapshot: Snapshot) -> list[str]:
    """Where we are: branch or detached HEAD, upstream, default branch, operations."""
    status = snapshot.status
    if status is None:
        where = f"; HEAD is {snapshot.bare_head}" if snapshot.bare_head else ""
        lines = [f"Bare repository (no working tree){where}"]
    else:
        branch = status.branch
        if branch.head is None:
            short = _short(snapshot, branch.oid)
            line = f"HEAD detached at {short}" if short else "HEAD detached"
        elif branch.oid is None:
            line = f"On branch {branch.head} (no commits yet)"
        else:
            line = f"On branch {branch.head}"
        if branch.upstream is not None:
            if branch.ahead is None or branch.behind is None:
                line += f", upstream {branch.upstream} (gone)"
            elif branch.ahead == branch.behind == 0:
                line += f", up to date with {branch.upstream}"
            else:
                line += f", {branch.ahead} ahead and {branch.behind} behind {branch.upstream}"
        lines = [line]
    if snapshot.default_branch is not None:
        lines.append(f"Default branch: {snapshot.default_branch}")
    lines.extend(_operation_line(op) for op in snapshot.operations)
    return lines


def counts_line(stash: int, changes: Mapping[Category, Sequence[Change]], options: Options) -> str:
    """How many entries of each kind, and stashes: what survives every collapse."""
    parts = [f"{len(changes[c])} {c.value}" for c in Category if changes.get(c)]
    text = "Changes: " + ", ".join(parts) if parts else "Working tree clean"
    if not options.untracked_shown:
        text += " (untracked files not checked)"
    if stash:
        text += f"; {stash} stash{'es' if stash != 1 else ''}"
    return text


def _operation_line(op: Operation) -> str:
    name = {
        OperationKind.MERGE: "Merge",
        OperationKind.REBASE: "Rebase",
        OperationKind.AM: "git am",
        OperationKind.CHERRY_PICK: "Cherry-pick",
        OperationKind.REVERT: "Revert",
        OperationKind.BISECT: "Bisect",
    }[op.kind]
    details = []
    if op.step is not None and op.total is not None:
        details.append(f"step {op.step}/{op.total}")
    if op.kind is OperationKind.REBASE and (op.branch or op.onto):
        what = f"rebasing {op.branch}" if op.branch else "rebasing"
        details.append(f"{what} onto {op.onto[:7]}" if op.onto else what)
    return f"{name} in progress" + (": " + ", ".join(details) if details else "")


def _short(snapshot: Snapshot, oid: str | None) -> str:
    """git's own abbreviation when the log has it, else 7 hex digits."""
    if oid is None:
        return ""
    return next((c.short for c in snapshot.commits if c.oid == oid), oid[:7])


def _entry_units(
    changes: Mapping[Category, Sequence[Change]], detail: Mapping[Category, Detail]
) -> list[Unit]:
    units: list[Unit] = []
    for category in Category:
        found = changes.get(category, ())
        level = detail[category]
        if level is Detail.FULL:
            lines: Sequence[str] = [change.line() for change in found]
        elif level is Detail.NONE:
            lines = ()
        else:
            lines = group_lines(found, 1 if level is Detail.TOP else None)
        units.extend(Unit(line, group=category.value, order=i) for i, line in enumerate(lines))
    return units


def _renderer(detail: Mapping[Category, Detail], collapsed: Sequence[Category]) -> Renderer:
    def render(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        if not kept or kept[0].group != _HEADER:
            return ("",)
        blocks = [unit.text for unit in kept if unit.group in (_HEADER, _COUNTS)]
        for category in Category:
            lines = [u.text for u in kept if u.group == category.value]
            if lines:
                heading = f"{category.value.capitalize()}{_HEADINGS[detail[category]]}:"
                blocks.append("\n".join([heading, *(f"  {line}" for line in lines)]))
        commits = [u.text for u in kept if u.group == _COMMITS]
        if commits:
            blocks.append("\n".join(["Recent commits:", *(f"  {line}" for line in commits)]))
        blocks.append(_note(dropped, collapsed, detail))
        return (join_blocks(blocks),)

    return render


def _note(
    dropped: Sequence[Unit], collapsed: Sequence[Category], detail: Mapping[Category, Detail]
) -> str:
    """Say what the budget left out and where the rest is; "" when nothing was."""
    parts: list[str] = []
    grouped = [c.value for c in collapsed if detail[c] is not Detail.NONE]
    if grouped:
        parts.append(f"{', '.join(grouped)} entries grouped by directory")
    if any(detail[c] is Detail.NONE for c in collapsed):
        parts.append("entry lists counted only")
    counts: dict[str, int] = {}
    for unit in dropped:
        counts[unit.group] = counts.get(unit.group, 0) + 1
    for group, count in counts.items():
        if group == _COUNTS:
            parts.append("counts left out")
        elif group == _COMMITS:
            parts.append(f"{count} recent commit{'s' if count != 1 else ''} left out")
        elif group != _HEADER:
            parts.append(f"{count} {group} line{'s' if count != 1 else ''} left out")
    if not parts:
        return ""
    return f"[Cut to fit the token budget: {'; '.join(parts)}. `git status`, `git log` show all.]"


def _rough_tokens(units: Sequence[Unit]) -> int:
    """A lower bound of the rendering's fallback count, computed without rendering."""
    return sum(len(unit.text.encode("utf-8")) + 1 for unit in units) // 4


def _one_line(text: str) -> str:
    """A subject on one line with no control characters (they could fake structure)."""
    cleaned = "".join(ch if ord(ch) >= 0x20 and ord(ch) != 0x7F else " " for ch in text)
    return " ".join(cleaned.split())
