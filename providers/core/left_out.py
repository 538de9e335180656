"""Section text helpers shared by every provider: joining blocks, the "left out" note."""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

from providers.core.types import Unit


def join_blocks(blocks: Sequence[str]) -> str:
    """Join non-empty blocks with one blank line, each without trailing blank lines."""
    parts = [b.rstrip("\n") for b in blocks if b.strip()]
    return "\n\n".join(parts) + ("\n" if parts else "")


MAX_NAMED_PARTS = 12
"""Headings one file's line of the note lists; past that it counts the rest."""

MAX_NAMED_GROUPS = 40
"""Files the note names one per line; past that it counts the rest, so the note of a
thousand left-out rule files still fits a budget (it once took the whole answer)."""

TRAIL_SEPARATOR = " > "


def left_out_note(
    dropped: Sequence[Unit], *, how_to_read: str, partly_shown: Collection[str] = ()
) -> str:
    """Name what the budget left out, grouped by source, so the model can fetch it.

    ``how_to_read`` says how (e.g. "read the file", "run `git status`").
    Sources in ``partly_shown`` are marked so: the model then knows the text
    it has is the start of the file, not all of it. Each heading trail is
    written once per file (``# Guide > ## A, ## B``, not ``# Guide > ## A;
    # Guide > ## B``): a long file's note stays a line, not a page.
    Returns "" when nothing was dropped.
    """
    if not dropped:
        return ""
    by_group: dict[str, dict[str, None]] = {}  # ordered sets: 40,000 headings stay linear
    for unit in dropped:
        names = by_group.setdefault(unit.group, {})
        if unit.name:
            names[unit.name] = None
    lines = [left_out_header(how_to_read)]
    lines.extend(
        left_out_line(group, list(names), partly_shown=group in partly_shown)
        for group, names in itertools.islice(by_group.items(), MAX_NAMED_GROUPS)
    )
    if len(by_group) > MAX_NAMED_GROUPS:
        lines.append(f"- and {len(by_group) - MAX_NAMED_GROUPS:,} more files")
    return "\n".join(lines) + "\n"


def left_out_header(how_to_read: str) -> str:
    """The note's first line."""
    return f"[Left out to fit the token budget; {how_to_read}:]"


def left_out_line(group: str, names: Sequence[str], *, partly_shown: bool = False) -> str:
    """One source's line of the note: its label and what of it was left out."""
    label = f"{group} (partly shown)" if partly_shown else group
    shown = compact_trails(names)
    if group and shown:
        return f"- {label}: {shown}"
    return f"- {label or shown}"


def compact_trails(names: Sequence[str]) -> str:
    """Heading trails with each parent written once: ``# A (## x, ## y); # B``."""
    children: dict[str, dict[str, None]] = {}
    for name in names:
        top, _, rest = name.partition(TRAIL_SEPARATOR)
        under = children.setdefault(top, {})
        if rest:
            under[rest] = None
    parts = [f"{top} ({', '.join(under)})" if under else top for top, under in children.items()]
    if len(parts) > MAX_NAMED_PARTS:
        more = len(parts) - MAX_NAMED_PARTS
        parts = [*parts[:MAX_NAMED_PARTS], f"and {more} more top-level sections"]
    return "; ".join(parts)
