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
* a comment block between a list and indented code is kept: it is the
  CommonMark way to end the list, and the code would join the list without it.
* an unclosed ``<!--`` block takes the rest of its block, as in markdown-it.
* text after the comment on a comment block's last line stays; if on its own
  it would start another block (a fence, raw HTML), the block is kept whole.
* inline comments, and comments inside other markup HTML blocks (``<div>``),
  are cut with the blanks they would strand (see ``providers.markdown.edits``).
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from providers.markdown.edits import Lines, remove_spans, without
from providers.markdown.lines import normalise_newlines, source_lines
from providers.markdown.tokens import (
    ParseWork,
    comment_spans,
    content_map,
    front_matter_end,
    is_comment_html,
    is_markup_html_block,
    parse,
    parser_view,
)


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(YAML between the fences, body) for a front matter block at the very start.

    The YAML is the raw text without the fences and without its last newline
    (as markdown-it's token holds it); the body is everything after the
    closing fence. Without front matter: ``(None, text)``. Newlines normalised.
    Raises :class:`MarkdownTooComplex` for a text the parser must not take on.
    """
    normalised = normalise_newlines(text)
    if not normalised.startswith("-"):
        return None, normalised  # front matter opens with a fence of dashes at the start
    lines = source_lines(normalised)
    view = [parser_view(line) for line in lines]
    end = _front_matter_in_head(lines, view)
    if end is None:
        end = front_matter_end(parse(normalised), view)
    if end == 0:
        return None, normalised
    body_offset = min(len(normalised), sum(len(line) + 1 for line in lines[:end]))
    return "\n".join(lines[1 : end - 1]), normalised[body_offset:]


_HEAD_TRIES = 8


def _front_matter_in_head(lines: Sequence[str], view: Sequence[str]) -> int | None:
    """The front matter's line count, found by parsing only the lines up to its closing
    fence; ``None`` when that is not conclusive (the caller parses the whole text).

    The front matter rule decides from the lines up to its closing fence alone, so
    a head ending at a candidate fence (a line starting with ``-`` or ``...``) that
    yields the front matter yields the same one as the whole text: a rule file's
    scope is read without parsing its body.
    """
    tries = 0
    for index in range(1, len(lines)):
        if not lines[index].lstrip(" \t").startswith(("-", "...")):
            continue
        head = "\n".join(lines[: index + 1]) + "\n"
        end = front_matter_end(parse(head), view[: index + 1])
        if end:
            return end
        tries += 1
        if tries >= _HEAD_TRIES:
            break
    return None


def strip_artifacts(text: str) -> str:
    """Markdown without front matter and HTML comments, trimmed, ending in one newline.

    Code is never changed: if removing comment blocks would change what any
    fenced or indented code block holds (a comment that kept two code blocks
    or a list and a code block apart), the comment blocks are all kept and
    only front matter and inline comments go.

    Raises :class:`MarkdownTooComplex` when the passes together would cost the
    parser more than :data:`~providers.markdown.tokens.MAX_PARSE_WORK`.
    """
    normalised = normalise_newlines(text)
    if "<!--" not in normalised and not normalised.startswith("-"):
        return _trimmed(source_lines(normalised))  # nothing to strip: no parse needed
    work = ParseWork()
    stripped = _one_pass(normalised, work, front_matter=True)
    # Removing a comment can change how what is left parses (an emptied list item
    # no longer interrupts a paragraph), and so show further comments to remove:
    # passes until nothing changes make the result final (stripping it again
    # changes nothing). Front matter only ever opens the original text.
    for _ in range(_MAX_PASSES):
        if "<!--" not in stripped:
            break
        again = _one_pass(stripped, work, front_matter=False)
        if again == stripped:
            break
        stripped = again
    return stripped


_MAX_PASSES = 4


def _one_pass(normalised: str, work: ParseWork, *, front_matter: bool) -> str:
    tokens = parse(normalised, work)
    stripped, blocks_edited = _strip(
        normalised, tokens, keep_blocks=False, front_matter=front_matter
    )
    if blocks_edited and _code(tokens) != _code(parse(stripped, work)):
        stripped, _ = _strip(normalised, tokens, keep_blocks=True, front_matter=front_matter)
    return stripped


def _code(tokens: Sequence[Token]) -> list[str]:
    """What the code blocks hold (trailing blanks aside: the result is trimmed)."""
    return [t.content.rstrip(" \t\n") for t in tokens if t.type in ("fence", "code_block")]


def _strip(
    normalised: str, tokens: Sequence[Token], *, keep_blocks: bool, front_matter: bool = True
) -> tuple[str, bool]:
    """The stripped text, and whether any HTML block was edited."""
    lines = source_lines(normalised)
    view = [parser_view(line) for line in lines]
    out: Lines = list(lines)
    placeholders: set[int] = set()
    bare_markers: set[int] = set()
    protected: set[int] = set()
    blocks_edited = False
    for i in range(front_matter_end(tokens, view) if front_matter else 0):
        out[i] = None
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        first, last = token.map
        if token.type in ("fence", "code_block"):
            protected.update(range(first, last))
        elif token.type == "html_block":
            editable = is_markup_html_block(token.content) and not _ends_list(tokens, index)
            if editable and not keep_blocks:
                blocks_edited |= _strip_html_block(token, view, out, placeholders, bare_markers)
            else:
                protected.update(range(first, last))
        elif token.type == "inline":
            atx = index > 0 and tokens[index - 1].markup.startswith("#")
            _strip_inline(token, view, out, heading=atx)
    _settle_placeholders(out, placeholders, bare_markers, protected)
    return _trimmed([line for line in out if line is not None]), blocks_edited


def _trimmed(kept: list[str]) -> str:
    """The lines without leading and trailing blank lines, ending in one newline."""
    # Blank as markdown-it sees it: a form feed is text (and may be code).
    while kept and not kept[-1].strip(" \t"):
        kept.pop()
    start = 0
    while start < len(kept) and not kept[start].strip(" \t"):
        start += 1
    return "\n".join(kept[start:]) + "\n" if start < len(kept) else ""


def _ends_list(tokens: Sequence[Token], index: int) -> bool:
    """The CommonMark idiom ``<!-- end list -->``: a comment between a list and code.

    Without it the indented code would become part of the last list item. Of
    several comment blocks there, the first is kept.
    """
    level = tokens[index].level
    if not (
        index > 0
        and tokens[index - 1].level == level
        and tokens[index - 1].type in ("bullet_list_close", "ordered_list_close")
    ):
        return False  # first: thousands of comment blocks in a row cost one look each

    def same_level(i: int, *kinds: str) -> bool:
        return 0 <= i < len(tokens) and tokens[i].level == level and tokens[i].type in kinds

    after = index + 1
    while same_level(after, "html_block") and is_comment_html(tokens[after].content):
        after += 1
    return same_level(index - 1, "bullet_list_close", "ordered_list_close") and same_level(
        after, "code_block"
    )


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
        remove_spans(found, spans, view, out)


def _strip_html_block(
    token: Token, view: Sequence[str], out: Lines, placeholders: set[int], bare_markers: set[int]
) -> bool:
    content = token.content
    spans = comment_spans(content, open_to_end=is_comment_html(content))
    if not spans or token.map is None:
        return False
    found = content_map(view, token.map[0], token.map[1], content)
    if found is None:
        return False
    leftover = without(content, spans).lstrip(" \t")
    if leftover.strip():
        if is_comment_html(content) and not _reads_as_text(leftover):
            return False
        remove_spans(found, spans, view, out)
        return True
    first = found.first_line
    opener = out[first]
    prefix = "" if opener is None or not found.base else opener[: found.base[0]].rstrip()
    for i in range(token.map[0], min(token.map[1], len(out))):
        out[i] = None
    if first < len(out):
        out[first] = prefix
        if prefix.strip(" \t>"):
            bare_markers.add(first)
        else:
            placeholders.add(first)
    return True


def _reads_as_text(leftover: str) -> bool:
    """Text left after a comment block's comment may stand alone only as prose.

    Inside the block, backticks after ``<!-- x -->`` are inert HTML; on a line
    of their own they would open a fence and swallow the rest of the document
    (raw HTML, lists and quotes likewise take in later lines). A paragraph,
    heading or thematic break is safe; otherwise the block is kept whole.
    """
    found = parse(normalise_newlines(leftover), ParseWork())  # one block's leftover line
    return bool(found) and found[0].type in ("paragraph_open", "heading_open", "hr")


def _squash(line: str) -> str:
    return line.replace(" ", "").replace("\t", "")


def _settle_placeholders(
    out: Lines, placeholders: set[int], bare_markers: set[int], protected: set[int]
) -> None:
    """Keep one blank line (or placeholder) per gap a removed comment block left.

    After a bare list marker (``- <!-- x -->`` became ``-``) the gap goes
    entirely: an item may open with one blank line, not two, and a blank line
    there would end the item and push its content out.
    """
    for mark in sorted(bare_markers):
        after = mark + 1
        quote = _squash(out[mark] or "").rstrip("-+*.)0123456789")
        while after < len(out) and _in_gap(out, after, ("", quote), placeholders, protected):
            out[after] = None
            after += 1
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
    out: Lines, i: int, blank: tuple[str, ...], placeholders: set[int], protected: set[int]
) -> bool:
    """Removed, a placeholder, or blank in the placeholder's container (never code)."""
    if i in protected:
        return False
    line = out[i]
    return line is None or i in placeholders or _squash(line) in blank
