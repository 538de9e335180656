"""Cutting text into whole units the budget fitter keeps or drops.

A markdown unit is one top-level block (paragraph, code block, HTML block,
blockquote, thematic break, front matter) or one top-level list item with
everything nested in it. A heading is glued to the block after it (a
subheading glues on in turn), so a kept heading always has its first
paragraph; a heading with an empty section stands alone. Blank lines and
lines no token covers (link reference definitions) belong to the unit before
them; lines before the first block belong to the first unit. Units are
slices of the original text, line endings included, so joining them gives
the text back.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from markdown_it.token import Token

from providers.core.types import Unit
from providers.markdown.lines import line_offsets, normalise_newlines
from providers.markdown.tokens import MarkdownTooComplex, parse

_LIST_TOKENS = ("bullet_list_open", "ordered_list_open")


@dataclass(frozen=True)
class _Block:
    line: int
    heading: tuple[int, str] | None


MAX_LINE_UNITS = 2_000
"""Units a text cut by lines is cut into at most: past that, each unit is several lines
(a 300,000-line file is 150 lines a unit), so fitting it to a budget stays quick."""


def split_lines(text: str, group: str) -> list[Unit]:
    """One unit per line (line ending kept) for text that is not markdown; runs of lines
    once there would be more than :data:`MAX_LINE_UNITS`."""
    offsets = line_offsets(text)
    step = -(-(len(offsets) - 1) // MAX_LINE_UNITS) or 1
    cuts = [*offsets[:-1:step], offsets[-1]]
    return [
        Unit(text=text[start:end], group=group, name="", order=i)
        for i, (start, end) in enumerate(itertools.pairwise(cuts))
    ]


def split_units(text: str, group: str) -> list[Unit]:
    """Whole blocks in document order, each named by the heading trail it sits under.

    A text too complex for the parser (:class:`MarkdownTooComplex`) is cut into
    lines instead, as text that is not markdown is.
    """
    if not text:
        return []
    offsets = line_offsets(text)
    line_count = len(offsets) - 1
    try:
        tokens = parse(normalise_newlines(text))
    except MarkdownTooComplex:
        return split_lines(text, group)
    blocks = _top_level_blocks(tokens, line_count)
    if not blocks:
        return [Unit(text=text, group=group, name="", order=0)]
    # A unit starts at every block except those right after a heading.
    unit_starts = [i for i in range(len(blocks)) if _starts_unit(blocks, i)]
    trail: list[tuple[int, str]] = []
    units: list[Unit] = []
    for order, first in enumerate(unit_starts):
        following = unit_starts[order + 1] if order + 1 < len(unit_starts) else len(blocks)
        for block in blocks[first:following]:
            if block.heading is not None:
                level = block.heading[0]
                trail = [entry for entry in trail if entry[0] < level] + [block.heading]
        start_line = 0 if order == 0 else blocks[first].line
        end_line = blocks[following].line if following < len(blocks) else line_count
        units.append(
            Unit(
                text=text[offsets[start_line] : offsets[end_line]],
                group=group,
                name=" > ".join(f"{'#' * level} {title}" for level, title in trail),
                order=order,
            )
        )
    return units


def _starts_unit(blocks: list[_Block], i: int) -> bool:
    """Every block starts a unit except one right after a heading it belongs under.

    A heading followed by a heading of the same or a higher rank has an
    empty section: it stays a unit of its own rather than joining the next.
    """
    before = blocks[i - 1].heading if i > 0 else None
    if before is None:
        return True
    here = blocks[i].heading
    return here is not None and here[0] <= before[0]


def _top_level_blocks(tokens: list[Token], line_count: int) -> list[_Block]:
    """Start line of each top-level block (list items stand in for their list)."""
    blocks: list[_Block] = []
    in_list = False
    for index, token in enumerate(tokens):
        if token.type in _LIST_TOKENS and token.level == 0:
            in_list = True
            continue
        if token.level == 0 and token.nesting == -1:
            in_list = False
            continue
        wanted_level = 1 if in_list else 0
        if token.level != wanted_level or token.nesting == -1 or token.map is None:
            continue
        if in_list and token.type != "list_item_open":
            continue
        heading = None
        if token.type == "heading_open":
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            title = " ".join(inline.content.split()) if inline is not None else ""
            heading = (int(token.tag[1:]) if token.tag[1:].isdigit() else 1, title)
        line = min(max(token.map[0], 0), line_count)
        if not blocks or line > blocks[-1].line:
            blocks.append(_Block(line, heading))
    return blocks
