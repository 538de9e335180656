"""Removing authoring artifacts (front matter, HTML comments) from markdown.

What counts as a comment is what markdown-it's tokens say, so code spans,
fenced and indented code keep any ``<!-- -->`` they hold. Edits are made on
the source lines by token line maps; every character not removed is kept
exactly as written.

Removal rules, each chosen so the remaining markdown keeps its structure:

* a comment HTML block that holds nothing else leaves a placeholder line
  (its container markers, e.g. ``>``). A placeholder survives only between two
  non-blank lines, where the comment separated two blocks (``text`` /
  comment / ``more`` stays two paragraphs); next to blank lines it goes, and
  the blank lines around it collapse to one. A list marker before the
  comment is kept (``- <!-- x -->`` becomes ``-``).
* an unclosed ``<!--`` block takes the rest of its block, as in markdown-it.
* an inline comment goes with the blanks that would otherwise dangle: those
  before it at the end of a line (no accidental hard break), those after it
  where it starts a line or follows a blank. A line it leaves empty goes.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from providers.core.markdown_tokens import (
    ContentMap,
    comment_spans,
    content_map,
    front_matter_end,
    is_comment_html,
    is_markup_html_block,
    normalise_newlines,
    parse,
    parser_view,
    source_lines,
)

Lines = list[str | None]


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(YAML between the fences, body) for a front matter block at the very start.

    The YAML is the raw text without the fences and without its last newline
    (as markdown-it's token holds it); the body is everything after the
    closing fence. Without front matter: ``(None, text)``. Newlines normalised.
    """
    normalised = normalise_newlines(text)
    lines = source_lines(normalised)
    view = [parser_view(line) for line in lines]
    end = front_matter_end(parse(normalised), view)
    if end == 0:
        return None, normalised
    body_offset = min(len(normalised), sum(len(line) + 1 for line in lines[:end]))
    return "\n".join(lines[1 : end - 1]), normalised[body_offset:]


def strip_artifacts(text: str) -> str:
    """Markdown without front matter and HTML comments, trimmed, ending in one newline."""
    normalised = normalise_newlines(text)
    lines = source_lines(normalised)
    view = [parser_view(line) for line in lines]
    tokens = parse(normalised)
    out: Lines = list(lines)
    placeholders: set[int] = set()
    protected: set[int] = set()
    for i in range(front_matter_end(tokens, view)):
        out[i] = None
    previous: Token | None = None
    for token in tokens:
        if token.map is not None:
            first, last = token.map
            if token.type in ("fence", "code_block"):
                protected.update(range(first, last))
            elif token.type == "html_block":
                if is_markup_html_block(token.content):
                    _strip_html_block(token, view, out, placeholders)
                else:
                    protected.update(range(first, last))
            elif token.type == "inline":
                atx = previous is not None and previous.markup.startswith("#")
                _strip_inline(token, view, out, heading=atx)
        previous = token
    _settle_placeholders(out, placeholders, protected)
    kept = [line for line in out if line is not None]
    while kept and not kept[-1].strip():
        kept.pop()
    start = 0
    while start < len(kept) and not kept[start].strip():
        start += 1
    return "\n".join(kept[start:]) + "\n" if start < len(kept) else ""


def _strip_inline(token: Token, view: Sequence[str], out: Lines, *, heading: bool) -> None:
    spans = [
        child.meta["span"]
        for child in token.children or ()
        if child.type == "html_inline" and "span" in child.meta and is_comment_html(child.content)
    ]
    if not spans or token.map is None:
        return
    found = content_map(view, token.map[0], token.map[1], token.content, heading=heading)
    if found is not None:
        _remove_spans(found, spans, view, out)


def _strip_html_block(
    token: Token, view: Sequence[str], out: Lines, placeholders: set[int]
) -> None:
    content = token.content
    spans = comment_spans(content, open_to_end=is_comment_html(content))
    if not spans or token.map is None:
        return
    found = content_map(view, token.map[0], token.map[1], content)
    if found is None:
        return
    if _without(content, spans).strip():
        _remove_spans(found, spans, view, out)
        return
    first = found.first_line
    opener = out[first]
    prefix = "" if opener is None or not found.base else opener[: found.base[0]].rstrip()
    for i in range(token.map[0], min(token.map[1], len(out))):
        out[i] = None
    if first < len(out):
        out[first] = prefix
        if not prefix.strip(" \t>"):
            placeholders.add(first)


def _without(content: str, spans: Sequence[tuple[int, int]]) -> str:
    pieces, pos = [], 0
    for start, end in spans:
        pieces.append(content[pos:start])
        pos = end
    pieces.append(content[pos:])
    return "".join(pieces)


def _remove_spans(
    found: ContentMap, spans: Sequence[tuple[int, int]], view: Sequence[str], out: Lines
) -> None:
    """Cut content spans out of the source lines, back to front so positions hold."""
    touched: set[int] = set()
    for start, end in reversed(spans):
        line_a, col_a = found.locate(start)
        line_b, col_b = found.locate(end)
        head_line = out[line_a] if line_a < len(out) else None
        tail_line = out[line_b] if line_b < len(out) else None
        if head_line is None or tail_line is None or line_b < line_a:
            continue
        if col_a > len(head_line) or col_b > len(tail_line):
            continue
        if line_a == line_b and col_b < col_a:
            continue
        body = found.base[line_a - found.first_line]
        head, rest = head_line[:col_a], tail_line[col_b:]
        if not rest.strip(" \t"):
            head = head[:body] + head[body:].rstrip(" \t")
        elif not head[body:].strip(" \t") or head.endswith((" ", "\t")):
            rest = rest.lstrip(" \t")
        out[line_a] = head + rest
        for i in range(line_a + 1, line_b + 1):
            out[i] = None
        touched.add(line_a)
    for i in touched:
        line = out[i]
        body = found.base[i - found.first_line]
        if line is None or line[body:].strip() or not view[i][body:].strip():
            continue
        prefix = line[:body].rstrip()
        out[i] = prefix if prefix.strip(" \t>") else None


def _squash(line: str) -> str:
    return line.replace(" ", "").replace("\t", "")


def _settle_placeholders(out: Lines, placeholders: set[int], protected: set[int]) -> None:
    """Keep one blank line (or placeholder) per gap a removed comment block left."""
    settled: set[int] = set()
    for mark in sorted(placeholders):
        text = out[mark]
        if mark in settled or text is None:
            continue
        blank = ("", _squash(text))
        start, end = mark, mark + 1
        while start > 0 and _in_gap(out, start - 1, blank, placeholders, protected):
            start -= 1
        while end < len(out) and _in_gap(out, end, blank, placeholders, protected):
            end += 1
        settled.update(range(start, end))
        members = [i for i in range(start, end) if out[i] is not None]
        blanks = [i for i in members if i not in placeholders]
        if blanks:
            keep: int | None = blanks[0]
        else:
            keep = members[0] if start > 0 and end < len(out) else None
        for i in members:
            if i != keep:
                out[i] = None


def _in_gap(
    out: Lines, i: int, blank: tuple[str, str], placeholders: set[int], protected: set[int]
) -> bool:
    """Removed, a placeholder, or blank in the placeholder's container (never code)."""
    if i in protected:
        return False
    line = out[i]
    return line is None or i in placeholders or _squash(line) in blank
