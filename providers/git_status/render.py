"""The section's text as a render tree (Render): styled lines and lists. Pure and total.

Read back from the text ``summarize`` writes (blocks joined by one blank
line): the header block first (branch, default branch, operations, notes),
then the counts, then one ``Heading:`` block per list and the budget's note.

- the branch line (or detached HEAD, unborn, bare) is bold; its upstream part
  becomes a line of its own, a warning when ahead, behind or gone;
- ``Note:`` lines, operations in progress (a merge or rebase that stopped),
  conflicted entries and a counts line that has conflicts are warnings;
- each list is a bold heading over a list of its entries; commits are dim;
- a bracketed note (what the budget left out) is italic.

Text in any other shape still renders, line by line, as plain text.
"""

from __future__ import annotations

from providers.core.render_tree import Group, ListNode, Node, Text, TextStyle
from providers.git_status.entries import Category

_WARN, _BOLD, _DIM = TextStyle.WARNING, TextStyle.BOLD, TextStyle.DIM
_COMMITS_HEADING = "Recent commits:"
_CONFLICTED = Category.CONFLICTED.value.capitalize()
_UP_TO_DATE = "up to date with "


def render_status(label: str, text: str) -> Node:
    """``label`` is not shown: the section has one, ``git status``, and the frontend has it."""
    blocks = [b for b in text.strip("\n").split("\n\n") if b.strip()]
    children: list[Node] = []
    for number, block in enumerate(blocks):
        lines = block.split("\n")
        if number == 0:
            children.extend(_header(lines))
        elif block.startswith("["):
            children.append(Text(block, TextStyle.ITALIC))
        elif len(lines) > 1 and lines[0].endswith(":") and not lines[0].startswith(" "):
            children.append(_listing(lines[0], lines[1:]))
        else:
            children.extend(Text(line, _WARN if _conflicts(line) else None) for line in lines)
    return Group(tuple(children))


def _header(lines: list[str]) -> list[Node]:
    where, _, upstream = lines[0].partition(", ")  # refs hold no spaces: the first ", " splits
    out: list[Node] = [Text(where, _BOLD)]
    if upstream:
        out.append(Text(upstream, None if upstream.startswith(_UP_TO_DATE) else _WARN))
    for line in lines[1:]:
        warn = line.startswith("Note: ") or " in progress" in line
        out.append(Text(line, _WARN if warn else None))
    return out


def _listing(heading: str, entries: list[str]) -> Node:
    style = None
    if heading.startswith(_CONFLICTED):
        style = _WARN
    elif heading == _COMMITS_HEADING:
        style = _DIM
    heading_style = _WARN if style is _WARN else _BOLD
    items = tuple(Text(entry.removeprefix("  "), style) for entry in entries)
    return Group((Text(heading, heading_style), ListNode(items)))


def _conflicts(line: str) -> bool:
    """The counts line (``Changes: 2 conflicted, 1 staged``) when it counts conflicts."""
    return line.startswith("Changes: ") and f" {Category.CONFLICTED.value}" in line
