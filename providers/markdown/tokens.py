"""Shared machinery for the markdown helpers: one parser, token-to-source maps.

markdown-it gives block tokens line maps but no columns, and inline tokens no
position at all. Removing an inline comment byte-exactly needs both, so:

* the parser wraps two inline rules (code spans, inline HTML) to record where
  each token they push starts and ends in its ``inline`` token's content
  (``token.meta["span"]``);
* :func:`content_map` finds, for each line of a token's content, the column
  where that line sits in the source line it came from (content lines are
  source-line suffixes with the container markers and indentation cut off).

Everything here works on text whose newlines were normalised the way
markdown-it does it (:mod:`providers.markdown.lines`); callers keep the
original characters for output.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from markdown_it.rules_inline.html_inline import html_inline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from providers.markdown.lines import source_lines

InlineRule = Callable[[StateInline, bool], bool]

# HTML block starts whose content is not markup: never edited, never scanned.
_RAW_TEXT_TAGS = ("script", "pre", "style", "textarea")


def parser_view(line: str) -> str:
    """The line as markdown-it sees it: NUL becomes U+FFFD (same length, same columns)."""
    return line.replace("\0", "\ufffd")


def _recording(rule: InlineRule, token_type: str) -> InlineRule:
    """Wrap an inline rule so the token it pushes carries its source span."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        matched = rule(state, silent)
        if matched and not silent and len(state.tokens) > count:
            token = state.tokens[-1]
            if token.type == token_type:
                token.meta = {**token.meta, "span": (start, state.pos)}
        return matched

    return wrapped


@functools.cache
def parser() -> MarkdownIt:
    """CommonMark with HTML on (comments become tokens) and front matter, built once."""
    md = MarkdownIt("commonmark").use(front_matter_plugin)
    md.inline.ruler.at("backticks", _recording(backtick, "code_inline"))
    md.inline.ruler.at("html_inline", _recording(html_inline, "html_inline"))
    return md


def parse(normalised: str) -> list[Token]:
    """Block and inline tokens for already normalised text."""
    return parser().parse(normalised)


def front_matter_end(tokens: Sequence[Token], view: Sequence[str]) -> int:
    """How many leading lines are front matter (0 when there is none).

    Only the plugin's top-level block at line 0 counts, and only when its
    opening line is nothing but dashes: the plugin alone would also take
    ``---title`` for an opener.
    """
    if not tokens or not view:
        return 0
    head = tokens[0]
    if head.type != "front_matter" or head.level != 0 or not head.map or head.map[0] != 0:
        return 0
    if view[0].rstrip(" \t").strip("-"):
        return 0
    return min(head.map[1], len(view))


def is_comment_html(content: str) -> bool:
    """An HTML block or inline token that starts with a comment."""
    return content.lstrip(" \t").startswith("<!--")


def is_markup_html_block(content: str) -> bool:
    """HTML blocks whose inner comments are comments (CommonMark types 2, 6 and 7).

    Raw-text elements (``<pre>``, ``<script>``...), declarations, processing
    instructions and CDATA hold text, not markup: they are left alone.
    """
    head = content.lstrip(" \t").lower()
    if head.startswith("<!--"):
        return True
    if head.startswith(("<!", "<?")):
        return False
    for tag in _RAW_TEXT_TAGS:
        opener = "<" + tag
        if head.startswith(opener):
            follow = head[len(opener) : len(opener) + 1]
            if not follow or follow == ">" or follow.isspace():
                return False
    return True


def comment_spans(content: str, *, open_to_end: bool) -> list[tuple[int, int]]:
    """Every ``<!-- ... -->`` in raw HTML content, as (start, end) offsets.

    ``<!-->`` and ``<!--->`` close themselves, as in HTML. An unclosed ``<!--``
    runs to the end of the content when ``open_to_end`` (what markdown-it's
    comment block does); otherwise it is left as text.
    """
    spans: list[tuple[int, int]] = []
    end_of_content = len(content) - 1 if content.endswith("\n") else len(content)
    pos = 0
    while (start := content.find("<!--", pos)) != -1:
        close = content.find("-->", start + 2)
        if close == -1:
            if open_to_end and start < end_of_content:
                spans.append((start, end_of_content))
            break
        spans.append((start, close + 3))
        pos = close + 3
    return spans


@dataclass(frozen=True)
class ContentMap:
    """Where a token's content lines sit in the source.

    Content line ``i`` is source line ``first_line + i``; its text from content
    column ``skip[i]`` on starts at source column ``base[i]``. (The skipped
    leading blanks may be tab-expansion padding that is not in the source.)
    """

    first_line: int
    starts: tuple[int, ...]
    skip: tuple[int, ...]
    base: tuple[int, ...]

    def locate(self, offset: int) -> tuple[int, int]:
        """Source (line, column) of a content offset outside leading blanks."""
        if not self.starts:
            return self.first_line, 0
        i = max(0, bisect.bisect_right(self.starts, offset) - 1)
        column = offset - self.starts[i]
        return self.first_line + i, max(0, self.base[i] + column - self.skip[i])

    def line_of(self, offset: int) -> int:
        """Index of the content line holding ``offset``."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)


def _line_base(content_line: str, source: str, *, heading: bool) -> tuple[int, int] | None:
    """(skip, base) for one content line, or None when it is not found where expected."""
    core = content_line.lstrip(" \t")
    skip = len(content_line) - len(core)
    if not core:
        return skip, len(source)
    if heading:
        base = source.find(core, source.find("#") + 1)
    elif source.endswith(core):
        base = len(source) - len(core)
    else:
        trimmed = source.rstrip()
        base = len(trimmed) - len(core) if trimmed.endswith(core) else -1
    if base < 0 or source[base : base + len(core)] != core:
        return None
    return skip, base


def content_map(
    view: Sequence[str], first: int, last: int, content: str, *, heading: bool = False
) -> ContentMap | None:
    """Map ``content`` (of a token covering source lines ``first``..``last``) back to them.

    Content may have lost leading all-blank lines to ``str.strip()`` (think of
    a form feed on its own line), so the first matching source line is tried
    in turn. ``None`` when no placement fits: callers then leave the token as it is.
    """
    last = min(last, len(view))
    lines = source_lines(content) or [""]  # empty content is still one (empty) line
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    for shift in range(max(1, last - first - len(lines) + 1)):
        skips: list[int] = []
        bases: list[int] = []
        for i, line in enumerate(lines):
            index = first + shift + i
            found = _line_base(line, view[index], heading=heading) if index < last else None
            if found is None:
                break
            skips.append(found[0])
            bases.append(found[1])
        else:
            return ContentMap(first + shift, tuple(starts), tuple(skips), tuple(bases))
    return None
