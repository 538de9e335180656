"""Section text helpers shared by every provider: joining blocks, the "left out" note."""

from __future__ import annotations

from collections.abc import Sequence

from providers.core.types import Unit


def join_blocks(blocks: Sequence[str]) -> str:
    """Join non-empty blocks with one blank line, each without trailing blank lines."""
    parts = [b.rstrip("\n") for b in blocks if b.strip()]
    return "\n\n".join(parts) + ("\n" if parts else "")


def left_out_note(dropped: Sequence[Unit], *, how_to_read: str) -> str:
    """Name what the budget left out, grouped by source, so the model can fetch it.

    ``how_to_read`` says how (e.g. "read the file", "run `git status`").
    Returns "" when nothing was dropped.
    """
    if not dropped:
        return ""
    by_group: dict[str, list[str]] = {}
    for unit in dropped:
        names = by_group.setdefault(unit.group, [])
        if unit.name and unit.name not in names:
            names.append(unit.name)
    lines = [f"[Left out to fit the token budget; {how_to_read}:]"]
    for group, names in by_group.items():
        shown = "; ".join(names)
        if group and shown:
            lines.append(f"- {group}: {shown}")
        else:
            lines.append(f"- {group or shown}")
    return "\n".join(lines) + "\n"
