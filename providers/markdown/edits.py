"""Cutting comment spans out of source lines without stranding blanks.

A token's lines are joined into one region; every cut is decided on the
original text (so a line with thousands of comments costs one pass) and
the region is split back into the same source lines, a line merged into the
one before it when a cut took its newline. Blanks a comment leaves behind
go with it: those before it when the phrase ends right after it (end of
line, closing punctuation, a closing emphasis run: no accidental hard break,
``*em*`` stays emphasis), those after it when it starts the line's text or
follows a blank. A line whose text the cuts empty goes, its list marker
excepted.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence

from providers.markdown.tokens import ContentMap

Lines = list[str | None]
_CLOSING = ".,;:!?)]}"
_EMPHASIS_LOOKAHEAD = 64


def without(content: str, spans: Sequence[tuple[int, int]]) -> str:
    """``content`` minus sorted, disjoint (start, end) spans."""
    pieces, pos = [], 0
    for start, end in spans:
        pieces.append(content[pos:start])
        pos = end
    pieces.append(content[pos:])
    return "".join(pieces)


def remove_spans(
    found: ContentMap, spans: Sequence[tuple[int, int]], view: Sequence[str], out: Lines
) -> None:
    """Cut a token's content spans out of its source lines in ``out``, in place."""
    first = found.first_line
    last = min(len(out), first + len(found.base))
    lines = out[first:last]
    if any(line is None for line in lines):
        return
    original = [line or "" for line in lines]
    starts = list(itertools.accumulate((len(line) + 1 for line in original), initial=0))
    region = "\n".join(original)
    cuts = _cuts(region, [_region_span(found, starts, span) for span in spans], found, starts)
    if not cuts:
        return
    kept_newline = [not _inside(cuts, starts[k] - 1) for k in range(1, len(original))]
    parts = without(region, cuts).split("\n")
    heads = [0] + [k for k in range(1, len(original)) if kept_newline[k - 1]]
    for k in range(len(original)):
        out[first + k] = None
    for k, text in zip(heads, parts, strict=False):
        body = found.base[k]
        if text == original[k] or text[body:].strip() or not view[first + k][body:].strip():
            out[first + k] = text
            continue
        prefix = text[:body].rstrip()
        out[first + k] = prefix if prefix.strip(" \t>") else None


def _region_span(
    found: ContentMap, starts: Sequence[int], span: tuple[int, int]
) -> tuple[int, int]:
    (line_a, col_a), (line_b, col_b) = found.locate(span[0]), found.locate(span[1])
    index_a, index_b = line_a - found.first_line, line_b - found.first_line
    return starts[index_a] + col_a, starts[index_b] + col_b


def _cuts(
    region: str, spans: Sequence[tuple[int, int]], found: ContentMap, starts: Sequence[int]
) -> list[tuple[int, int]]:
    """Merged (start, end) ranges to delete: the spans plus the blanks they strand."""
    if any(not 0 <= a <= b <= len(region) for a, b in spans) or any(
        spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1)
    ):
        return []
    # First kept non-blank position after each span, skipping later spans.
    after = [0] * len(spans)
    for i in reversed(range(len(spans))):
        limit = spans[i + 1][0] if i + 1 < len(spans) else len(region)
        pos = spans[i][1]
        while pos < limit and region[pos] in " \t":
            pos += 1
        after[i] = after[i + 1] if pos == limit and i + 1 < len(spans) else pos
    cuts: list[tuple[int, int]] = []
    for (start, end), next_kept in zip(spans, after, strict=True):
        line = bisect.bisect_right(starts, start) - 1
        body = starts[line] + found.base[line]
        if _closes(region, next_kept):
            while start > body and region[start - 1] in " \t":
                start -= 1
        elif start == body or region[start - 1] in " \t":
            end = next_kept
        cuts.append((start, end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(cuts):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _inside(cuts: Sequence[tuple[int, int]], pos: int) -> bool:
    index = bisect.bisect_right(cuts, pos, key=lambda cut: cut[0]) - 1
    return index >= 0 and cuts[index][0] <= pos < cuts[index][1]


def _closes(region: str, pos: int) -> bool:
    """What follows a removed comment ends the phrase: blanks before it would dangle.

    True at the end of the line and before closing punctuation, including a
    closing emphasis run (``*em <!-- x -->*`` must stay emphasis).
    """
    if pos >= len(region) or region[pos] == "\n" or region[pos] in _CLOSING:
        return True
    run = pos
    while run < len(region) and run - pos < _EMPHASIS_LOOKAHEAD and region[run] in "*_":
        run += 1
    if run == pos:
        return False
    return run >= len(region) or region[run] in _CLOSING or region[run].isspace()
