"""The section's text as a render tree (Render): nested lists mirroring its indentation.

Read back from the text ``tree_text`` writes: two spaces a level, every line one
entry (names that could break a line or fake indentation are quoted). A line
followed by deeper lines is an expanded directory: a collapsible, shown
expanded, over a list of its entries; any other line is a text (a file, a
collapsed directory with its counts). ``... N more`` lines and the closing
totals are dim. The root's directory and the totals sit side by side in a
group. Pure and total: text in any other shape still renders, line by line.

Each directory level nests four messages on the wire, and protobuf decoders
refuse messages nested about 100 deep (upb's default), so below
:data:`MAX_NESTED_DIRS` levels the lines are listed flat, indentation kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from providers.core.render_tree import Collapsible, Group, ListNode, Node, Text, TextStyle
from providers.core.section_text import TOTALS_PREFIX
from providers.file_tree.tree_text import INDENT

_MORE = "... "
MAX_NESTED_DIRS = 16
"""Directory levels drawn as nested collapsibles; deeper ones are indented text."""


@dataclass
class _Line:
    text: str
    depth: int
    children: list[_Line] = field(default_factory=list)


def render_file_tree(label: str, text: str) -> Node:
    """``label`` is not shown: the section has one, ``file tree``, and the frontend has it."""
    top: list[_Line] = []
    open_lines: list[_Line] = []  # the chain of lines the next deeper line nests under
    for raw in text.rstrip("\n").split("\n"):
        stripped = raw.lstrip(" ")
        line = _Line(stripped, (len(raw) - len(stripped)) // len(INDENT))
        while open_lines and open_lines[-1].depth >= line.depth:
            open_lines.pop()
        (open_lines[-1].children if open_lines else top).append(line)
        open_lines.append(line)
    return Group(tuple(_node(line) for line in top))


def _node(line: _Line, level: int = 0) -> Node:
    if not line.children:
        return _text(line, line.text)
    if level < MAX_NESTED_DIRS:
        entries = tuple(_node(child, level + 1) for child in line.children)
    else:
        entries = tuple(_flat(line.children, line.depth + 1))
    return Collapsible(line.text, (ListNode(entries),), collapsed_by_default=False)


def _flat(lines: list[_Line], base: int) -> list[Node]:
    """``lines`` and everything under them as texts, indented relative to ``base``."""
    out: list[Node] = []
    pending = list(reversed(lines))
    while pending:  # depth first, in order, without recursion
        line = pending.pop()
        out.append(_text(line, INDENT * (line.depth - base) + line.text))
        pending.extend(reversed(line.children))
    return out


def _text(line: _Line, content: str) -> Text:
    dim = line.text.startswith(_MORE) or (line.depth == 0 and line.text.startswith(TOTALS_PREFIX))
    return Text(content, TextStyle.DIM if dim else None)
